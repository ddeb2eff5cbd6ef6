//===- passes/Retime.cpp - Stage 3's view of a schedule -------------------===//
//
// Retiming (retimeInOrder): messages (a transfer and those merged into it)
// are placed in a topological order of what they wait for (the messages
// bringing their chunks, the one before them on their lane and on each of
// their ports), earliest key first. Times follow passes/TimeModel.h: a
// message is posted when its chunks have arrived, its lane has posted the
// message before it and the lane's FIFO has room; its data moves after its
// hop latency, once its lane and its ports have moved the data before it,
// for the wire time of its chunks. A cycle means merges that no schedule
// allows.
//
//===----------------------------------------------------------------------===//
#include "passes/Retime.h"
#include "passes/ExactSchedule.h"
#include "passes/TimeModel.h"

#include "support/Deadline.h"

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <queue>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::stage3;

std::vector<size_t> stage3::byStart(const Schedule &Sched) {
  std::vector<size_t> Order(Sched.Transfers.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Sched.Transfers[A].StartUs < Sched.Transfers[B].StartUs;
  });
  return Order;
}

Structure stage3::analyse(const Sketch &S, const Schedule &Sched) {
  const Topology &Topo = S.Topo;
  const auto &Ts = Sched.Transfers;
  Structure St;
  St.Parent.assign(Ts.size(), -1);
  St.LanePrev.assign(Ts.size(), -1);
  // Who delivers chunk c to rank r (each rank receives a chunk once).
  std::map<std::pair<unsigned, unsigned>, size_t> Delivers;
  for (size_t I = 0; I < Ts.size(); ++I)
    Delivers[{Ts[I].Chunk.index(), Topo.link(Ts[I].Link).Dst.index()}] = I;
  for (size_t I = 0; I < Ts.size(); ++I) {
    auto It =
        Delivers.find({Ts[I].Chunk.index(), Topo.link(Ts[I].Link).Src.index()});
    if (It != Delivers.end())
      St.Parent[I] = int(It->second);
  }
  std::map<std::pair<unsigned, unsigned>, size_t> LaneIndex;
  std::vector<Resource> Res = Topo.resources();
  std::vector<std::vector<size_t>> PortsOf(Topo.links().size());
  for (size_t P = 0; P < Res.size(); ++P)
    for (LinkId L : Res[P].Links)
      PortsOf[L.index()].push_back(P);
  St.Ports.resize(Res.size());
  std::vector<size_t> Order = byStart(Sched);
  for (size_t I : Order) {
    auto [It, New] =
        LaneIndex.insert({{Ts[I].Link.index(), Ts[I].Lane}, St.Lanes.size()});
    if (New)
      St.Lanes.emplace_back();
    std::vector<size_t> &Lane = St.Lanes[It->second];
    if (!Lane.empty())
      St.LanePrev[I] = int(Lane.back());
    Lane.push_back(I);
  }
  // A port serves the data of its links' messages in turn: in the order
  // their data lands (a message's start leads its data by the hop latency
  // of its own link, which differs between the links of a port).
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Ts[A].EndUs < Ts[B].EndUs;
  });
  for (size_t I : Order)
    for (size_t P : PortsOf[Ts[I].Link.index()])
      St.Ports[P].push_back(I);
  return St;
}

bool stage3::mayMerge(const Sketch &S, const Transfer &I, const Transfer &J) {
  return !I.Reduce && !J.Reduce && I.Link == J.Link &&
         mayShareMessage(S, I.Chunk, J.Chunk, J.Link);
}

std::optional<Schedule> stage3::retimeInOrder(const Sketch &S,
                                              const Schedule &Sched,
                                              const std::vector<bool> &JoinPrev,
                                              const std::vector<double> *Key) {
  PhaseScope Phase("retiming the schedule");
  Structure St = analyse(S, Sched);
  Schedule Out = Sched;
  auto &Ts = Out.Transfers;
  const size_t N = Ts.size();
  // Messages: a head and its members, in stage-2 order along each lane.
  std::vector<size_t> Head(N);
  std::vector<std::vector<size_t>> Members(N);
  for (const std::vector<size_t> &Lane : St.Lanes)
    for (size_t I : Lane) {
      int P = St.LanePrev[I];
      Head[I] = P >= 0 && JoinPrev[I] ? Head[P] : I;
      Members[Head[I]].push_back(I);
    }
  // What each message waits for: the messages that bring its chunks, and
  // the one before it on its lane and on each of its ports.
  std::vector<std::vector<size_t>> Succ(N);
  std::vector<unsigned> Preds(N, 0);
  auto Edge = [&](size_t From, size_t To) {
    From = Head[From];
    To = Head[To];
    if (From != To) {
      Succ[From].push_back(To);
      ++Preds[To];
    }
  };
  for (size_t I = 0; I < N; ++I) {
    if (St.Parent[I] >= 0)
      Edge(size_t(St.Parent[I]), I);
    if (St.LanePrev[I] >= 0)
      Edge(size_t(St.LanePrev[I]), I);
  }
  for (const std::vector<size_t> &Port : St.Ports)
    for (size_t K = 1; K < Port.size(); ++K)
      Edge(Port[K - 1], Port[K]);
  // Place messages in a topological order, earliest key first.
  auto KeyOf = [&](size_t H) {
    return Key ? (*Key)[H] : Sched.Transfers[Members[H].back()].StartUs;
  };
  using Item = std::pair<double, size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> Queue;
  for (size_t I = 0; I < N; ++I)
    if (Head[I] == I && Preds[I] == 0)
      Queue.push({KeyOf(I), I});
  std::vector<Resource> Res = S.Topo.resources();
  std::vector<std::vector<size_t>> PortsOf(S.Topo.links().size());
  for (size_t P = 0; P < Res.size(); ++P)
    for (LinkId L : Res[P].Links)
      PortsOf[L.index()].push_back(P);
  const TimeModel TM(S);
  // Per lane: when it has moved its data and posted its last message, and
  // its messages that may still be in flight (landing, FIFO steps).
  struct LaneState {
    double DataFree = 0, Posted = 0;
    std::deque<std::pair<double, unsigned>> InFlight;
  };
  std::vector<double> PortFree(Res.size(), 0.0), Arrive(N, 0.0);
  std::map<std::pair<unsigned, unsigned>, LaneState> Lanes;
  double Makespan = 0;
  size_t Placed = 0;
  while (!Queue.empty()) {
    if (Placed % 1024 == 0)
      checkDeadline();
    size_t G = Queue.top().second;
    Queue.pop();
    const Transfer &First = Ts[G];
    LaneState &Lane = Lanes[{First.Link.index(), First.Lane}];
    const unsigned K = unsigned(Members[G].size());
    const unsigned Steps = TM.stepsOf(K);
    double Post = Lane.Posted;
    for (size_t I : Members[G])
      if (St.Parent[I] >= 0)
        Post = std::max(Post, Arrive[St.Parent[I]]);
    // FIFO room: the oldest messages in flight must land until this one
    // fits with the rest.
    unsigned Held = Steps;
    for (auto It = Lane.InFlight.rbegin(); It != Lane.InFlight.rend(); ++It) {
      Held += It->second;
      if (Held > TM.fifoSteps()) {
        Post = std::max(Post, It->first);
        break;
      }
    }
    double Data = std::max(Post + TM.hopUs(First.Link), Lane.DataFree);
    for (size_t P : PortsOf[First.Link.index()])
      Data = std::max(Data, PortFree[P]);
    double End = Data + TM.dataUs(First.Link, K);
    for (size_t I : Members[G]) {
      Ts[I].StartUs = Data - TM.hopUs(First.Link);
      Ts[I].EndUs = Arrive[I] = End;
    }
    Lane.DataFree = End;
    Lane.Posted = Post;
    Lane.InFlight.push_back({End, Steps});
    if (Lane.InFlight.size() > TM.fifoSteps())
      Lane.InFlight.pop_front();
    for (size_t P : PortsOf[First.Link.index()])
      PortFree[P] = End;
    Makespan = std::max(Makespan, End);
    ++Placed;
    for (size_t Next : Succ[G])
      if (--Preds[Next] == 0)
        Queue.push({KeyOf(Next), Next});
  }
  size_t Messages = 0;
  for (size_t I = 0; I < N; ++I)
    Messages += Head[I] == I;
  if (Placed != Messages)
    return std::nullopt; // the messages wait for each other in a cycle
  Out.MakespanUs = Makespan;
  return Out;
}

std::vector<bool> stage3::greedyJoins(const Sketch &S, const Schedule &Sched) {
  Structure St = analyse(S, Sched);
  const auto &Ts = Sched.Transfers;
  std::vector<bool> Join(Ts.size(), false);
  std::vector<unsigned> Size(Ts.size(), 1);
  for (const std::vector<size_t> &Lane : St.Lanes)
    for (size_t I : Lane) {
      int P = St.LanePrev[I];
      if (P >= 0 && Size[P] < MaxChunksPerMessage &&
          mayMerge(S, Ts[P], Ts[I])) {
        Join[I] = true;
        Size[I] = Size[P] + 1;
      }
    }
  return Join;
}

std::optional<Schedule> tacclc::retime(const Sketch &S, const Schedule &Sched,
                                       const std::vector<bool> &JoinPrev,
                                       const std::vector<double> *Key) {
  auto Out = retimeInOrder(S, Sched, JoinPrev, Key);
  if (Out)
    Out->sortTransfers();
  return Out;
}

Schedule tacclc::mergeGreedily(const Sketch &S, const Schedule &Sched) {
  // Without a `contiguous` class nothing may merge: the list schedule is
  // what retiming it unmerged gives (a second or more on a million
  // transfers, per ordering compared).
  if (std::find(S.ContiguousClasses.begin(), S.ContiguousClasses.end(),
                true) == S.ContiguousClasses.end())
    return Sched;
  auto Merged = retime(S, Sched, greedyJoins(S, Sched));
  return Merged && Merged->MakespanUs < Sched.MakespanUs ? *Merged : Sched;
}
