//===- runtime/Simulator.cpp - Alpha-beta simulation of a plan ------------===//
//
// Algorithm: a discrete-event simulation over the executable Program.
//   1. sizes as the runtime computes them: count_total elements cut into
//      nchunksperloop chunks, moved a slice per loop iteration;
//   2. every threadblock runs its operations in order, iteration after
//      iteration; an operation first waits for its dependencies (published
//      steps of the same iteration or later), then takes its message from
//      the receive connection, then starts its send once the send
//      connection has room, and finishes when that message has landed;
//   3. a message spends alpha on its link, then moves its bytes at a rate
//      that is the smallest fair share of every resource it uses (its link,
//      times the link's multiplicity, and each shared port); a step of cnt
//      chunks is one message when they fit in a slice together, else the
//      runtime splits it (maxAllowedCount, at most 71 chunks per message)
//      and it pays one alpha per part;
//   4. between events (a message leaving alpha, a message landing) rates
//      are constant; time advances to the next event, threadblocks are
//      advanced until none can move, and the loop repeats. A state where
//      nothing moves and nothing is in flight is a deadlock.
//
//===----------------------------------------------------------------------===//
#include "tacclrt/Simulator.h"

#include "IssueSink.h"
#include "Program.h"
#include "tacclrt/Collective.h"
#include "tacclrt/Poll.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <tuple>

namespace tacclrt {

namespace {

class Engine {
public:
  Engine(const Algo &A, const Program &P, const SimMachine &M,
         const SimOptions &O, IssueSink &Sink, SimResult &Out)
      : A(A), P(P), M(M), O(O), Sink(Sink), Out(Out) {}

  bool setup();
  void run();

private:
  using ConnKey = std::tuple<int, int, int>; // sender, receiver, channel
  struct Conn {
    int Link = -1;
    unsigned Held = 0;   ///< Messages sent and not yet received.
    unsigned Landed = 0; ///< Of those, fully arrived.
  };
  struct Flow {
    int Link = 0;
    ConnKey Key;
    int Rank = 0, Tb = 0;
    double Remaining = 0;
    double DataStart = 0; ///< When alpha is over.
    double Rate = 0;
    SimTransfer Rec;
  };
  enum class Phase { Deps, Recv, Send, Busy };
  struct TbRun {
    const TbProgram *T = nullptr;
    std::size_t Op = 0;
    long Iter = 0;
    Phase Ph = Phase::Deps;
    bool Done = false;
  };

  const Algo &A;
  const Program &P;
  const SimMachine &M;
  const SimOptions &O;
  IssueSink &Sink;
  SimResult &Out;

  std::map<std::pair<int, int>, int> LinkOf;
  std::map<ConnKey, Conn> Conns;
  std::vector<std::vector<long>> Flags; // [rank][tb]
  std::vector<std::vector<TbRun>> Runs; // [rank][tb]
  std::vector<Flow> Flows;
  double Now = 0;
  long Iterations = 0;
  std::uint64_t SizePerChunk = 0, SliceElems = 0;
  /// Chunks one message of a cnt > 1 step may carry: as many as fit in a
  /// slice, 1 to 71 (MSCCL's maxAllowedCount).
  std::uint64_t MaxCount = 1;
  unsigned Capacity = 1;

  double messageBytes(const Step &S, long Iter) const {
    std::uint64_t Done = static_cast<std::uint64_t>(Iter) * SliceElems;
    std::uint64_t N = std::min(SliceElems, SizePerChunk - Done);
    return double(N) * double(S.Cnt) * O.TypeSize;
  }
  bool advance(TbRun &R);
  void finishOp(TbRun &R);
  void startSend(TbRun &R, const Operation &Op);
  void setRates();
  void reportDeadlock();
};

bool Engine::setup() {
  Where AlgoW;
  AlgoW.Line = A.Line;
  AlgoW.Col = A.Col;
  if (M.NRanks != A.NGpus) {
    Sink.error(AlgoW, fmt::format("the plan has {} ranks, machine '{}' has {}",
                                  A.NGpus, M.Name, M.NRanks));
    return false;
  }
  for (std::size_t L = 0; L < M.Links.size(); ++L)
    LinkOf[{M.Links[L].Src, M.Links[L].Dst}] = static_cast<int>(L);
  if (O.TypeSize == 0 || O.Bytes == 0 || O.Bytes % O.TypeSize != 0) {
    Sink.error(AlgoW, fmt::format("{} B is not a positive number of {}-byte "
                                  "elements",
                                  O.Bytes, O.TypeSize));
    return false;
  }
  std::uint64_t Total = O.Bytes / O.TypeSize;
  std::uint64_t Chunks = static_cast<std::uint64_t>(A.NChunksPerLoop);
  if (Total % Chunks != 0) {
    Sink.error(AlgoW, fmt::format("{} elements do not divide into "
                                  "nchunksperloop={} chunks: the runtime would "
                                  "not select this algorithm",
                                  Total, Chunks));
    return false;
  }
  SizePerChunk = Total / Chunks;
  std::uint64_t Slice =
      O.SliceBytes ? O.SliceBytes : protocolSliceBytes(A.Proto);
  SliceElems = std::max<std::uint64_t>(1, Slice / O.TypeSize);
  Iterations = static_cast<long>((SizePerChunk + SliceElems - 1) / SliceElems);
  MaxCount =
      std::clamp<std::uint64_t>(Slice / (SizePerChunk * O.TypeSize), 1, 71);
  Out.Iterations = Iterations;
  Capacity =
      O.FifoMessages ? O.FifoMessages : (A.Proto == Protocol::Simple ? 2u : 8u);
  bool Ok = true;
  Runs.resize(P.Ranks.size());
  Flags.resize(P.Ranks.size());
  for (std::size_t R = 0; R < P.Ranks.size(); ++R) {
    Flags[R].assign(P.Ranks[R].size(), -1);
    for (const TbProgram &T : P.Ranks[R]) {
      TbRun Run;
      Run.T = &T;
      Run.Done = T.Ops.empty();
      Runs[R].push_back(Run);
      if (T.Send < 0)
        continue;
      auto It = LinkOf.find({T.Rank, T.Send});
      if (It == LinkOf.end()) {
        Sink.error(stepWhere(A, T.Rank, T.Id, -1),
                   fmt::format("sends to rank {}, but machine '{}' has no "
                               "link {} -> {}",
                               T.Send, M.Name, T.Rank, T.Send));
        Ok = false;
        continue;
      }
      Conns[{T.Rank, T.Send, T.Chan}].Link = It->second;
    }
  }
  return Ok;
}

void Engine::finishOp(TbRun &R) {
  const Operation &Op = R.T->Ops[R.Op];
  if (Op.S->HasDep)
    Flags[R.T->Rank][R.T->Id] = R.Iter * FlagScale + Op.PublishedStep;
  R.Ph = Phase::Deps;
  if (++R.Op == R.T->Ops.size()) {
    R.Op = 0;
    if (++R.Iter == Iterations)
      R.Done = true;
  }
}

void Engine::startSend(TbRun &R, const Operation &Op) {
  ConnKey Key{R.T->Rank, R.T->Send, R.T->Chan};
  Conn &C = Conns[Key];
  ++C.Held;
  const SimLink &L = M.Links[static_cast<std::size_t>(C.Link)];
  Flow F;
  F.Link = C.Link;
  F.Key = Key;
  F.Rank = R.T->Rank;
  F.Tb = R.T->Id;
  F.Remaining = messageBytes(*Op.S, R.Iter);
  // The runtime moves at most MaxCount chunks per message (below); a
  // larger step is that many messages in a row, each paying alpha.
  const std::uint64_t Cnt = std::uint64_t(std::max(Op.S->Cnt, 1));
  F.DataStart = Now + L.AlphaUs * double((Cnt + MaxCount - 1) / MaxCount);
  F.Rec.Src = L.Src;
  F.Rec.Dst = L.Dst;
  F.Rec.Link = C.Link;
  F.Rec.Tb = R.T->Id;
  F.Rec.Step = Op.Pos;
  F.Rec.Iteration = R.Iter;
  F.Rec.Chunk = Op.S->SrcOff;
  F.Rec.Cnt = Op.S->Cnt;
  F.Rec.Bytes = F.Remaining;
  F.Rec.StartUs = Now;
  Flows.push_back(F);
  R.Ph = Phase::Busy;
}

bool Engine::advance(TbRun &R) {
  if (R.Done || R.Ph == Phase::Busy)
    return false;
  const Operation &Op = R.T->Ops[R.Op];
  const StepType Ty = Op.S->Type;
  bool Moved = false;
  if (R.Ph == Phase::Deps) {
    for (const Dependency &D : Op.Deps)
      if (Flags[R.T->Rank][static_cast<std::size_t>(D.Tb)] <
          R.Iter * FlagScale + D.Step)
        return false;
    R.Ph = receivesMessage(Ty) ? Phase::Recv : Phase::Send;
    Moved = true;
  }
  if (R.Ph == Phase::Recv) {
    auto It = Conns.find({R.T->Recv, R.T->Rank, R.T->Chan});
    if (It == Conns.end() || It->second.Landed == 0)
      return Moved;
    --It->second.Landed;
    --It->second.Held;
    R.Ph = Phase::Send;
    Moved = true;
  }
  if (R.Ph == Phase::Send) {
    if (!sendsMessage(Ty)) {
      finishOp(R);
      return true;
    }
    Conn &C = Conns[{R.T->Rank, R.T->Send, R.T->Chan}];
    if (C.Held >= Capacity)
      return Moved;
    startSend(R, Op);
    return true;
  }
  return Moved;
}

void Engine::setRates() {
  std::vector<unsigned> OnLink(M.Links.size(), 0), OnPort(M.Ports.size(), 0);
  for (const Flow &F : Flows) {
    if (F.DataStart > Now)
      continue;
    ++OnLink[static_cast<std::size_t>(F.Link)];
    for (int Port : M.Links[static_cast<std::size_t>(F.Link)].Ports)
      ++OnPort[static_cast<std::size_t>(Port)];
  }
  const double Inf = std::numeric_limits<double>::infinity();
  for (Flow &F : Flows) {
    if (F.DataStart > Now) {
      F.Rate = 0;
      continue;
    }
    const SimLink &L = M.Links[static_cast<std::size_t>(F.Link)];
    double Rate = L.BetaUsPerB > 0
                      ? L.Multiplicity / L.BetaUsPerB /
                            OnLink[static_cast<std::size_t>(F.Link)]
                      : Inf;
    for (int Port : L.Ports) {
      const SimPort &Pt = M.Ports[static_cast<std::size_t>(Port)];
      if (Pt.BetaUsPerB > 0)
        Rate = std::min(Rate, 1 / Pt.BetaUsPerB /
                                  OnPort[static_cast<std::size_t>(Port)]);
    }
    F.Rate = Rate;
  }
}

void Engine::reportDeadlock() {
  unsigned Listed = 0;
  Sink.error(Where(), "the simulation cannot progress (deadlock): no message "
                      "is in flight and no threadblock can move");
  for (auto &Rank : Runs)
    for (TbRun &R : Rank) {
      if (R.Done || Listed++ >= 8)
        continue;
      const Operation &Op = R.T->Ops[R.Op];
      const char *What = R.Ph == Phase::Deps   ? "a dependency"
                         : R.Ph == Phase::Recv ? "a message"
                                               : "room to send";
      Where W = stepWhere(A, R.T->Rank, R.T->Id, Op.Pos);
      W.Iteration = R.Iter;
      Sink.note(W, fmt::format("waits for {}", What));
    }
}

void Engine::run() {
  for (;;) {
    poll();
    bool Moved = true;
    while (Moved) {
      Moved = false;
      for (auto &Rank : Runs)
        for (TbRun &R : Rank)
          while (advance(R))
            Moved = true;
    }
    if (Flows.empty()) {
      bool AllDone = true;
      for (auto &Rank : Runs)
        for (TbRun &R : Rank)
          AllDone = AllDone && R.Done;
      if (!AllDone) {
        reportDeadlock();
        return;
      }
      Out.Ok = true;
      Out.TimeUs = Now;
      return;
    }
    setRates();
    // The next event: a message leaving alpha or landing. A message lands
    // exactly when its computed finish time is reached (never by comparing
    // leftover bytes with a tolerance, which rounding in Now can defeat), so
    // every pass lands a message or ends an alpha: the loop always moves.
    const double Inf = std::numeric_limits<double>::infinity();
    std::vector<double> Finish(Flows.size(), Inf);
    double Next = Inf;
    for (std::size_t I = 0; I < Flows.size(); ++I) {
      const Flow &F = Flows[I];
      if (F.DataStart > Now) {
        Next = std::min(Next, F.DataStart);
        continue;
      }
      Finish[I] = F.Rate == Inf || F.Remaining <= 0
                      ? Now
                      : std::max(Now, Now + F.Remaining / F.Rate);
      Next = std::min(Next, Finish[I]);
    }
    for (std::size_t I = 0; I < Flows.size(); ++I) {
      Flow &F = Flows[I];
      if (F.DataStart > Now)
        continue;
      if (Finish[I] <= Next)
        F.Remaining = 0;
      else
        F.Remaining = std::max(0.0, F.Remaining - F.Rate * (Next - Now));
    }
    Now = Next;
    // Land every message whose bytes are all there.
    std::vector<Flow> Left;
    for (std::size_t I = 0; I < Flows.size(); ++I) {
      Flow &F = Flows[I];
      if (!(Finish[I] <= Now)) {
        Left.push_back(F);
        continue;
      }
      ++Conns[F.Key].Landed;
      TbRun &R = Runs[static_cast<std::size_t>(F.Rank)]
                     [static_cast<std::size_t>(F.Tb)];
      finishOp(R);
      if (O.RecordTransfers) {
        F.Rec.EndUs = Now;
        Out.Transfers.push_back(F.Rec);
      }
    }
    Flows = std::move(Left);
  }
}

} // namespace

SimResult simulate(const Algo &A, const SimMachine &M, const SimOptions &Opts,
                   std::string_view FileName) {
  SimResult Out;
  IssueSink Sink(Out.Issues, FileName);
  std::optional<Program> P = buildProgram(A, Sink);
  if (!P)
    return Out;
  Engine E(A, *P, M, Opts, Sink, Out);
  if (!E.setup())
    return Out;
  E.run();
  return Out;
}

} // namespace tacclrt
