//===- solver/Model.h - Solver-neutral MILP model ---------------*- C++ -*-===//
//
// A mixed-integer linear program as plain data: named variables with bounds,
// kinds and objective coefficients, and named ranged constraints over them.
// The passes build a Model; LpWriter prints it as a CPLEX LP file and
// solveWithCbc (Solver.h) solves it. Nothing here depends on a solver.
//
// Everything is kept in insertion order so that any output derived from a
// Model (LP text, solver input, solution vectors) is deterministic. Names must
// be unique and legal in LP files; violating that is a compiler bug, so it is
// reported with llvm::report_fatal_error rather than as a user diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_MODEL_H
#define TACCLC_SOLVER_MODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc::solver {

/// The index of a variable in its Model (the order of addVariable calls).
struct VarId {
  uint32_t Index;

  friend constexpr bool operator==(VarId A, VarId B) {
    return A.Index == B.Index;
  }
  friend constexpr bool operator!=(VarId A, VarId B) {
    return A.Index != B.Index;
  }
  friend constexpr bool operator<(VarId A, VarId B) {
    return A.Index < B.Index;
  }
};

/// The domain of a variable.
enum class VarKind {
  Continuous, ///< Any real value within its bounds.
  Integer,    ///< Any integer within its bounds.
  Binary,     ///< 0 or 1 (bounds within [0, 1]).
};

/// One column of the model.
struct Variable {
  /// Unique, LP-legal name (see Model::isValidName).
  std::string Name;
  /// Bounds; -Model::Infinity / +Model::Infinity when unbounded.
  double Lower, Upper;
  /// Continuous, integer or binary.
  VarKind Kind;
  /// Coefficient in the objective function.
  double Objective;
};

/// One coefficient of a linear expression.
struct Term {
  /// The variable multiplied.
  VarId Var;
  /// Its coefficient.
  double Coef;
};

/// A ranged row Lower <= sum(Terms) <= Upper. One-sided rows use
/// -Model::Infinity or +Model::Infinity for the missing side.
struct Constraint {
  /// Unique, LP-legal name (see Model::isValidName).
  std::string Name;
  /// Terms with distinct variables, no zero coefficients, in first-use order.
  std::vector<Term> Terms;
  /// Row bounds.
  double Lower, Upper;
};

/// Direction of optimisation.
enum class Sense { Minimize, Maximize };

/// A mixed-integer linear program.
class Model {
public:
  /// Bounds at or beyond +-Infinity mean "unbounded"; they are stored as
  /// exactly +-Infinity.
  static constexpr double Infinity = 1e30;
  /// Longest name accepted (the LP reader of CBC stops at 100 characters).
  static constexpr size_t MaxNameLength = 100;

  /// Adds a variable and returns its id. Binary variables need bounds within
  /// [0, 1]. Fatal error on an invalid or duplicate name or a NaN.
  VarId addVariable(llvm::StringRef Name, double Lower, double Upper,
                    VarKind Kind, double Objective = 0.0);
  /// Adds a 0/1 variable.
  VarId addBinary(llvm::StringRef Name, double Objective = 0.0);

  /// Adds Lower <= sum(Terms) <= Upper. Terms on the same variable are summed,
  /// zero coefficients are dropped, and the first-use order is kept. When
  /// both sides are finite and differ, the LP file writes the row as
  /// `Name_lo` and `Name_hi`, so those names must be free as well.
  void addConstraint(llvm::StringRef Name, std::vector<Term> Terms,
                     double Lower, double Upper);
  /// Adds sum(Terms) <= Rhs.
  void addLessEqual(llvm::StringRef Name, std::vector<Term> Terms, double Rhs);
  /// Adds sum(Terms) >= Rhs.
  void addGreaterEqual(llvm::StringRef Name, std::vector<Term> Terms,
                       double Rhs);
  /// Adds sum(Terms) == Rhs.
  void addEqual(llvm::StringRef Name, std::vector<Term> Terms, double Rhs);

  /// Replaces the objective coefficient of \p Var.
  void setObjectiveCoef(VarId Var, double Coef);
  /// Sets the direction of optimisation (default Minimize).
  void setSense(Sense S) { ObjSense = S; }
  /// The direction of optimisation.
  Sense getSense() const { return ObjSense; }
  /// Sets the constant added to the objective (default 0).
  void setObjectiveOffset(double Offset);
  /// The constant added to the objective.
  double getObjectiveOffset() const { return ObjOffset; }

  /// All variables, indexed by VarId::Index.
  const std::vector<Variable> &variables() const { return Vars; }
  /// All constraints, in insertion order.
  const std::vector<Constraint> &constraints() const { return Rows; }
  /// The variable \p Var refers to.
  const Variable &variable(VarId Var) const;
  /// Number of variables.
  size_t numVariables() const { return Vars.size(); }
  /// Number of constraints.
  size_t numConstraints() const { return Rows.size(); }
  /// Number of Integer and Binary variables.
  size_t numIntegerVariables() const { return NumIntegers; }
  /// Number of constraint coefficients after merging.
  size_t numNonzeros() const { return NumNonzeros; }
  /// The variable called \p Name, if any.
  std::optional<VarId> lookup(llvm::StringRef Name) const;

  /// How far \p Values (one per variable) is from satisfying the model: the
  /// largest of the bound and row violations, each divided by max(1, |bound|),
  /// and of the distances of integer variables to the nearest integer. 0 for
  /// a feasible point; +inf if the size is wrong or a value is not finite.
  double maxViolation(llvm::ArrayRef<double> Values) const;

  /// True if \p Name may name a variable or constraint: 1 to MaxNameLength
  /// characters; letters, digits and `_ . ( ) { } ! # $ % & ? @ ~`; starting
  /// with a letter or `_`; not `e`/`E` followed by a digit; not an LP keyword
  /// (`end`, `free`, `inf`, `st`, ... in any case). `[`, `]` and `,` are not
  /// allowed because CBC's LP reader rejects them.
  static bool isValidName(llvm::StringRef Name);

private:
  void checkRowName(llvm::StringRef Name);

  std::vector<Variable> Vars;
  std::vector<Constraint> Rows;
  Sense ObjSense = Sense::Minimize;
  double ObjOffset = 0.0;
  size_t NumIntegers = 0;
  size_t NumNonzeros = 0;
  /// Name -> index, for lookup and duplicate detection only (never iterated).
  llvm::StringMap<uint32_t> VarIndex;
  /// Row names as written to LP files (including `_lo`/`_hi` of ranged rows).
  llvm::StringSet<> RowNames;
};

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_MODEL_H
