//===- passes/Synthesize.h - The three synthesis stages in order -*- C++
//-*-===//
//
// One call from a resolved sketch to a schedule: stage 1 routes every chunk
// (MILP, symmetry-reduced), stage 2 orders transfers with every heuristic
// and keeps the shortest, stage 3 decides contiguity and exact times (MILP).
// Combining collectives go through their non-combining dual, reversed
// (passes/ReduceSchedule.h); ALLREDUCE adds the dual that spreads the sums,
// started as each sum completes (passes/SpreadOverlap.h).
// Each stage is timed and reported, so drivers can show progress, stats and
// machine-readable reports without knowing the stages' internals.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_SYNTHESIZE_H
#define TACCLC_PASSES_SYNTHESIZE_H

#include "ir/Routes.h"
#include "ir/Schedule.h"
#include "ir/Sketch.h"
#include "passes/Options.h"
#include "passes/Routing.h"
#include "solver/Model.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// What one stage did.
struct StageReport {
  /// "routing", "ordering" or "scheduling"; the spreading half of an
  /// ALLREDUCE adds "spread routing", "spread ordering", "spread scheduling"
  /// and "spread overlap" (passes/SpreadOverlap.h).
  std::string Name;
  double Seconds = 0; ///< Wall time of the whole stage.
  /// The MILP of a solver stage (Status empty for heuristic stages).
  SolveStats Solve;
  std::string Detail;    ///< A line of stage-specific facts.
  double MakespanUs = 0; ///< The schedule's (or relaxed routing's) length.
};

/// Callbacks into a running synthesis.
struct SynthesisHooks {
  /// Called with each MILP before it is solved.
  std::function<void(llvm::StringRef Stage, const solver::Model &)> OnModel;
  /// Called when a stage ends.
  std::function<void(const StageReport &)> OnStage;
};

/// The result of synthesize().
struct Synthesis {
  /// The sketch that was routed: the dual of a combining collective (on the
  /// transposed topology when UpTransposed), else nothing (the sketch).
  std::optional<ir::Sketch> Dual;
  bool UpTransposed = false;
  ir::Routes Routes;     ///< Of the routed sketch.
  ir::Schedule Schedule; ///< The final schedule, on the sketch's topology.
  std::vector<StageReport> Stages;

  /// The sketch Routes belong to.
  const ir::Sketch &routed(const ir::Sketch &S) const {
    return Dual ? *Dual : S;
  }
};

/// The sum of the stages' own limits over the stages \p S runs: the
/// routing limit per routing (two for an ALLREDUCE routed again to spread
/// its sums) plus the scheduling limit per ordering and scheduling pass;
/// +inf when a stage has no limit. Without a time limit for the whole
/// compile, the driver's limit is this sum.
double synthesisTimeLimit(const ir::Sketch &S, const SynthesisOptions &Opts);

/// Runs the stages on \p S. Each stage runs under its own budget: its
/// share of the time left until Opts.Until (routing twice the share of
/// scheduling; a stage that ends early leaves its time to the next), at
/// most its own limit, never after the compile's deadline; model building
/// counts. A stage whose budget passes takes its fallback
/// (docs/synthesis.md). While a stage runs, its progress is shown as
/// Opts' stages ask (solver/Progress.h). Returns nothing after a
/// diagnostic (an unroutable sketch, a routing solver without a solution,
/// a model that cannot fit the memory budget); throws TimeLimitExceeded
/// when the compile's deadline passes.
std::optional<Synthesis> synthesize(const ir::Sketch &S,
                                    const SynthesisOptions &Opts,
                                    DiagnosticEngine &Diags,
                                    const SynthesisHooks &Hooks = {});

} // namespace tacclc

#endif // TACCLC_PASSES_SYNTHESIZE_H
