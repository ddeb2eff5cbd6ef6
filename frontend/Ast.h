//===- frontend/Ast.h - Syntax tree of the sketch language ------*- C++ -*-===//
//
// The AST is what the parser saw, with a source range on every node and no
// meaning attached yet: rank numbers are not range-checked and units are not
// interpreted (that is Sema's job). It is a closed hierarchy with LLVM-style
// RTTI (a Kind enum plus classof), so code dispatches with llvm::isa and
// llvm::dyn_cast; there is no visitor base class. `--emit=ast` prints it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_AST_H
#define TACCLC_FRONTEND_AST_H

// The tree is declared in two parts: Node, literals and expressions in
// AstExpr.h; items, statements, declarations and Module in AstDecl.h.
#include "frontend/AstDecl.h"
#include "frontend/AstExpr.h"

#endif // TACCLC_FRONTEND_AST_H
