//===- frontend/AstBuilder.h - Parse tree to AST ----------------*- C++ -*-===//
//
// Internal to frontend/: turns the ANTLR parse tree of a syntactically valid
// file into tacclc's AST. One of the few files that see generated headers
// (grammar/README.md).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_ASTBUILDER_H
#define TACCLC_FRONTEND_ASTBUILDER_H

#include "frontend/Ast.h"
#include "frontend/SourceMap.h"

#include "SketchParser.h"

namespace tacclc {

/// Builds the AST of \p Tree; \p Map gives source ranges for tokens.
std::unique_ptr<ast::Module>
buildAst(tacclc_antlr::SketchParser::ModuleContext *Tree, const SourceMap &Map,
         unsigned BufferId);

} // namespace tacclc

#endif // TACCLC_FRONTEND_ASTBUILDER_H
