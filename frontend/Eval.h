//===- frontend/Eval.h - Integer expressions and their scopes ---*- C++ -*-===//
//
// Machine templates and sketches compute ranks, loop bounds and sizes with
// integer expressions over parameters, local definitions and loop
// variables. Scope is a stack of frames (a loop body is a frame); evalExpr
// evaluates with overflow and division checks and reports unknown names with
// a did-you-mean note. Internal to frontend/.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_EVAL_H
#define TACCLC_FRONTEND_EVAL_H

#include "frontend/Ast.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tacclc {

/// Integer variables visible at a point of a machine or sketch body.
class Scope {
public:
  Scope() { push(); }
  /// Opens a frame (e.g. a loop body).
  void push() { Frames.emplace_back(); }
  /// Closes the innermost frame.
  void pop() { Frames.pop_back(); }
  /// Defines \p Name in the innermost frame; false if it already exists in
  /// any frame (shadowing is not allowed: it hides mistakes).
  bool define(llvm::StringRef Name, int64_t Value, llvm::SMRange Loc);
  /// The value of \p Name, if defined.
  std::optional<int64_t> lookup(llvm::StringRef Name) const;
  /// Where \p Name was defined (invalid for built-ins or unknown names).
  llvm::SMRange definition(llvm::StringRef Name) const;
  /// The visible name closest to \p Name (for did-you-mean), or empty.
  std::string closest(llvm::StringRef Name) const;
  /// Expression nodes evaluated in this scope so far (bounds the work of
  /// loops over large bodies).
  uint64_t work() const { return Work; }
  /// Counts one evaluated node.
  void addWork() const { ++Work; }

private:
  mutable uint64_t Work = 0;
  struct Entry {
    int64_t Value;
    llvm::SMRange Loc;
  };
  std::vector<llvm::StringMap<Entry>> Frames;
};

/// Evaluates \p E in \p S. Reports unknown names, division by zero and
/// overflow; returns nothing after an error.
std::optional<int64_t> evalExpr(const ast::Expr &E, const Scope &S,
                                DiagnosticEngine &Diags);

} // namespace tacclc

#endif // TACCLC_FRONTEND_EVAL_H
