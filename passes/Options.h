//===- passes/Options.h - Options shared by the synthesis stages -*- C++
//-*-===//
//
// Knobs the driver passes down to the stages: the MILP settings of each
// stage, and switches for the reductions. Defaults give deterministic
// output: one solver thread, a fixed seed.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_OPTIONS_H
#define TACCLC_PASSES_OPTIONS_H

#include "solver/Solver.h"
#include "support/Deadline.h"
#include "support/Memory.h"

#include <algorithm>
#include <limits>
#include <string>

namespace tacclc {

namespace solver {
class ProgressReporter;
} // namespace solver

/// MILP settings of one stage.
struct StageOptions {
  /// The most this stage may take, each time it runs, model building and
  /// solve included; <= 0 or +inf: no limit of its own (it still shares
  /// the compile's, SynthesisOptions::Until).
  double TimeLimitSeconds = 60;
  double RelativeGap = 1e-4; ///< Accepted relative optimality gap.
  unsigned Threads = 1;      ///< Solver threads (1 = reproducible).
  bool SolverLog = false;    ///< Let the solver print its log to stderr.
  /// Live progress on stderr while solving.
  solver::ProgressMode Progress = solver::ProgressMode::Off;
  /// The stage's progress display, when synthesize() runs one: the stage
  /// names its phases on it and the solver reports into it.
  solver::ProgressReporter *Reporter = nullptr;
  /// When the stage's work must be over: set by synthesize() from the
  /// stage's share of the time left (and its own limit); model building
  /// counts. Past it the stage takes its fallback (docs/synthesis.md, "Time
  /// and memory limits"). Unset: the solve alone is limited, by
  /// TimeLimitSeconds.
  Deadline Budget;
  /// The seconds Budget gave the stage when it started, for messages.
  double BudgetSeconds = 0;
  /// The compile's memory budget: a model that cannot fit is refused, and
  /// the solver may allocate what is left.
  MemoryBudget Memory;

  /// The solver options of one solve of this stage, labelled \p Label in
  /// progress lines.
  solver::SolveOptions solveOptions(std::string Label) const {
    solver::SolveOptions SO;
    SO.TimeLimitSeconds = TimeLimitSeconds;
    SO.Until = Budget;
    if (Memory.Bytes)
      SO.MemoryLimitBytes = std::max<uint64_t>(1, Memory.available());
    SO.RelativeGap = RelativeGap;
    SO.Threads = Threads;
    SO.Log = SolverLog;
    SO.Progress = Progress;
    SO.Reporter = Reporter;
    SO.ProgressLabel = std::move(Label);
    return SO;
  }
};

/// The routing stage's defaults.
inline StageOptions routingDefaults() {
  StageOptions O;
  O.RelativeGap = 1e-3;
  return O;
}

/// What the target runtime allows each rank, as far as the routes decide
/// it (RouteLimits.h). The defaults are both MSCCL runtimes' figures.
struct RankLimits {
  /// Threadblocks a dependency can name (ids 0..127, kept in a byte).
  unsigned WaitedThreadblocks = 128;
  /// XML elements of one rank the runtime's reader keeps: the algorithm,
  /// one per rank, and the rank's threadblocks and steps.
  size_t XmlElements = 4096;

  /// No limit at all (for output that is not a program).
  static RankLimits none() {
    RankLimits L;
    L.WaitedThreadblocks = std::numeric_limits<unsigned>::max();
    L.XmlElements = std::numeric_limits<size_t>::max();
    return L;
  }
};

/// Options of the synthesis stages.
struct SynthesisOptions {
  /// When synthesis should be over: the driver keeps the rest of the
  /// compile's time limit for lowering and verification. The stages share
  /// the time until then (each within its own limit): routing twice the
  /// share of scheduling, and a stage that ends early leaves its time to
  /// the next. Unset: each stage has its own limit only.
  Deadline Until;
  /// Stage 1. Its gap is 0.1%: the warm start is often within a hair of
  /// the optimum, and CBC can spend minutes closing the last 0.01%.
  StageOptions Routing = routingDefaults();
  StageOptions Scheduling; ///< Stage 3 (stage 2 is a heuristic).
  /// Solve only orbit representatives of the sketch's symmetry group.
  bool UseSymmetry = true;
  /// Run stage 3 (contiguity decisions); off keeps the stage-2 schedule.
  bool ExactScheduling = true;
  /// Also build the routing model without the symmetry reduction, to
  /// report its size (SolveStats::VariablesBefore); otherwise those equal
  /// the reduced sizes.
  bool MeasureReduction = false;
  /// The target runtime's limits that routes alone can break: routes that
  /// break one are reported before they are scheduled.
  RankLimits Runtime;
};

} // namespace tacclc

#endif // TACCLC_PASSES_OPTIONS_H
