//===- passes/Synthesize.cpp - The stage chain ----------------------------===//
//
// Algorithm:
//   1. a combining collective is routed as its dual (dualSketch), on the
//      transposed topology unless the sketch's is symmetric and has no
//      relay rules, so that the reversed schedule uses the sketch's links;
//   2. stage 1 routes (and routes that break a limit of the runtime, as
//      RouteLimits.h counts them, end the compile), stage 2 orders (each
//      heuristic of orderingsFor(), the shortest kept), stage 3 decides
//      contiguity and times; a schedule that will be reversed into reductions
//      may not merge (partial sums are combined one chunk at a time);
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
#include "passes/Phases.h"
#include "passes/ReduceSchedule.h"
#include "passes/RouteLimits.h"
#include "passes/SpreadOverlap.h"

#include "solver/Progress.h"
#include "support/Deadline.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

/// The weight of a routing stage in the split of synthesis time: routing
/// gets twice the share of scheduling (ordering and stage 3 together).
constexpr double RoutingWeight = 2;

/// Runs stages 1-3 on one sketch, appending reports with \p Prefix.
class StageRunner {
public:
  StageRunner(const SynthesisOptions &Opts, DiagnosticEngine &Diags,
              const SynthesisHooks &Hooks, std::vector<StageReport> &Out)
      : Opts(Opts), Diags(Diags), Hooks(Hooks), Out(Out) {}

  /// The stages that will run, in order (true: routing, false:
  /// scheduling), so that each can be given its share of the time left. A
  /// stage weighs its default share of synthesis, or its own limit when
  /// that is smaller.
  void plan(const std::vector<bool> &Routings) {
    double Total = 0;
    for (bool R : Routings)
      Total += R ? RoutingWeight : 1;
    double Span = Opts.Until.secondsLeft();
    Weights.clear();
    for (bool R : Routings) {
      double Default = (R ? RoutingWeight : 1) / Total * Span;
      Weights.push_back(std::min(Default, limitOf(stage(R))));
    }
    Next = 0;
  }

  /// The options of the next planned stage (routing when \p Routing),
  /// with its budget: its share of the time left until
  /// SynthesisOptions::Until, by weight among the stages still to run (so
  /// one that ends early leaves its time to the next), at most its own
  /// limit, and never after the compile's deadline.
  StageOptions budget(bool Routing) {
    const StageOptions &Stage = stage(Routing);
    double Mine = Next < Weights.size() ? Weights[Next] : limitOf(Stage);
    double Rest = 0;
    for (size_t I = Next + 1; I < Weights.size(); ++I)
      Rest += Weights[I];
    ++Next;
    double Left = std::max(0.0, Opts.Until.secondsLeft());
    double Share = std::isfinite(Left) && Mine + Rest > 0
                       ? Left * Mine / (Mine + Rest)
                       : Left;
    double Seconds = std::min(Share, limitOf(Stage));
    StageOptions Within = Stage;
    Deadline Own =
        std::isfinite(Seconds) ? Deadline::after(Seconds) : Deadline();
    Within.Budget = Own.earliest(compileDeadline());
    Within.BudgetSeconds = std::max(0.0, Within.Budget.secondsLeft());
    Last = Within.Budget;
    return Within;
  }

  /// The end of the last budget given (and never after the compile's
  /// deadline): the budget of work that has no time of its own.
  Deadline current() const { return Last.earliest(compileDeadline()); }

  std::optional<Routes> route(const Sketch &S, const std::string &Prefix) {
    StageReport R;
    R.Name = Prefix + "routing";
    auto T0 = Clock::now();
    PhaseScope Phase("routing chunks");
    SynthesisOptions Within = Opts;
    Within.Routing = budget(true);
    std::optional<solver::ProgressReporter> Progress;
    Within.Routing.Reporter = progress(Progress, Opts.Routing, R.Name);
    ModelHook Show = shown(R.Name);
    auto Routes = routeChunks(S, Within, Diags, &R.Solve, ref(Show));
    Progress.reset();
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

  /// Stage 2, within the scheduling stage's budget \p Within. Where stage
  /// 3 may merge chunks, orderings are compared by what merging every
  /// allowed pair would give, since batching chunks pays off only once
  /// they share messages.
  Schedule order(const Sketch &S, const Routes &Rt, bool AllowMerge,
                 const std::string &Prefix, const StageOptions &Within) {
    StageReport R;
    R.Name = Prefix + "ordering";
    auto T0 = Clock::now();
    bool Estimate = AllowMerge && Opts.ExactScheduling;
    std::optional<solver::ProgressReporter> Progress;
    if (solver::ProgressReporter *P = progress(Progress, Within, R.Name)) {
      size_t Transfers = 0;
      for (const ChunkRoute &CR : Rt.Chunks)
        Transfers += CR.Links.size();
      P->phase(fmt::format("ordering {} transfers with {} heuristics",
                           Transfers, orderingsFor(S).size()));
    }
    OrderingResult O = orderTransfers(
        S, Rt,
        [&](const Schedule &Sch) {
          return Estimate ? mergeGreedily(S, Sch).MakespanUs : Sch.MakespanUs;
        },
        Within.Budget);
    Progress.reset();
    if (O.Tried.size() < orderingsFor(S).size())
      Diags.report(DiagId::StageOutOfTime, S.Loc, "scheduling",
                   fmt::format("{:.3g}", Within.BudgetSeconds),
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

  /// Stage 3, within the scheduling stage's budget \p Within.
  Schedule schedule(const Sketch &S, const Schedule &Sched, bool AllowMerge,
                    const std::string &Prefix, StageOptions Within) {
    StageReport R;
    R.Name = Prefix + "scheduling";
    auto T0 = Clock::now();
    Schedule Out = Sched;
    PhaseScope Phase("scheduling transfers");
    std::optional<solver::ProgressReporter> Progress;
    Within.Reporter = progress(Progress, Within, R.Name);
    ModelHook Show = shown(R.Name);
    if (Opts.ExactScheduling)
      Out = scheduleExactly(S, Sched, AllowMerge, Within, Diags, &R.Solve,
                            ref(Show));
    else
      R.Solve.Status = "skipped";
    Progress.reset();
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

  const StageOptions &stage(bool Routing) const {
    return Routing ? Opts.Routing : Opts.Scheduling;
  }
  /// A stage's own limit in seconds (+inf: none).
  static double limitOf(const StageOptions &Stage) {
    return Stage.TimeLimitSeconds > 0 ? Stage.TimeLimitSeconds
                                      : std::numeric_limits<double>::infinity();
  }

  /// Starts the progress display of the stage \p Name in \p Slot, when
  /// \p Stage shows progress; returns it (or nullptr).
  static solver::ProgressReporter *
  progress(std::optional<solver::ProgressReporter> &Slot,
           const StageOptions &Stage, const std::string &Name) {
    if (Stage.Progress == solver::ProgressMode::Off)
      return nullptr;
    Slot.emplace(Stage.Progress, Name);
    return &*Slot;
  }

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
  /// The weights of the planned stages, the next one's index, and the end
  /// of the last budget given.
  std::vector<double> Weights;
  size_t Next = 0;
  Deadline Last;
};
} // namespace

/// Whether a combining collective is routed as its dual on the transposed
/// topology.
static bool routesTransposed(const Sketch &S) {
  return !S.Topo.isSymmetric() || !S.Carries.empty();
}

namespace {
/// The stages \p S runs, in order: true for routing, false for scheduling
/// (ordering and stage 3).
std::vector<bool> plannedStages(const Sketch &S) {
  if (!S.Phases.empty()) {
    // Each phase routes and schedules; an ALLREDUCE solves its reduction
    // and its spreading in phases each.
    std::vector<bool> Stages;
    unsigned Solves = S.Coll.getKind() == CollectiveKind::AllReduce ? 2 : 1;
    for (size_t I = 0; I < Solves * S.Phases.size(); ++I)
      Stages.insert(Stages.end(), {true, false});
    return Stages;
  }
  if (S.Coll.getKind() != CollectiveKind::AllReduce)
    return {true, false};
  if (routesTransposed(S))
    return {true, false, true, false};
  return {true, false, false};
}
} // namespace

double tacclc::synthesisTimeLimit(const Sketch &S,
                                  const SynthesisOptions &Opts) {
  double Sum = 0;
  for (bool Routing : plannedStages(S)) {
    const StageOptions &St = Routing ? Opts.Routing : Opts.Scheduling;
    Sum += St.TimeLimitSeconds > 0 ? St.TimeLimitSeconds
                                   : std::numeric_limits<double>::infinity();
  }
  return Sum;
}

namespace {
/// Stages 1-3 phase by phase on \p S (Phases.h); \p Prefix starts each
/// stage's name. Nothing after a diagnostic.
std::optional<std::pair<Routes, Schedule>>
solveInPhases(const Sketch &S, StageRunner &Run, bool AllowMerge,
              const std::string &Prefix, DiagnosticEngine &Diags) {
  auto Phases = phaseSketches(S, Diags);
  if (!Phases)
    return std::nullopt;
  std::vector<Routes> PhaseRoutes;
  std::vector<Schedule> PhaseSchedules;
  for (size_t I = 0; I < Phases->size(); ++I) {
    const Sketch &P = (*Phases)[I];
    std::string Name = fmt::format("{}phase {} ", Prefix, I + 1);
    auto Rt = Run.route(P, Name);
    if (!Rt)
      return std::nullopt;
    StageOptions Scheduling = Run.budget(false);
    Schedule Ordered = Run.order(P, *Rt, AllowMerge, Name, Scheduling);
    PhaseSchedules.push_back(
        Run.schedule(P, Ordered, AllowMerge, Name, Scheduling));
    PhaseRoutes.push_back(std::move(*Rt));
  }
  return std::make_pair(composeRoutes(PhaseRoutes),
                        composeSchedules(PhaseSchedules));
}

/// The dual of combining sketch \p S solved in the phases of \p S in the
/// opposite order: reversed, its schedule reduces in S's order.
Sketch phasedDual(const Sketch &S, bool Transpose) {
  Sketch D = dualSketch(S, Transpose);
  std::reverse(D.Phases.begin(), D.Phases.end());
  return D;
}

/// synthesize() for a sketch with phases. A combining collective runs its
/// dual backwards (ReduceSchedule.h): its reduction goes through the
/// phases in the sketch's order, and an ALLREDUCE then spreads the sums
/// through them in the opposite order (the dual solved once more, on the
/// sketch's own topology), as NCCL's hierarchical ALLREDUCE does.
/// False after a diagnostic. \p Out holds the stages' reports already.
bool synthesizeInPhases(const Sketch &S, StageRunner &Run, Synthesis &Out,
                        const RankLimits &Limits, DiagnosticEngine &Diags) {
  CollectiveKind Kind = S.Coll.getKind();
  if (!isCombining(Kind)) {
    auto Solved = solveInPhases(S, Run, true, "", Diags);
    if (!Solved ||
        !checkRouteLimits(S, S, Solved->first, nullptr, Limits, Diags))
      return false;
    Out.Routes = std::move(Solved->first);
    Out.Schedule = std::move(Solved->second);
    return true;
  }
  Out.UpTransposed = routesTransposed(S);
  Out.Dual = phasedDual(S, Out.UpTransposed);
  auto Up = solveInPhases(*Out.Dual, Run, false, "", Diags);
  if (!Up || !checkRouteLimits(S, *Out.Dual, Up->first, nullptr, Limits, Diags))
    return false;
  Out.Routes = std::move(Up->first);
  std::optional<std::pair<Routes, Schedule>> Spread;
  if (Kind == CollectiveKind::AllReduce) {
    Spread = solveInPhases(phasedDual(S, false), Run, true, "spread ", Diags);
    if (!Spread || !checkRouteLimits(S, *Out.Dual, Out.Routes, &Spread->first,
                                     Limits, Diags))
      return false;
  }
  Out.Schedule = reverseForReduction(S, Up->second, Out.UpTransposed,
                                     Spread ? &Spread->second : &Up->second);
  if (Spread)
    Out.Schedule = Run.overlap(S, std::move(Out.Schedule));
  return true;
}
} // namespace

std::optional<Synthesis> tacclc::synthesize(const Sketch &S,
                                            const SynthesisOptions &Opts,
                                            DiagnosticEngine &Diags,
                                            const SynthesisHooks &Hooks) {
  Synthesis Out;
  StageRunner Run(Opts, Diags, Hooks, Out.Stages);
  Run.plan(plannedStages(S));
  if (!S.Phases.empty()) {
    if (!synthesizeInPhases(S, Run, Out, Opts.Runtime, Diags))
      return std::nullopt;
    return Out;
  }
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
  // (Without transposing, an ALLREDUCE spreads on the routes it sums on.)
  const ir::Routes *SpreadsOn =
      Kind == CollectiveKind::AllReduce && !Out.UpTransposed ? &Out.Routes
                                                             : nullptr;
  if (!checkRouteLimits(S, Routed, Out.Routes, SpreadsOn, Opts.Runtime, Diags))
    return std::nullopt;
  StageOptions Scheduling = Run.budget(false);
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
      if (!DownRoutes || !checkRouteLimits(S, Routed, Out.Routes, &*DownRoutes,
                                           Opts.Runtime, Diags))
        return std::nullopt;
      StageOptions Spreading = Run.budget(false);
      Schedule DownOrdered =
          Run.order(Down, *DownRoutes, true, "spread ", Spreading);
      Spread = Run.schedule(Down, DownOrdered, true, "spread ", Spreading);
    } else {
      Spread =
          Run.schedule(Routed, Ordered, true, "spread ", Run.budget(false));
    }
  }
  Out.Schedule =
      reverseForReduction(S, Up, Out.UpTransposed, Spread ? &*Spread : &Up);
  if (Spread)
    Out.Schedule = Run.overlap(S, std::move(Out.Schedule));
  return Out;
}
