//===- sim/Simulator.cpp - Flow-level simulation of a plan ----------------===//
//
// Algorithm: a discrete-event simulation over the executable Program.
//   1. sizes as the runtime computes them (SimCall.h): count_total elements
//      cut into nchunksperloop chunks, moved a slice per loop iteration;
//   2. every threadblock runs its operations in order, iteration after
//      iteration, from the protocol's launch latency on; an operation first
//      waits for its dependencies (published steps of the same iteration or
//      later), then takes its message from the receive connection, then
//      posts its send once the send connection's FIFO has free steps for
//      it, and moves on
//      (the message lands later: successive messages overlap their
//      latency, as NCCL's FIFO steps do);
//   3. a message spends its hop latency, then, after the messages posted
//      before it on its connection, moves its wire bytes at a rate set by
//      how links and shared ports serve concurrent connections
//      (SimSharing.h: max-min fair, or one at a time); a step the runtime
//      splits into several primitive calls (more chunks than fit in a
//      slice) is that many messages, each taking a FIFO slot;
//   4. between events (a message leaving its latency, a message landing)
//      rates are constant (max-min rates are recomputed only where flows
//      changed, SimLinkRates.h); time advances to the next event,
//      threadblocks are advanced until none can move, and the loop
//      repeats. A state
//      where nothing moves and nothing is in flight is a deadlock. Only
//      threadblocks woken since they stopped (a message landed for them,
//      room in their send FIFO, a step they wait on published) are
//      advanced, in the order a sweep of all of them would take.
//
//===----------------------------------------------------------------------===//
#include "sim/Simulator.h"

#include "format/Collective.h"
#include "format/IssueSink.h"
#include "format/Poll.h"
#include "format/Program.h"
#include "sim/SimCall.h"
#include "sim/SimLinkRates.h"
#include "sim/SimSharing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

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
  struct Message {
    long Seq = 0;        ///< The flow that carries it.
    unsigned Steps = 1;  ///< FIFO steps it takes.
    bool Landed = false; ///< All its bytes have arrived.
  };
  struct Conn {
    int Link = -1;
    /// The threadblocks at its ends (global numbers, see Base), or -1.
    long Sender = -1, Receiver = -1;
    unsigned Held = 0;         ///< FIFO steps of messages posted, not received.
    std::deque<Message> Queue; ///< Those messages, in posting order.
    /// The rate pass that last saw one of its flows (setRates()).
    unsigned long Seen = 0;
  };
  struct Flow {
    int Link = 0;
    Conn *C = nullptr;    ///< Its connection (std::map keeps it in place).
    double Remaining = 0; ///< Wire bytes still to move.
    double DataStart = 0; ///< When the hop latency is over.
    double Rate = 0;
    long Seq = 0; ///< Posting order, for serial service.
    SimTransfer Rec;
  };
  enum class Phase { Deps, Recv, Send };
  struct TbRun {
    const TbProgram *T = nullptr;
    std::size_t Op = 0;
    long Iter = 0;
    Phase Ph = Phase::Deps;
    std::uint64_t Part = 0; ///< Messages of the step received or posted.
    bool Done = false;
  };

  const Algo &A;
  const Program &P;
  const SimMachine &M;
  const SimOptions &O;
  IssueSink &Sink;
  SimResult &Out;

  SimCallShape Shape;
  std::map<ConnKey, Conn> Conns;
  std::vector<std::vector<long>> Flags; // [rank][tb]
  std::vector<std::vector<TbRun>> Runs; // [rank][tb]
  /// Global number of threadblock t of rank r: Base[r] + t; RunOf[g] is
  /// the threadblock of global number g.
  std::vector<std::size_t> Base;
  std::vector<TbRun *> RunOf;
  /// Per rank and threadblock, the threadblocks (global numbers) stopped
  /// on a dependency on it: woken when it publishes a step.
  std::vector<std::vector<std::vector<std::size_t>>> DepWaiters;
  /// The threadblocks to advance (see wake()): in this pass, by number,
  /// and in the next; flags say which are queued.
  std::vector<std::size_t> ThisPass, NextPass;
  std::vector<char> InThis, InNext;
  std::size_t Cur = 0;   ///< The threadblock being advanced.
  bool Sweeping = false; ///< Within a pass.
  std::vector<Flow> Flows;
  /// How flows share every link, then every port (their capacities in
  /// bytes per us); the resources a flow on each link uses.
  /// Serial service (Sharing) or max-min fair rates (FairRates): one of
  /// them, as the options ask.
  std::optional<FlowSharing> Sharing;
  std::optional<LinkRates> FairRates;
  std::vector<std::vector<int>> LinkUses;
  // Scratch of every event, kept to spare allocations.
  unsigned long RatePass = 0;
  std::vector<std::size_t> Active;
  std::vector<const std::vector<int> *> ActiveUses;
  std::vector<int> ActiveLinks;
  std::vector<double> Rates, Finish;
  double Now = 0;
  long Posted = 0;

  bool advance(TbRun &R);
  void wake(std::size_t G);
  void sweep();
  void finishOp(TbRun &R);
  void post(TbRun &R, const Operation &Op);
  void setRates();
  void reportDeadlock();
};

bool Engine::setup() {
  if (!shapeCall(A, P, M, O, Sink, Shape))
    return false;
  Out.Iterations = Shape.Iterations;
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Capacity;
  const int NLinks = static_cast<int>(M.Links.size());
  for (const SimLink &L : M.Links) {
    Capacity.push_back(L.BetaUsPerB > 0 ? L.Multiplicity / L.BetaUsPerB : Inf);
    std::vector<int> U{static_cast<int>(LinkUses.size())};
    for (int Port : L.Ports)
      U.push_back(NLinks + Port);
    LinkUses.push_back(std::move(U));
  }
  for (const SimPort &Pt : M.Ports)
    Capacity.push_back(Pt.BetaUsPerB > 0 ? 1 / Pt.BetaUsPerB : Inf);
  if (O.Service == PortService::Serial)
    Sharing.emplace(std::move(Capacity));
  else
    FairRates.emplace(std::move(Capacity), LinkUses);
  Runs.resize(P.Ranks.size());
  Flags.resize(P.Ranks.size());
  DepWaiters.resize(P.Ranks.size());
  std::size_t Tbs = 0;
  for (std::size_t R = 0; R < P.Ranks.size(); ++R) {
    Flags[R].assign(P.Ranks[R].size(), -1);
    DepWaiters[R].resize(P.Ranks[R].size());
    Base.push_back(Tbs);
    for (const TbProgram &T : P.Ranks[R]) {
      TbRun Run;
      Run.T = &T;
      Run.Done = T.Ops.empty();
      Runs[R].push_back(Run);
      if (T.Send >= 0) {
        Conn &C = Conns[{T.Rank, T.Send, T.Chan}];
        C.Link = Shape.linkOf(T.Rank, T.Send);
        C.Sender = long(Tbs);
      }
      if (T.Recv >= 0)
        Conns[{T.Recv, T.Rank, T.Chan}].Receiver = long(Tbs);
      ++Tbs;
    }
  }
  for (auto &Rank : Runs)
    for (TbRun &Run : Rank)
      RunOf.push_back(&Run);
  InThis.assign(Tbs, 0);
  InNext.assign(Tbs, 0);
  for (std::size_t G = 0; G < Tbs; ++G)
    wake(G);
  Now = launchLatencyUs(A.Proto, O);
  return true;
}

void Engine::finishOp(TbRun &R) {
  const Operation &Op = R.T->Ops[R.Op];
  if (Op.S->HasDep) {
    Flags[R.T->Rank][R.T->Id] = R.Iter * FlagScale + Op.PublishedStep;
    for (std::size_t G : std::exchange(DepWaiters[R.T->Rank][R.T->Id], {}))
      wake(G);
  }
  R.Ph = Phase::Deps;
  R.Part = 0;
  if (++R.Op == R.T->Ops.size()) {
    R.Op = 0;
    if (++R.Iter == Shape.Iterations)
      R.Done = true;
  }
}

void Engine::post(TbRun &R, const Operation &Op) {
  ConnKey Key{R.T->Rank, R.T->Send, R.T->Chan};
  Conn &C = Conns[Key];
  const double Bytes = Shape.partBytes(*Op.S, R.Iter, R.Part);
  const unsigned Steps = Shape.stepsOf(Bytes);
  C.Held += Steps;
  C.Queue.push_back({Posted, Steps, false});
  const SimLink &L = M.Links[static_cast<std::size_t>(C.Link)];
  Flow F;
  F.Link = C.Link;
  F.C = &C;
  F.Remaining = wireBytes(Bytes, A.Proto, O);
  F.DataStart = Now + hopLatencyUs(L, A.Proto, O);
  F.Seq = Posted++;
  F.Rec.Src = L.Src;
  F.Rec.Dst = L.Dst;
  F.Rec.Link = C.Link;
  F.Rec.Tb = R.T->Id;
  F.Rec.Step = Op.Pos;
  F.Rec.Iteration = R.Iter;
  F.Rec.Chunk = Op.S->SrcOff;
  F.Rec.Cnt = Op.S->Cnt;
  F.Rec.Bytes = Bytes;
  F.Rec.StartUs = Now;
  F.Rec.DataUs = F.DataStart;
  Flows.push_back(F);
}

bool Engine::advance(TbRun &R) {
  if (R.Done)
    return false;
  const Operation &Op = R.T->Ops[R.Op];
  const StepType Ty = Op.S->Type;
  const std::uint64_t Parts = Shape.parts(*Op.S);
  bool Moved = false;
  if (R.Ph == Phase::Deps) {
    for (const Dependency &D : Op.Deps)
      if (Flags[R.T->Rank][static_cast<std::size_t>(D.Tb)] <
          R.Iter * FlagScale + D.Step) {
        DepWaiters[R.T->Rank][static_cast<std::size_t>(D.Tb)].push_back(
            Base[R.T->Rank] + static_cast<std::size_t>(R.T->Id));
        return false;
      }
    R.Ph = receivesMessage(Ty) ? Phase::Recv : Phase::Send;
    Moved = true;
  }
  if (R.Ph == Phase::Recv) {
    auto It = Conns.find({R.T->Recv, R.T->Rank, R.T->Chan});
    while (R.Part < Parts) {
      if (It == Conns.end() || It->second.Queue.empty() ||
          !It->second.Queue.front().Landed)
        return Moved;
      It->second.Held -= It->second.Queue.front().Steps;
      It->second.Queue.pop_front();
      if (It->second.Sender >= 0) // room in the sender's FIFO
        wake(std::size_t(It->second.Sender));
      ++R.Part;
      Moved = true;
    }
    R.Part = 0;
    R.Ph = Phase::Send;
  }
  if (R.Ph == Phase::Send) {
    if (!sendsMessage(Ty)) {
      finishOp(R);
      return true;
    }
    Conn &C = Conns[{R.T->Rank, R.T->Send, R.T->Chan}];
    while (R.Part < Parts) {
      const unsigned Steps =
          Shape.stepsOf(Shape.partBytes(*Op.S, R.Iter, R.Part));
      if (C.Held > 0 && C.Held + Steps > Shape.Capacity)
        return Moved;
      post(R, Op);
      ++R.Part;
      Moved = true;
    }
    finishOp(R);
    return true;
  }
  return Moved;
}

void Engine::wake(std::size_t G) {
  // Within a pass, a threadblock after the current one is still to come in
  // it; the current one and those before it wait for the next pass.
  if (Sweeping && G > Cur) {
    if (!InThis[G]) {
      InThis[G] = 1;
      ThisPass.push_back(G);
      std::push_heap(ThisPass.begin(), ThisPass.end(), std::greater<>());
    }
  } else if (!InNext[G]) {
    InNext[G] = 1;
    NextPass.push_back(G);
  }
}

void Engine::sweep() {
  // Passes over the threadblocks in order until none can move, as a sweep
  // of all of them would go, but visiting only those woken since they last
  // stopped: by a message landing for them, room in their send FIFO, or a
  // step they wait on being published. Others cannot move.
  while (!NextPass.empty()) {
    for (std::size_t G : NextPass) {
      InNext[G] = 0;
      InThis[G] = 1;
    }
    ThisPass = std::move(NextPass);
    NextPass.clear();
    std::make_heap(ThisPass.begin(), ThisPass.end(), std::greater<>());
    Sweeping = true;
    while (!ThisPass.empty()) {
      std::pop_heap(ThisPass.begin(), ThisPass.end(), std::greater<>());
      Cur = ThisPass.back();
      ThisPass.pop_back();
      InThis[Cur] = 0;
      while (advance(*RunOf[Cur])) {
      }
    }
    Sweeping = false;
  }
}

void Engine::setRates() {
  // A connection moves its messages in order, one at a time (NCCL's FIFO
  // steps): only the oldest message of each connection moves, once its
  // latency is over. Flows are kept in posting order, so the first flow of
  // a connection this pass sees is its oldest.
  ++RatePass;
  Active.clear();
  for (std::size_t I = 0; I < Flows.size(); ++I) {
    Conn &C = *Flows[I].C;
    if (C.Seen == RatePass)
      continue;
    C.Seen = RatePass;
    if (Flows[I].DataStart <= Now)
      Active.push_back(I);
  }
  if (O.Service == PortService::Serial)
    std::stable_sort(Active.begin(), Active.end(),
                     [&](std::size_t X, std::size_t Y) {
                       return std::tie(Flows[X].DataStart, Flows[X].Seq) <
                              std::tie(Flows[Y].DataStart, Flows[Y].Seq);
                     });
  if (O.Service == PortService::Serial) {
    ActiveUses.clear();
    for (std::size_t I : Active)
      ActiveUses.push_back(&LinkUses[static_cast<std::size_t>(Flows[I].Link)]);
    Sharing->serial(ActiveUses, Rates);
  } else {
    ActiveLinks.clear();
    for (std::size_t I : Active)
      ActiveLinks.push_back(Flows[I].Link);
    FairRates->maxMin(ActiveLinks, Rates);
  }
  for (Flow &F : Flows)
    F.Rate = 0;
  for (std::size_t K = 0; K < Active.size(); ++K)
    Flows[Active[K]].Rate = Rates[K];
}

void Engine::reportDeadlock() {
  unsigned Listed = 0;
  Sink.report<MsgId::SimDeadlock>(Where());
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
      Sink.report<MsgId::WaitsFor>(W, What);
    }
}

void Engine::run() {
  for (;;) {
    poll();
    sweep();
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
    // The next event: a message leaving its latency or landing. A message
    // lands exactly when its computed finish time is reached (never by
    // comparing leftover bytes with a tolerance, which rounding in Now can
    // defeat), so every pass lands a message or ends a latency: the loop
    // always moves.
    const double Inf = std::numeric_limits<double>::infinity();
    Finish.assign(Flows.size(), Inf);
    double Next = Inf;
    for (std::size_t I = 0; I < Flows.size(); ++I) {
      const Flow &F = Flows[I];
      if (F.DataStart > Now) {
        Next = std::min(Next, F.DataStart);
        continue;
      }
      if (F.Remaining <= 0 || F.Rate == Inf)
        Finish[I] = Now;
      else if (F.Rate > 0)
        Finish[I] = std::max(Now, Now + F.Remaining / F.Rate);
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
    ++Out.Events;
    Out.FlowUpdates += long(Flows.size());
    if (O.MaxFlowUpdates > 0 && Out.FlowUpdates > O.MaxFlowUpdates) {
      Out.Stopped = true;
      return;
    }
    // Land every message whose bytes are all there; the others stay, in
    // their order.
    std::size_t Kept = 0;
    for (std::size_t I = 0; I < Flows.size(); ++I) {
      Flow &F = Flows[I];
      if (!(Finish[I] <= Now)) {
        if (Kept != I)
          Flows[Kept] = std::move(F);
        ++Kept;
        continue;
      }
      Conn &C = *F.C;
      for (Message &Msg : C.Queue)
        if (Msg.Seq == F.Seq)
          Msg.Landed = true;
      if (C.Receiver >= 0)
        wake(std::size_t(C.Receiver));
      if (O.RecordTransfers) {
        F.Rec.EndUs = Now;
        Out.Transfers.push_back(F.Rec);
      }
    }
    Flows.resize(Kept);
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
