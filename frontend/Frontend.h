//===- frontend/Frontend.h - Public API of the sketch front end -*- C++ -*-===//
//
// Two entry points: parse a buffer into an AST (syntax errors reported), and
// analyse an AST into a resolved ir::Sketch (every error of meaning reported:
// unknown names, bad ranks, wrong units). Neither throws; both report through
// the DiagnosticEngine and signal failure by returning nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_FRONTEND_H
#define TACCLC_FRONTEND_FRONTEND_H

#include "frontend/Ast.h"
#include "ir/Sketch.h"
#include "support/Diagnostics.h"

#include <memory>
#include <optional>

namespace tacclc {

/// Parses buffer \p BufferId of \p SM. Returns null after syntax errors.
std::unique_ptr<ast::Module> parseSketch(llvm::SourceMgr &SM, unsigned BufferId,
                                         DiagnosticEngine &Diags);

/// Resolves the sketch named \p SketchName in \p M (or the only sketch when
/// the name is empty). Returns nothing after errors.
std::optional<ir::Sketch> analyzeSketch(const ast::Module &M,
                                        llvm::StringRef SketchName,
                                        DiagnosticEngine &Diags);

} // namespace tacclc

#endif // TACCLC_FRONTEND_FRONTEND_H
