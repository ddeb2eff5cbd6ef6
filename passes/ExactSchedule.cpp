//===- passes/ExactSchedule.cpp - Stage 3: contiguity MILP and retiming ---===//
//
// The model (times in microseconds; i, j transfers of the stage-2 schedule):
//
// Costs are passes/TimeModel.h's: a transfer over a link takes its hop
// latency h, then its wire time d (one slice of the chunk); only d
// occupies the lane and the shared ports, so the latency of a message
// overlaps the data of the one before it.
//
//   s[i], a[i] >= 0   start (its data's start less h) and arrival of i
//   e[i] >= 0         end of the message up to and including chunk i
//   g[j] in {0,1}     j shares one message with the transfer i before it on
//                     its lane (only where merging is allowed)
//   T                 makespan
//
//   s[i] >= a[p]                     p brings i's chunk to i's source
//   e[i] >= s[i] + h + d             every transfer takes its time
//   a[i] >= e[i]
//   lane i -> j:  e[j] >= a[i] + d - M g[j]     (in order unless merged)
//                 s[j] =  s[i]  when g[j] = 1   (one message leaves once)
//                 e[j] >= e[i] + d - M (1 - g[j])   (it grows by d)
//                 a[i] >= a[j] - M (1 - g[j])  (and lands all at once)
//   port u -> v:  e[v] >= a[u] + d (unless u, v are a lane's neighbours)
//   a run of MaxChunksPerMessage - 1 consecutive g on a lane sums to less
//   T >= s[first] + h + sum d   per lane and per port (all its data,
//                                after the first latency: valid cuts)
//   a[j] >= s[first] + (h + d)/F (k - sum g)   for the k-th transfer j
//                                of a lane (k >= F, the g up to j): its
//                                FIFO holds F messages in flight
//   T >= a[i];    minimise T + eps sum a
//
// The FIFO enters the model only through its rounds per lane (fewer
// messages, fewer rounds: what merging buys where latency overlaps); the
// retiming (Retime.cpp) waits for the message F back to land exactly. So
// the retimed schedule is also compared with every allowed merge retimed.
//
// with M = H + the largest cost, H the stage-2 makespan (every time of a
// solution at least as good lies in [0, H]). Orders are those of stage 2
// (by start time) on every lane and every shared port; only merges change.
//
// Algorithm (scheduleExactly):
//   1. find merge candidates; with none, stage 2's schedule is exact;
//   2. build and solve the model, warm-started from stage 2 (g = 0);
//   3. retime (Retime.cpp): a forward pass in stage-2 order over the chosen
//      groups gives the earliest times (a group leaves when all its chunks
//      and its lane's FIFO are ready, and moves its k chunks' data once its
//      lane and ports are free); keep the fastest of that, every allowed
//      merge retimed, and the stage-2 schedule.
//
//===----------------------------------------------------------------------===//
#include "passes/ExactSchedule.h"
#include "passes/Retime.h"
#include "passes/TimeModel.h"
#include "solver/Progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::stage3;
using solver::Term;

namespace {
/// True if the lane row already orders port neighbours \p U then \p V.
bool portRowRedundant(const Schedule &Sched, const Structure &St, size_t U,
                      size_t V) {
  return Sched.Transfers[U].Link == Sched.Transfers[V].Link &&
         St.LanePrev[V] == int(U);
}

/// True if the MaxChunksPerMessage transfers after position \p K of
/// \p Lane may each join the one before (a message of one chunk too
/// many): the model then needs a row forbidding one of those joins.
bool needsRunRow(const std::vector<size_t> &Lane, size_t K,
                 const std::vector<bool> &Joinable) {
  for (size_t J = K + 1; J <= K + MaxChunksPerMessage; ++J)
    if (!Joinable[Lane[J]])
      return false;
  return true;
}

} // namespace

bool tacclc::mayShareMessage(const Sketch &S, ChunkId A, ChunkId B, LinkId L) {
  const Link &Lk = S.Topo.link(L);
  if (Lk.Class < 0 || size_t(Lk.Class) >= S.ContiguousClasses.size() ||
      !S.ContiguousClasses[Lk.Class])
    return false;
  const Collective &Coll = S.Coll;
  const Chunk &CA = Coll.chunk(A), &CB = Coll.chunk(B);
  if (!Coll.isPost(A, Lk.Dst) || !Coll.isPost(B, Lk.Dst) ||
      CB.OutputIndex != CA.OutputIndex + 1)
    return false;
  bool AOut = Coll.isPost(A, Lk.Src), BOut = Coll.isPost(B, Lk.Src);
  if (AOut || BOut)
    return AOut && BOut;
  return Coll.isPre(A, Lk.Src) && Coll.isPre(B, Lk.Src) &&
         CB.InputIndex == CA.InputIndex + 1;
}

ScheduleModel tacclc::buildScheduleModel(const Sketch &S, const Schedule &Sched,
                                         bool AllowMerge) {
  return std::move(*buildScheduleModel(S, Sched, AllowMerge, Deadline()));
}

namespace {
/// Builds the stage-3 model of a stage-2 schedule (see the file comment),
/// one group of variables or rows per method, in the model's order.
class ScheduleModelBuilder {
public:
  ScheduleModelBuilder(const Sketch &S, const Schedule &Sched, bool AllowMerge,
                       const Deadline &GiveUp)
      : S(S), Sched(Sched), Ts(Sched.Transfers), AllowMerge(AllowMerge),
        GiveUp(GiveUp), St(analyse(S, Sched)), TM(S), M(SM.Model),
        H(Sched.MakespanUs) {
    double MaxCost = 0;
    for (const Transfer &T : Ts)
      MaxCost = std::max(MaxCost, TM.costUs(T.Link));
    BigM = H + MaxCost;
  }

  /// The model, or nothing once the deadline has passed.
  std::optional<ScheduleModel> build() {
    addVariables();
    if (!addTransferRows())
      return std::nullopt;
    // Valid inequalities: a lane or port moves all its data one message at
    // a time, after the latency of the first, whatever is merged. They give
    // the LP the load bound that the big-M rows hide (without them CBC
    // proves little where latency overlaps and merges hardly change T).
    for (size_t L = 0; L < St.Lanes.size(); ++L)
      addWork(fmt::format("lanework{}", L), St.Lanes[L]);
    addFifoRows();
    for (size_t P = 0; P < St.Ports.size(); ++P)
      addWork(fmt::format("portwork{}", P), St.Ports[P]);
    if (!addPortRows())
      return std::nullopt;
    addRunRows();
    return std::move(SM);
  }

private:
  /// Checked every 1024 transfers.
  bool outOfTime(size_t I) const {
    if (I % 1024 != 0)
      return false;
    checkDeadline();
    return GiveUp.hasPassed();
  }
  double data(size_t I) const { return TM.dataUs(Ts[I].Link); }
  /// The name of \p What's variable or row for transfer \p I.
  std::string name(const char *What, size_t I) const {
    const Link &L = S.Topo.link(Ts[I].Link);
    return fmt::format("{}_c{}_l{}_{}", What, Ts[I].Chunk.index(),
                       L.Src.index(), L.Dst.index());
  }

  /// T, then s, e, a per transfer, then g where merging is allowed, with
  /// their warm start (stage 2's times, no merges).
  void addVariables() {
    const double Eps = 1e-4 / std::max<size_t>(1, Ts.size());
    SM.Makespan = M.addVariable("T", 0, H, solver::VarKind::Continuous, 1.0);
    SM.WarmStart.push_back(H);
    for (size_t I = 0; I < Ts.size(); ++I) {
      SM.Start.push_back(
          M.addVariable(name("s", I), 0, H, solver::VarKind::Continuous));
      SM.WarmStart.push_back(Ts[I].StartUs);
      SM.End.push_back(
          M.addVariable(name("e", I), 0, H, solver::VarKind::Continuous));
      SM.WarmStart.push_back(Ts[I].EndUs);
      SM.Arrive.push_back(
          M.addVariable(name("a", I), 0, H, solver::VarKind::Continuous, Eps));
      SM.WarmStart.push_back(Ts[I].EndUs);
    }
    SM.JoinPrev.resize(Ts.size());
    for (size_t I = 0; I < Ts.size(); ++I) {
      int P = St.LanePrev[I];
      if (AllowMerge && P >= 0 && mayMerge(S, Ts[P], Ts[I])) {
        SM.JoinPrev[I] = M.addBinary(name("g", I));
        SM.WarmStart.push_back(0);
        ++SM.NumDecisions;
      }
    }
  }

  /// Per transfer: ready, dur, arrive, done, and the lane rows to the one
  /// before it (same_hi, same_lo, grow, land where it may join it).
  /// False once the deadline has passed.
  bool addTransferRows() {
    for (size_t I = 0; I < Ts.size(); ++I) {
      if (outOfTime(I))
        return false;
      auto S_ = SM.Start[I], A = SM.Arrive[I];
      if (St.Parent[I] >= 0)
        M.addGreaterEqual(name("ready", I),
                          {{S_, 1.0}, {SM.Arrive[St.Parent[I]], -1.0}}, 0.0);
      M.addGreaterEqual(name("dur", I), {{SM.End[I], 1.0}, {S_, -1.0}},
                        TM.costUs(Ts[I].Link));
      M.addGreaterEqual(name("arrive", I), {{A, 1.0}, {SM.End[I], -1.0}}, 0.0);
      M.addGreaterEqual(name("done", I), {{SM.Makespan, 1.0}, {A, -1.0}}, 0.0);
      int P = St.LanePrev[I];
      if (P < 0)
        continue;
      std::vector<Term> Serial = {{SM.End[I], 1.0}, {SM.Arrive[P], -1.0}};
      if (auto G = SM.JoinPrev[I]) {
        Serial.push_back({*G, BigM});
        auto SP = SM.Start[P], AP = SM.Arrive[P];
        M.addLessEqual(name("same_hi", I), {{S_, 1.0}, {SP, -1.0}, {*G, BigM}},
                       BigM);
        M.addGreaterEqual(name("same_lo", I),
                          {{S_, 1.0}, {SP, -1.0}, {*G, -BigM}}, -BigM);
        M.addGreaterEqual(name("grow", I),
                          {{SM.End[I], 1.0}, {SM.End[P], -1.0}, {*G, -BigM}},
                          data(I) - BigM);
        M.addGreaterEqual(name("land", I), {{AP, 1.0}, {A, -1.0}, {*G, -BigM}},
                          -BigM);
      }
      M.addGreaterEqual(name("lane", I), Serial, data(I));
    }
    return true;
  }

  /// T >= s[first] + h + sum d over the transfers \p Ts_ of a lane or port.
  void addWork(const std::string &RowName, const std::vector<size_t> &Ts_) {
    if (Ts_.size() < 2)
      return;
    double Work = TM.hopUs(Ts[Ts_.front()].Link);
    for (size_t I : Ts_)
      Work += data(I);
    M.addGreaterEqual(
        RowName, {{SM.Makespan, 1.0}, {SM.Start[Ts_.front()], -1.0}}, Work);
  }

  /// A lane's FIFO holds F messages in flight: the message F after another
  /// lands a latency and its data after it, so the m-th message of a lane
  /// lands at least m / F such rounds after the lane's first start, m the
  /// transfers up to it less their merges. One row per transfer from the
  /// F-th on.
  void addFifoRows() {
    const unsigned Fifo = TM.fifoMessages(1);
    for (const std::vector<size_t> &Lane : St.Lanes) {
      if (Lane.size() <= Fifo)
        continue;
      const double Round = TM.costUs(Ts[Lane.front()].Link) / Fifo;
      std::vector<Term> Merges;
      for (size_t K = 0; K < Lane.size(); ++K) {
        if (auto G = SM.JoinPrev[Lane[K]])
          Merges.push_back({*G, Round});
        if (K + 1 < Fifo)
          continue;
        std::vector<Term> Row = {{SM.Arrive[Lane[K]], 1.0},
                                 {SM.Start[Lane.front()], -1.0}};
        Row.insert(Row.end(), Merges.begin(), Merges.end());
        M.addGreaterEqual(name("fifo", Lane[K]), Row, Round * double(K + 1));
      }
    }
  }

  /// Shared ports, in stage-2 order. False once the deadline has passed.
  bool addPortRows() {
    for (size_t P = 0; P < St.Ports.size(); ++P) {
      const std::vector<size_t> &Port = St.Ports[P];
      for (size_t K = 1; K < Port.size(); ++K) {
        if (outOfTime(K))
          return false;
        size_t U = Port[K - 1], V = Port[K];
        if (portRowRedundant(Sched, St, U, V))
          continue; // the lane row already serialises them
        M.addGreaterEqual(fmt::format("port{}_{}", P, K),
                          {{SM.End[V], 1.0}, {SM.Arrive[U], -1.0}}, data(V));
      }
    }
    return true;
  }

  /// Messages of at most MaxChunksPerMessage chunks: of any Max joins in a
  /// row (a message of Max + 1 chunks), one must not be taken.
  void addRunRows() {
    std::vector<bool> Joinable(Ts.size());
    for (size_t I = 0; I < Ts.size(); ++I)
      Joinable[I] = SM.JoinPrev[I].has_value();
    for (const std::vector<size_t> &Lane : St.Lanes)
      for (size_t K = 0; K + MaxChunksPerMessage < Lane.size(); ++K) {
        if (!needsRunRow(Lane, K, Joinable))
          continue;
        std::vector<Term> Run;
        for (size_t J = K + 1; J <= K + MaxChunksPerMessage; ++J)
          Run.push_back({*SM.JoinPrev[Lane[J]], 1.0});
        M.addLessEqual(name("run", Lane[K]), Run, double(Run.size() - 1));
      }
  }

  const Sketch &S;
  const Schedule &Sched;
  const std::vector<Transfer> &Ts;
  const bool AllowMerge;
  const Deadline &GiveUp;
  const Structure St;
  const TimeModel TM;
  ScheduleModel SM;
  solver::Model &M;
  const double H;
  double BigM = 0;
};
} // namespace

std::optional<ScheduleModel>
tacclc::buildScheduleModel(const Sketch &S, const Schedule &Sched,
                           bool AllowMerge, const Deadline &GiveUp) {
  PhaseScope Phase("building the scheduling model");
  return ScheduleModelBuilder(S, Sched, AllowMerge, GiveUp).build();
}

namespace {
/// The point of \p SM that sends \p Sched's transfers as \p Timed times
/// them (same transfer order), with the merges \p Join.
std::vector<double> modelPoint(const Sketch &S, const ScheduleModel &SM,
                               const Schedule &Timed,
                               const std::vector<bool> &Join) {
  std::vector<double> X(SM.Model.numVariables(), 0.0);
  X[SM.Makespan.Index] = Timed.MakespanUs;
  double Grown = 0; // the message's end so far, along its lane
  Structure St = analyse(S, Timed);
  const TimeModel TM(S);
  for (const std::vector<size_t> &Lane : St.Lanes)
    for (size_t I : Lane) {
      const Transfer &T = Timed.Transfers[I];
      Grown =
          Join[I] ? Grown + TM.dataUs(T.Link) : T.StartUs + TM.costUs(T.Link);
      X[SM.Start[I].Index] = T.StartUs;
      X[SM.End[I].Index] = Grown;
      X[SM.Arrive[I].Index] = T.EndUs;
      if (auto G = SM.JoinPrev[I])
        X[G->Index] = Join[I] ? 1.0 : 0.0;
    }
  return X;
}
} // namespace

ModelSize tacclc::scheduleModelSize(const Sketch &S, const Schedule &Sched,
                                    bool AllowMerge) {
  const auto &Ts = Sched.Transfers;
  Structure St = analyse(S, Sched);
  ModelSize Z;
  Z.Variables = 1 + 3 * Ts.size();
  auto AddRow = [&](uint64_t Terms) {
    ++Z.Rows;
    Z.Nonzeros += Terms;
  };
  std::vector<bool> Joinable(Ts.size(), false);
  for (size_t I = 0; I < Ts.size(); ++I) {
    int P = St.LanePrev[I];
    Joinable[I] = AllowMerge && P >= 0 && mayMerge(S, Ts[P], Ts[I]);
    Z.IntegerVariables += Joinable[I];
    AddRow(2); // dur
    AddRow(2); // arrive
    AddRow(2); // done
    if (St.Parent[I] >= 0)
      AddRow(2); // ready
    if (P < 0)
      continue;
    AddRow(Joinable[I] ? 3 : 2); // lane
    if (Joinable[I])
      for (int Row = 0; Row < 4; ++Row)
        AddRow(3); // same_hi, same_lo, grow, land
  }
  Z.Variables += Z.IntegerVariables;
  const unsigned Fifo = TimeModel(S).fifoMessages(1);
  for (const std::vector<size_t> &Lane : St.Lanes) {
    if (Lane.size() >= 2)
      AddRow(2); // lanework
    if (Lane.size() > Fifo) {
      uint64_t Terms = 2;
      for (size_t K = 0; K < Lane.size(); ++K) {
        Terms += Joinable[Lane[K]];
        if (K + 1 >= Fifo)
          AddRow(Terms); // fifo
      }
    }
  }
  for (const std::vector<size_t> &Port : St.Ports)
    if (Port.size() >= 2)
      AddRow(2); // portwork
  for (const std::vector<size_t> &Port : St.Ports)
    for (size_t K = 1; K < Port.size(); ++K)
      if (!portRowRedundant(Sched, St, Port[K - 1], Port[K]))
        AddRow(2);
  for (const std::vector<size_t> &Lane : St.Lanes)
    for (size_t K = 0; K + MaxChunksPerMessage < Lane.size(); ++K)
      if (needsRunRow(Lane, K, Joinable))
        AddRow(MaxChunksPerMessage);
  // The maps from transfers to variables, and the warm start.
  Z.BuilderBytes = Ts.size() * 64 + Z.Variables * 16;
  return Z;
}

ir::Schedule tacclc::scheduleExactly(
    const Sketch &S, const Schedule &Sched, bool AllowMerge,
    const StageOptions &Opts, DiagnosticEngine &Diags, SolveStats *Stats,
    llvm::function_ref<void(const solver::Model &)> OnModel) {
  ModelSize Size = scheduleModelSize(S, Sched, AllowMerge);
  if (Stats) {
    Stats->Variables = Stats->VariablesBefore = Size.Variables;
    Stats->IntegerVariables = Size.IntegerVariables;
    Stats->Constraints = Stats->ConstraintsBefore = Size.Rows;
    Stats->Nonzeros = Size.Nonzeros;
    Stats->WarmStartObjective = Sched.MakespanUs;
    Stats->Objective = Stats->BestBound = Sched.MakespanUs;
    Stats->Status = "skipped";
  }
  // Without decisions the model is built only to be shown (--emit=milp).
  if (Size.IntegerVariables == 0 && !OnModel)
    return Sched;
  const char *Keep = "keeping the heuristic schedule";
  if (!fitsMemory(Size, Opts.Memory, DiagId::ScheduleModelTooLarge,
                  "scheduling", Keep, S.Loc, Diags))
    return Sched;
  std::optional<ScheduleModel> Built;
  bool InTime = !Opts.Budget.hasPassed();
  if (InTime && Opts.Reporter)
    Opts.Reporter->phase(Size.buildingPhase());
  if (InTime)
    Built = buildScheduleModel(S, Sched, AllowMerge, Opts.Budget);
  if (!Built) {
    Diags.report(
        DiagId::StageOutOfTime, S.Loc, "scheduling",
        fmt::format("{:.3g}", Opts.BudgetSeconds),
        InTime ? "building the scheduling model" : "ordering transfers", Keep);
    if (Stats)
      Stats->HitTimeLimit = true;
    return Sched;
  }
  ScheduleModel &SM = *Built;
  if (OnModel)
    OnModel(SM.Model);
  if (SM.NumDecisions == 0)
    return Sched;
  solver::SolveOptions SO = Opts.solveOptions("schedule");
  // Warm start: stage 2's schedule, or every allowed merge where that is
  // shorter (then CBC starts from a good point even under a short limit).
  SO.WarmStart = SM.WarmStart;
  std::vector<bool> Greedy = greedyJoins(S, Sched);
  std::optional<Schedule> Merged = retimeInOrder(S, Sched, Greedy, nullptr);
  if (Merged && Merged->MakespanUs < Sched.MakespanUs) {
    std::vector<double> X = modelPoint(S, SM, *Merged, Greedy);
    if (SM.Model.maxViolation(X) <= 1e-6) {
      SO.WarmStart = std::move(X);
      if (Stats)
        Stats->WarmStartObjective = Merged->MakespanUs;
    }
  }
  solver::Solution Sol;
  {
    PhaseScope Phase("solving the scheduling model");
    Sol = solver::solveWithCbc(SM.Model, SO);
  }
  if (Stats) {
    Stats->SolverPeakBytes = Sol.PeakMemoryBytes;
    Stats->Seconds = Sol.Seconds;
    Stats->Status = solver::statusName(Sol.Status).str();
    Stats->HitTimeLimit = Sol.HitTimeLimit;
    Stats->Note = Sol.Message;
    if (Sol.hasValues()) {
      Stats->Objective = Sol.Objective;
      Stats->BestBound = Sol.BestBound;
    }
  }
  if (!Sol.hasValues()) {
    Diags.report(DiagId::ScheduleSolverKept, S.Loc,
                 solver::statusName(Sol.Status).str() +
                     (Sol.Message.empty() ? "" : ": " + Sol.Message));
    return Sched;
  }
  if (Sol.HitTimeLimit)
    Diags.report(DiagId::SolverWarning, S.Loc, "scheduling",
                 Sol.Message + " (" + solver::describeGap(Sol) + ")");
  std::vector<bool> Join(Sched.Transfers.size(), false);
  for (size_t I = 0; I < Join.size(); ++I)
    if (auto G = SM.JoinPrev[I])
      Join[I] = Sol.Values[G->Index] > 0.5;
  std::vector<double> Key;
  for (solver::VarId V : SM.Start)
    Key.push_back(Sol.Values[V.Index]);
  auto Out = retime(S, Sched, Join, &Key);
  if (!Out)
    reportInternalError("stage 3 chose messages that wait for each other");
  const Schedule *Best = &Sched;
  if (Out->MakespanUs < Best->MakespanUs * (1 - 1e-9))
    Best = &*Out;
  if (Merged && Merged->MakespanUs < Best->MakespanUs * (1 - 1e-9)) {
    Merged->sortTransfers();
    Best = &*Merged;
  }
  return *Best;
}
