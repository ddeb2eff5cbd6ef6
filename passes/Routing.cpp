//===- passes/Routing.cpp - Stage 1 driver: solve and extract routes ------===//
//
// Algorithm:
//   1. reachability (after a first check that the stage can fit the memory
//      budget at all): every post rank of every chunk must be reachable from a
//      pre rank over links the relay rules allow it, else the sketch is
//      infeasible (a user error);
//   2. compute the warm start (RoutingStart.cpp), count the model and
//      refuse it if it cannot fit the memory budget (ModelSize.h), build it
//      (RoutingModel.cpp) and solve it with CBC, warm-started; when the
//      stage's time runs out before the model is built, the warm start's
//      trees are the routes (with a warning);
//   3. map the status: optimal or feasible-at-time-limit gives routes;
//      infeasible, no incumbent or solver error gives a diagnostic;
//   4. extract routes and check they deliver every chunk everywhere it must
//      go (a failure there is a compiler bug, not a user error).
//
//===----------------------------------------------------------------------===//
#include "passes/Routing.h"
#include "passes/ModelSize.h"
#include "passes/RoutingModel.h"
#include "passes/RoutingStart.h"
#include "passes/Symmetry.h"
#include "solver/Progress.h"
#include "solver/Solver.h"
#include "support/Deadline.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

using namespace tacclc;
using namespace tacclc::ir;

double SolveStats::gap() const {
  if (!std::isfinite(Objective) || !std::isfinite(BestBound))
    return std::numeric_limits<double>::quiet_NaN();
  if (Objective <= BestBound)
    return 0;
  if (Objective == 0)
    return std::numeric_limits<double>::quiet_NaN();
  return (Objective - BestBound) / std::fabs(Objective);
}

namespace {
/// The ranks chunk \p C can reach from its pre ranks over links the relay
/// rules let it use (\p Rules), or over every link.
std::vector<bool> reachable(const Sketch &S, ChunkId C, bool Rules) {
  std::vector<bool> Seen(S.Topo.getNumRanks(), false);
  std::vector<RankId> Work(S.Coll.chunk(C).Pre.begin(),
                           S.Coll.chunk(C).Pre.end());
  for (RankId R : Work)
    Seen[R.index()] = true;
  while (!Work.empty()) {
    RankId R = Work.back();
    Work.pop_back();
    for (LinkId L : S.Topo.outLinks(R)) {
      RankId Dst = S.Topo.link(L).Dst;
      if (!Seen[Dst.index()] && (!Rules || S.mayCarry(C, L))) {
        Seen[Dst.index()] = true;
        Work.push_back(Dst);
      }
    }
  }
  return Seen;
}

/// "0:1 -> 1:0, 1:1 -> 0:0": the links between nodes that may carry \p C,
/// as the sketch's author wrote them (turned around in a transposed dual).
std::string crossingLinks(const Sketch &S, ChunkId C) {
  const Topology &T = S.Topo;
  unsigned G = T.getGpusPerNode();
  auto Name = [&](RankId R) {
    return fmt::format("{}:{}", R.index() / G, R.index() % G);
  };
  std::vector<std::string> Names;
  for (unsigned L = 0; L < T.links().size(); ++L) {
    const Link &Lk = T.link(LinkId(L));
    if (T.nodeOf(Lk.Src) == T.nodeOf(Lk.Dst) || !S.mayCarry(C, LinkId(L)))
      continue;
    Names.push_back(S.Transposed ? Name(Lk.Dst) + " -> " + Name(Lk.Src)
                                 : Name(Lk.Src) + " -> " + Name(Lk.Dst));
  }
  if (Names.empty())
    return "no link at all";
  std::string Out;
  const size_t Shown = 4;
  for (size_t I = 0; I < Names.size() && I < Shown; ++I)
    Out += (I ? ", " : "") + Names[I];
  if (Names.size() > Shown)
    Out += fmt::format(" and {} more", Names.size() - Shown);
  return Out;
}
/// "ranks 0-7, 9": the ranks set in \p Seen, as runs (the first few).
std::string rankRuns(const std::vector<bool> &Seen) {
  std::vector<std::string> Runs;
  unsigned Count = 0;
  for (unsigned R = 0; R < Seen.size(); ++R) {
    if (!Seen[R] || (R > 0 && Seen[R - 1]))
      continue;
    unsigned End = R;
    while (End + 1 < Seen.size() && Seen[End + 1])
      ++End;
    Count += End - R + 1;
    Runs.push_back(End == R ? fmt::format("{}", R)
                            : fmt::format("{}-{}", R, End));
  }
  const size_t Shown = 8;
  std::string Out = Count == 1 ? "rank " : "ranks ";
  for (size_t I = 0; I < Runs.size() && I < Shown; ++I)
    Out += (I ? ", " : "") + Runs[I];
  if (Runs.size() > Shown)
    Out += fmt::format(" and {} more runs", Runs.size() - Shown);
  return Out;
}

/// Explains how to let a chunk that reaches only the ranks in \p Seen reach
/// \p Post: a relay into Post's node when the chunk reaches none of that
/// node's ranks, else a link towards it.
void suggestPath(const Sketch &S, const std::vector<bool> &Seen, RankId Post,
                 Diagnostic &D, DiagnosticEngine &Diags) {
  const Topology &T = S.Topo;
  const unsigned G = T.getGpusPerNode(), To = T.nodeOf(Post);
  bool NodeReached = false;
  for (unsigned G2 = 0; G2 < G; ++G2)
    NodeReached |= Seen[To * G + G2];
  if (T.getNumNodes() < 2 || NodeReached) {
    Diags.note(D, DiagId::AddLinkTo, llvm::SMRange(), Post.index());
    return;
  }
  if (T.nics().empty()) {
    Diags.note(D, DiagId::NoNicToRelay, llvm::SMRange(), T.getName().str());
    return;
  }
  // A relay from a NIC-served rank the chunk reaches to a NIC-served GPU of
  // the target's node (written the designer's way round in a dual).
  int From = -1, Into = -1;
  for (unsigned R = 0; R < Seen.size() && From < 0; ++R)
    if (Seen[R] && T.nicOf(RankId(R)) >= 0)
      From = int(R);
  for (unsigned G2 = 0; G2 < G && Into < 0; ++G2)
    if (T.nicOf(RankId(To * G + G2)) >= 0)
      Into = int(To * G + G2);
  if (From < 0 || Into < 0) {
    Diags.note(D, DiagId::AddLinkTo, llvm::SMRange(), Post.index());
    return;
  }
  unsigned A = unsigned(From), B = unsigned(Into);
  if (S.Transposed)
    std::swap(A, B);
  Diags.note(D, DiagId::AddRelay, llvm::SMRange(), A / G, B / G,
             fmt::format("{}:{} -> {}:{}", A / G, A % G, B / G, B % G));
}
} // namespace

bool tacclc::checkRoutable(const Sketch &S, DiagnosticEngine &Diags) {
  PhaseScope Phase("checking that every chunk can reach its ranks");
  const Collective &Coll = S.Coll;
  // What a chunk reaches depends on its pre ranks and, through the relay
  // rules, its source: chunks that share both share it.
  std::map<std::pair<std::vector<RankId>, unsigned>, std::vector<bool>> Known;
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    checkDeadline();
    const Chunk &Ch = Coll.chunk(ChunkId(C));
    auto [It, New] = Known.try_emplace({Ch.Pre, Ch.Source.index()});
    if (New)
      It->second = reachable(S, ChunkId(C), true);
    const std::vector<bool> &Seen = It->second;
    for (RankId Post : Ch.Post) {
      if (Seen[Post.index()])
        continue;
      std::string What = fmt::format("chunk {} (input chunk {} of rank {})", C,
                                     Ch.InputIndex, Ch.Source.index());
      // Blame the relay rules when the links alone would do; point at the
      // relay items, which decide the links between nodes, when any.
      llvm::SMRange Where = S.RelayLoc.isValid() ? S.RelayLoc : S.Loc;
      if (!S.Carries.empty() && reachable(S, ChunkId(C), false)[Post.index()]) {
        Diagnostic &D =
            Diags.report(DiagId::UnreachableByRelays, Where, What, Post.index(),
                         crossingLinks(S, ChunkId(C)));
        Diags.note(D, DiagId::ReachesOnly, llvm::SMRange(), rankRuns(Seen));
        return false;
      }
      Diagnostic &D = Diags.report(DiagId::Unreachable, Where, What,
                                   Post.index(), S.Topo.getName().str());
      Diags.note(D, DiagId::ReachesOnly, llvm::SMRange(), rankRuns(Seen));
      suggestPath(S, Seen, Post, D, Diags);
      return false;
    }
  }
  return true;
}

namespace {
/// The routes of the warm start, when the stage's time ran out before its
/// model was built.
Routes fallBackToStart(const Sketch &S, const SynthesisOptions &Opts,
                       const SymmetryGroup &Group, const RoutingStart &Start,
                       const ModelSize &Size, const char *While,
                       DiagnosticEngine &Diags, SolveStats *Stats) {
  Diags.report(DiagId::StageOutOfTime, S.Loc, "routing",
               fmt::format("{:.3g}", Opts.Routing.BudgetSeconds), While,
               "routing along the warm start's shortest-path trees");
  if (Stats) {
    Stats->Variables = Stats->VariablesBefore = Size.Variables;
    Stats->IntegerVariables = Size.IntegerVariables;
    Stats->Constraints = Stats->ConstraintsBefore = Size.Rows;
    Stats->Nonzeros = Size.Nonzeros;
    Stats->Status = "feasible";
    Stats->HitTimeLimit = true;
    Stats->Objective = Start.Horizon;
    Stats->BestBound = Start.LowerBound;
    Stats->WarmStartObjective = Start.Horizon;
    Stats->Note = "the model was not built: the warm start's routes";
  }
  return startRoutes(S, Group, Start);
}

/// The routes of the warm start, when its makespan is already the lower
/// bound: the model has nothing better to find.
/// \p Full is the model's size without the symmetry reduction, if counted.
Routes provenStart(const Sketch &S, const SymmetryGroup &Group,
                   const RoutingStart &Start, const ModelSize &Size,
                   const std::optional<ModelSize> &Full, SolveStats *Stats) {
  if (Stats) {
    Stats->Variables = Size.Variables;
    Stats->VariablesBefore = Full ? Full->Variables : Size.Variables;
    Stats->IntegerVariables = Size.IntegerVariables;
    Stats->Constraints = Size.Rows;
    Stats->ConstraintsBefore = Full ? Full->Rows : Size.Rows;
    Stats->Nonzeros = Size.Nonzeros;
    Stats->Status = "optimal";
    Stats->Objective = Stats->BestBound = Start.Horizon;
    Stats->WarmStartObjective = Start.Horizon;
    Stats->Note = "warm start at the lower bound, model not built";
  }
  Routes R = startRoutes(S, Group, Start);
  R.SolverStatus = "optimal";
  return R;
}
} // namespace

std::optional<Routes>
tacclc::routeChunks(const Sketch &S, const SynthesisOptions &Opts,
                    DiagnosticEngine &Diags, SolveStats *Stats,
                    llvm::function_ref<void(const solver::Model &)> OnModel) {
  SymmetryGroup Group = Opts.UseSymmetry ? buildSymmetryGroup(S, Diags)
                                         : SymmetryGroup::trivial(S);
  if (Stats) {
    Stats->GroupSize = Group.size();
    Stats->ChunkOrbits = Group.numOrbits();
  }
  // What cannot fit is refused before it is allocated: the warm start's
  // paths first, then the model as counted from the warm start, where the
  // start is not already optimal.
  const MemoryBudget &Memory = Opts.Routing.Memory;
  std::string Advice = shrinkAdvice(S, !Group.isTrivial(), Memory);
  auto Fits = [&](const ModelSize &Size) {
    return fitsMemory(Size, Memory, DiagId::ModelTooLarge, "routing", Advice,
                      S.Loc, Diags);
  };
  if (uint64_t Paths = routingStartBytes(S, Group), Left = Memory.available();
      Paths > Left) {
    Diags.report(DiagId::WarmStartTooLarge, S.Loc, formatBytes(Paths),
                 Group.numOrbits(), S.Coll.getNumChunks(), S.Topo.getNumRanks(),
                 formatBytes(Left), formatBytes(Memory.Bytes), Memory.Source,
                 Advice);
    return std::nullopt;
  }
  if (!checkRoutable(S, Diags))
    return std::nullopt;
  const Deadline &Budget = Opts.Routing.Budget;
  solver::ProgressReporter *Progress = Opts.Routing.Reporter;
  if (Progress)
    Progress->phase("computing the warm start");
  RoutingStart Start = routingStart(S, Group, Budget);
  // The unreduced model is only counted, when asked for (--stats), in the
  // same pass over the representatives.
  std::optional<ModelSize> Full;
  if (!Group.isTrivial() && Opts.MeasureReduction)
    Full.emplace();
  ModelSize Size = routingModelSize(S, Group, Start, Full ? &*Full : nullptr);
  // Trees whose makespan is the lower bound (the farthest rank's shortest
  // distance, or a load ports or links must carry) and whose every arrival
  // is at its shortest distance are optimal for the whole objective (the
  // makespan and the sum of arrival times), unless a switch's policy adds
  // its term: there is nothing to solve, unless the caller wants the model
  // itself. Trees at the bound that arrive later somewhere are not: the
  // model's earlier arrivals order and schedule better downstream. A model
  // not built needs no memory: this comes before the budget's check.
  bool SwitchTerms = llvm::any_of(S.Topo.switches(), [](const Switch &Sw) {
    return Sw.Policy != SwitchPolicy::Free;
  });
  if (!OnModel && !SwitchTerms && Start.ArrivalsAtDistance &&
      Start.Horizon <= Start.LowerBound * (1 + 1e-9)) {
    return provenStart(S, Group, Start, Size, Full, Stats);
  }
  if (!Fits(Size))
    return std::nullopt;
  const char *Building = "building the routing model";
  if (Budget.hasPassed())
    return fallBackToStart(S, Opts, Group, Start, Size,
                           "computing the warm start", Diags, Stats);
  if (Progress)
    Progress->phase(Size.buildingPhase());
  std::optional<RoutingModel> Built =
      buildRoutingModel(S, Group, Start, Budget);
  if (!Built)
    return fallBackToStart(S, Opts, Group, Start, Size, Building, Diags, Stats);
  RoutingModel &RM = *Built;
  if (OnModel)
    OnModel(RM.Model);

  solver::SolveOptions SO = Opts.Routing.solveOptions("routing");
  SO.WarmStart = RM.WarmStart;
  solver::Solution Sol;
  {
    PhaseScope Phase("solving the routing model");
    Sol = solver::solveWithCbc(RM.Model, SO);
  }

  if (Stats) {
    Stats->VariablesBefore = RM.Model.variables().size();
    Stats->ConstraintsBefore = RM.Model.constraints().size();
    if (Full) {
      Stats->VariablesBefore = Full->Variables;
      Stats->ConstraintsBefore = Full->Rows;
    }
    Stats->Variables = RM.Model.variables().size();
    Stats->IntegerVariables = RM.Model.numIntegerVariables();
    Stats->Constraints = RM.Model.constraints().size();
    Stats->Nonzeros = RM.Model.numNonzeros();
    Stats->Seconds = Sol.Seconds;
    Stats->Objective = Sol.Objective;
    Stats->BestBound = Sol.BestBound;
    Stats->WarmStartObjective = RM.WarmStartMakespanUs;
    Stats->Status = solver::statusName(Sol.Status).str();
    Stats->HitTimeLimit = Sol.HitTimeLimit;
    Stats->Note = Sol.Message;
    Stats->SolverPeakBytes = Sol.PeakMemoryBytes;
  }

  switch (Sol.Status) {
  case solver::SolveStatus::Optimal:
  case solver::SolveStatus::Feasible:
    break;
  case solver::SolveStatus::NoSolution:
    Diags.report(DiagId::SolverTimeout, S.Loc,
                 fmt::format("{:.3g}", Opts.Routing.BudgetSeconds));
    return std::nullopt;
  case solver::SolveStatus::Infeasible:
  case solver::SolveStatus::Unbounded:
  case solver::SolveStatus::Error:
    Diags.report(DiagId::SolverFailed, S.Loc,
                 fmt::format("{}{}{}", solver::statusName(Sol.Status).str(),
                             Sol.Message.empty() ? "" : ": ", Sol.Message));
    return std::nullopt;
  }

  if (Sol.Status == solver::SolveStatus::Feasible && !Sol.Message.empty())
    Diags.report(DiagId::SolverWarning, S.Loc, "routing",
                 Sol.Message + " (" + solver::describeGap(Sol) + ")");
  Routes R = extractRoutes(S, RM, Sol.Values);
  R.RelaxedMakespanUs = Sol.Values[RM.Makespan.Index];
  R.SolverStatus = solver::statusName(Sol.Status).str();
  for (const ChunkRoute &CR : R.Chunks) {
    std::vector<bool> Has(S.Topo.getNumRanks(), false);
    for (RankId Pre : S.Coll.chunk(CR.Chunk).Pre)
      Has[Pre.index()] = true;
    for (LinkId L : CR.Links)
      Has[S.Topo.link(L).Dst.index()] = true;
    for (RankId Post : S.Coll.chunk(CR.Chunk).Post)
      if (!Has[Post.index()])
        reportInternalError(
            fmt::format("routing solution does not deliver chunk {} to rank {}",
                        CR.Chunk.index(), Post.index()));
  }
  return R;
}
