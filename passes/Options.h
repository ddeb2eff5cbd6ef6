//===- passes/Options.h - Options shared by the synthesis stages -*- C++
//-*-===//
//
// Knobs the driver passes down to the stages. Defaults give deterministic
// output: one solver thread, a fixed seed.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_OPTIONS_H
#define TACCLC_PASSES_OPTIONS_H

namespace tacclc {

/// Options of the synthesis stages.
struct SynthesisOptions {
  double TimeLimitSeconds = 60; ///< Per MILP solve.
  double RelativeGap = 1e-4;    ///< Accepted relative optimality gap.
  unsigned Threads = 1;         ///< Solver threads (1 = reproducible).
  bool SolverLog = false;       ///< Let the solver print its log to stdout.
  /// Solve only orbit representatives of the sketch's symmetry group.
  bool UseSymmetry = true;
};

} // namespace tacclc

#endif // TACCLC_PASSES_OPTIONS_H
