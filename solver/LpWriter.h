//===- solver/LpWriter.h - Write a Model as a CPLEX LP file -----*- C++ -*-===//
//
// Prints a solver::Model in the CPLEX LP text format, which CBC (`cbc
// model.lp solve`), CPLEX, Gurobi, HiGHS and SCIP all read. It is how a
// model is inspected or handed to another solver (`tacclc --dump-lp`).
// The text depends only on the model: same model, same bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_LPWRITER_H
#define TACCLC_SOLVER_LPWRITER_H

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tacclc::solver {

class Model;

/// Writes \p M to \p OS in CPLEX LP format.
///
/// Layout: a `\` comment line with the model's size; `Minimize`/`Maximize`
/// with the objective named `obj` (variables that appear nowhere else get a
/// `0` coefficient so that readers still create them; a non-zero offset is
/// the trailing constant); `Subject To` with one row per constraint, where a
/// ranged row with two finite, different sides is written as `<name>_lo: ...
/// >= lo` and `<name>_hi: ... <= hi` and a row with no finite side as a
/// comment; `Bounds` for every variable whose bounds are not the LP default
/// ([0, +inf), or [0, 1] for binaries), using `-inf` and `free`; `Generals`;
/// `Binaries`; `End`. Numbers are printed as the shortest text that reads
/// back to the same double. Lines are wrapped before 80 columns.
///
/// The `cbc` program (2.10) reads these files, but its reported objective
/// leaves out the constant offset when minimising (it keeps it when
/// maximising); the optimal point is unaffected.
void writeLp(const Model &M, llvm::raw_ostream &OS);

/// Returns what writeLp writes.
std::string toLpString(const Model &M);

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_LPWRITER_H
