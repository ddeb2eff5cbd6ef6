//===- passes/Routing.h - Stage 1: route every chunk ------------*- C++ -*-===//
//
// Checks that the sketch can be routed at all, builds the routing MILP,
// solves it with CBC (warm-started from shortest-path trees) and reads the
// chosen links back as ir::Routes. Infeasible sketches and solver failures
// become diagnostics, never crashes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_ROUTING_H
#define TACCLC_PASSES_ROUTING_H

#include "ir/Routes.h"
#include "ir/Sketch.h"
#include "passes/Options.h"
#include "solver/Model.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tacclc {

/// Size and effort of one MILP solve, for `--stats`.
struct SolveStats {
  size_t Variables = 0, IntegerVariables = 0, Constraints = 0, Nonzeros = 0;
  /// The same model without the symmetry reduction.
  size_t VariablesBefore = 0, ConstraintsBefore = 0;
  /// Elements of the symmetry group used, and chunk orbits solved.
  unsigned GroupSize = 1, ChunkOrbits = 0;
  double Seconds = 0;
  double Objective = 0, BestBound = 0;
  double WarmStartObjective = 0; ///< Makespan of the heuristic warm start.
  /// How the solve ended ("optimal", "feasible", ...; "skipped" when there
  /// was nothing to decide).
  std::string Status;
  /// True if the solve stopped at its time limit.
  bool HitTimeLimit = false;
  /// The solver's account of an early stop or fallback, if any.
  std::string Note;
  /// Peak resident memory of the solver's process, in bytes (0: unknown).
  uint64_t SolverPeakBytes = 0;

  /// Relative gap between objective and bound (0 when optimal); NaN when
  /// either is unknown.
  double gap() const;
};

/// Reports an error and returns false if some chunk cannot reach some rank of
/// its postcondition over the sketch's links.
bool checkRoutable(const ir::Sketch &S, DiagnosticEngine &Diags);

/// Routes every chunk of \p S. Returns nothing after a diagnostic.
/// \p OnModel, when given, sees the model before it is solved.
std::optional<ir::Routes>
routeChunks(const ir::Sketch &S, const SynthesisOptions &Opts,
            DiagnosticEngine &Diags, SolveStats *Stats = nullptr,
            llvm::function_ref<void(const solver::Model &)> OnModel = nullptr);

} // namespace tacclc

#endif // TACCLC_PASSES_ROUTING_H
