//===- frontend/ParseTree.h - The ANTLR parse of one buffer -----*- C++ -*-===//
//
// For the two users of ANTLR's parse tree itself: the AST builder and the
// formatter (which also needs the comments, on the token stream's hidden
// channel). The tree and the tokens live only during the callback. Internal
// to frontend/.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_PARSETREE_H
#define TACCLC_FRONTEND_PARSETREE_H

#include "frontend/SourceMap.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"

namespace antlr4 {
class CommonTokenStream;
namespace tree {
class ParseTree;
} // namespace tree
} // namespace antlr4

namespace tacclc {

/// Parses buffer \p BufferId of \p SM, reporting syntax errors to \p Diags.
/// Without errors, calls \p Use with the tree of the `module` rule (a
/// tacclc_antlr::SketchParser::ModuleContext), every token of the buffer
/// (comments on the hidden channel) and the buffer's SourceMap, and returns
/// true. Nothing throws out of it.
bool withParseTree(llvm::SourceMgr &SM, unsigned BufferId,
                   DiagnosticEngine &Diags,
                   llvm::function_ref<void(antlr4::tree::ParseTree *Module,
                                           antlr4::CommonTokenStream &Tokens,
                                           const SourceMap &Map)>
                       Use);

} // namespace tacclc

#endif // TACCLC_FRONTEND_PARSETREE_H
