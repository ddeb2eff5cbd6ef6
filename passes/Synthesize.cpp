//===- passes/Synthesize.cpp - The stage chain ----------------------------===//
//
// Algorithm:
//   1. a combining collective is routed as its dual (dualSketch), on the
//      transposed topology unless the sketch's is symmetric and has no
//      relay rules, so that the reversed schedule uses the sketch's links;
//   2. stage 1 routes, stage 2 orders (every heuristic, the shortest kept),
//      stage 3 decides contiguity and times; a schedule that will be
//      reversed into reductions may not merge (partial sums are combined
//      one chunk at a time);
//   3. ALLREDUCE spreads its sums with the dual on the sketch's own
//      topology: routed again when the first dual was transposed, else the
//      same stage-2 schedule, now allowed to merge;
//   4. reverseForReduction builds the combining schedule;
//   5. ALLREDUCE starts spreading each sum once it is complete
//      (overlapSpread), when that is shorter.
//
//===----------------------------------------------------------------------===//
#include "passes/Synthesize.h"
#include "passes/ExactSchedule.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"
#include "passes/SpreadOverlap.h"

#include "support/Deadline.h"

#include <fmt/format.h>

#include <chrono>
#include <iterator>
#include <limits>
#include <map>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
using Clock = std::chrono::steady_clock;

double since(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

/// Runs stages 1-3 on one sketch, appending reports with \p Prefix.
class StageRunner {
public:
  StageRunner(const SynthesisOptions &Opts, DiagnosticEngine &Diags,
              const SynthesisHooks &Hooks, std::vector<StageReport> &Out)
      : Opts(Opts), Diags(Diags), Hooks(Hooks), Out(Out) {}

  /// The budget of the next stage: the stages run on one timeline from
  /// the start of synthesis, each ending by the sum of its own limit and
  /// those before it (a stage that starts late because another overran
  /// gets less), and never after the compile's deadline. So synthesis ends
  /// by the sum of the stages' limits, whatever each stage takes, and the
  /// work after it keeps the rest of the compile's time.
  Deadline budget(const StageOptions &Stage) {
    if (!(Stage.TimeLimitSeconds > 0))
      Unlimited = true;
    Seconds += Stage.TimeLimitSeconds;
    return current();
  }

  /// The end of the budgets given so far (and never after the compile's
  /// deadline): the budget of work that has no time of its own.
  Deadline current() const {
    Deadline Own = Unlimited ? Deadline() : Deadline::after(Start, Seconds);
    return Own.earliest(compileDeadline());
  }

  std::optional<Routes> route(const Sketch &S, const std::string &Prefix) {
    StageReport R;
    R.Name = Prefix + "routing";
    auto T0 = Clock::now();
    PhaseScope Phase("routing chunks");
    SynthesisOptions Within = Opts;
    Within.Routing.Budget = budget(Opts.Routing);
    ModelHook Show = shown(R.Name);
    auto Routes = routeChunks(S, Within, Diags, &R.Solve, ref(Show));
    if (!Routes)
      return std::nullopt;
    R.Seconds = since(T0);
    R.MakespanUs = Routes->RelaxedMakespanUs;
    R.Detail = "no symmetry";
    if (R.Solve.GroupSize > 1)
      R.Detail = fmt::format("symmetry: {} elements, {} of {} chunks routed",
                             R.Solve.GroupSize, R.Solve.ChunkOrbits,
                             S.Coll.getNumChunks());
    if (R.Solve.VariablesBefore != R.Solve.Variables)
      R.Detail +=
          fmt::format(", from {} variables and {} rows",
                      R.Solve.VariablesBefore, R.Solve.ConstraintsBefore);
    report(std::move(R));
    return Routes;
  }

  /// Stage 2. Where stage 3 may merge chunks, orderings are compared by
  /// what merging every allowed pair would give, since batching chunks
  /// pays off only once they share messages.
  Schedule order(const Sketch &S, const Routes &Rt, bool AllowMerge,
                 const std::string &Prefix, const Deadline &Budget) {
    StageReport R;
    R.Name = Prefix + "ordering";
    auto T0 = Clock::now();
    bool Estimate = AllowMerge && Opts.ExactScheduling;
    OrderingResult O = orderTransfers(
        S, Rt,
        [&](const Schedule &Sch) {
          return Estimate ? mergeGreedily(S, Sch).MakespanUs : Sch.MakespanUs;
        },
        Budget);
    if (O.Tried.size() < std::size(AllOrderings))
      Diags.report(DiagId::StageOutOfTime, S.Loc, "scheduling",
                   fmt::format("{:g}", Opts.Scheduling.TimeLimitSeconds),
                   "ordering transfers",
                   fmt::format("keeping the best of the {} orderings tried",
                               O.Tried.size()));
    R.Seconds = since(T0);
    R.MakespanUs = O.Best.MakespanUs;
    R.Detail = orderingName(O.BestOrdering).str();
    std::string Tried;
    for (const auto &[Ord, Us] : O.Tried)
      Tried += fmt::format("{}{} {:.6g} us", Tried.empty() ? "" : ", ",
                           orderingName(Ord).str(), Us);
    R.Detail += Estimate
                    ? " (makespans with every allowed merge: " + Tried + ")"
                    : " (" + Tried + ")";
    report(std::move(R));
    return O.Best;
  }

  Schedule schedule(const Sketch &S, const Schedule &Sched, bool AllowMerge,
                    const std::string &Prefix, const Deadline &Budget) {
    StageReport R;
    R.Name = Prefix + "scheduling";
    auto T0 = Clock::now();
    Schedule Out = Sched;
    PhaseScope Phase("scheduling transfers");
    StageOptions Within = Opts.Scheduling;
    Within.Budget = Budget;
    ModelHook Show = shown(R.Name);
    if (Opts.ExactScheduling)
      Out = scheduleExactly(S, Sched, AllowMerge, Within, Diags, &R.Solve,
                            ref(Show));
    else
      R.Solve.Status = "skipped";
    R.Seconds = since(T0);
    R.MakespanUs = Out.MakespanUs;
    unsigned Merged = countMerged(Out);
    R.Detail = R.Solve.IntegerVariables == 0
                   ? std::string("no contiguity decisions")
                   : fmt::format("{} contiguity decisions, {} chunks sent with "
                                 "the previous one; {:.6g} -> {:.6g} us",
                                 R.Solve.IntegerVariables, Merged,
                                 Sched.MakespanUs, Out.MakespanUs);
    report(std::move(R));
    return Out;
  }

  /// Step 5: an ALLREDUCE's sums spread as they finish, if that is shorter
  /// than after the whole reduction.
  Schedule overlap(const Sketch &S, Schedule AllReduce) {
    StageReport R;
    R.Name = "spread overlap";
    auto T0 = Clock::now();
    PhaseScope Phase("overlapping the spread with the reduction");
    double Before = AllReduce.MakespanUs;
    // Within the spreading stages' budget: no time of its own.
    auto O = overlapSpread(S, AllReduce, current());
    if (O) {
      R.Detail = fmt::format("sums spread as they finish: {:.6g} -> {:.6g} us "
                             "({})",
                             Before, O->Schedule.MakespanUs,
                             orderingName(O->BestOrdering).str());
      AllReduce = std::move(O->Schedule);
    } else {
      R.Detail = "spread after the whole reduction (overlapping it is not "
                 "shorter)";
    }
    R.Seconds = since(T0);
    R.MakespanUs = AllReduce.MakespanUs;
    report(std::move(R));
    return AllReduce;
  }

private:
  using ModelHook = std::function<void(const solver::Model &)>;

  /// The stage's OnModel callback: the hook's, labelled \p Stage, or none
  /// (then a model with nothing to decide need not be built at all).
  ModelHook shown(const std::string &Stage) const {
    if (!Hooks.OnModel)
      return nullptr;
    return [this, Stage](const solver::Model &M) { Hooks.OnModel(Stage, M); };
  }
  static llvm::function_ref<void(const solver::Model &)>
  ref(const ModelHook &Hook) {
    if (!Hook)
      return nullptr;
    return Hook;
  }

  /// Transfers that start with the one before them on their link and lane.
  static unsigned countMerged(const Schedule &Sch) {
    unsigned N = 0;
    std::map<std::pair<unsigned, unsigned>, double> LastStart;
    for (const Transfer &T : Sch.Transfers) {
      auto Key = std::make_pair(T.Link.index(), T.Lane);
      auto It = LastStart.find(Key);
      if (It != LastStart.end() && It->second == T.StartUs)
        ++N;
      LastStart[Key] = T.StartUs;
    }
    return N;
  }

  void report(StageReport R) {
    if (Hooks.OnStage)
      Hooks.OnStage(R);
    Out.push_back(std::move(R));
  }

  const SynthesisOptions &Opts;
  DiagnosticEngine &Diags;
  const SynthesisHooks &Hooks;
  std::vector<StageReport> &Out;
  /// The timeline of the stages' budgets: when synthesis started, the
  /// limits of the stages so far, and whether one of them had none.
  const Clock::time_point Start = Clock::now();
  double Seconds = 0;
  bool Unlimited = false;
};
} // namespace

/// Whether a combining collective is routed as its dual on the transposed
/// topology.
static bool routesTransposed(const Sketch &S) {
  return !S.Topo.isSymmetric() || !S.Carries.empty();
}

double tacclc::synthesisTimeLimit(const Sketch &S,
                                  const SynthesisOptions &Opts) {
  auto Limit = [](const StageOptions &Stage) {
    return Stage.TimeLimitSeconds > 0 ? Stage.TimeLimitSeconds
                                      : std::numeric_limits<double>::infinity();
  };
  CollectiveKind Kind = S.Coll.getKind();
  bool Spreads = Kind == CollectiveKind::AllReduce;
  unsigned Routings = Spreads && routesTransposed(S) ? 2 : 1;
  unsigned Schedulings = Spreads ? 2 : 1;
  return Routings * Limit(Opts.Routing) + Schedulings * Limit(Opts.Scheduling);
}

std::optional<Synthesis> tacclc::synthesize(const Sketch &S,
                                            const SynthesisOptions &Opts,
                                            DiagnosticEngine &Diags,
                                            const SynthesisHooks &Hooks) {
  Synthesis Out;
  StageRunner Run(Opts, Diags, Hooks, Out.Stages);
  CollectiveKind Kind = S.Coll.getKind();
  bool Combining = isCombining(Kind);
  if (Combining) {
    Out.UpTransposed = routesTransposed(S);
    Out.Dual = dualSketch(S, Out.UpTransposed);
  }
  const Sketch &Routed = Out.routed(S);
  auto Routes = Run.route(Routed, "");
  if (!Routes)
    return std::nullopt;
  Out.Routes = std::move(*Routes);
  Deadline Scheduling = Run.budget(Opts.Scheduling);
  Schedule Ordered = Run.order(Routed, Out.Routes, !Combining, "", Scheduling);
  Schedule Up = Run.schedule(Routed, Ordered, !Combining, "", Scheduling);
  if (!Combining) {
    Out.Schedule = std::move(Up);
    return Out;
  }
  std::optional<Schedule> Spread;
  if (Kind == CollectiveKind::AllReduce) {
    if (Out.UpTransposed) {
      Sketch Down = dualSketch(S, false);
      auto DownRoutes = Run.route(Down, "spread ");
      if (!DownRoutes)
        return std::nullopt;
      Deadline Spreading = Run.budget(Opts.Scheduling);
      Schedule DownOrdered =
          Run.order(Down, *DownRoutes, true, "spread ", Spreading);
      Spread = Run.schedule(Down, DownOrdered, true, "spread ", Spreading);
    } else {
      Spread = Run.schedule(Routed, Ordered, true, "spread ",
                            Run.budget(Opts.Scheduling));
    }
  }
  Out.Schedule =
      reverseForReduction(S, Up, Out.UpTransposed, Spread ? &*Spread : &Up);
  if (Spread)
    Out.Schedule = Run.overlap(S, std::move(Out.Schedule));
  return Out;
}
