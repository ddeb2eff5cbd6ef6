//===- passes/Retime.cpp - Stage 3's view of a schedule -------------------===//
//
// Retiming (retimeInOrder): messages (a transfer and those merged into it)
// are placed in a topological order of what they wait for (the messages
// bringing their chunks, the one before them on their lane and on each of
// their ports), earliest key first; each starts when its chunks, its lane
// and its ports are ready and takes alpha plus beta per chunk. A cycle
// means merges that no schedule allows.
//
//===----------------------------------------------------------------------===//
#include "passes/Retime.h"
#include "passes/ExactSchedule.h"

#include "support/Deadline.h"

#include <algorithm>
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
  for (size_t I : byStart(Sched)) {
    auto [It, New] =
        LaneIndex.insert({{Ts[I].Link.index(), Ts[I].Lane}, St.Lanes.size()});
    if (New)
      St.Lanes.emplace_back();
    std::vector<size_t> &Lane = St.Lanes[It->second];
    if (!Lane.empty())
      St.LanePrev[I] = int(Lane.back());
    Lane.push_back(I);
    for (size_t P : PortsOf[Ts[I].Link.index()])
      St.Ports[P].push_back(I);
  }
  return St;
}

bool stage3::mayMerge(const Sketch &S, const Transfer &I, const Transfer &J) {
  return !I.Reduce && !J.Reduce && I.Link == J.Link &&
         mayShareMessage(S, I.Chunk, J.Chunk, J.Link);
}

double stage3::costOf(const Sketch &S, const Transfer &T) {
  return S.Topo.link(T.Link).costUs(S.chunkBytes());
}
double stage3::betaOf(const Sketch &S, const Transfer &T) {
  return S.Topo.link(T.Link).BetaUsPerB * S.chunkBytes();
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
  std::vector<double> PortFree(Res.size(), 0.0), Arrive(N, 0.0);
  std::map<std::pair<unsigned, unsigned>, double> LaneFree;
  double Makespan = 0;
  size_t Placed = 0;
  while (!Queue.empty()) {
    if (Placed % 1024 == 0)
      checkDeadline();
    size_t G = Queue.top().second;
    Queue.pop();
    const Transfer &First = Ts[G];
    double Start = LaneFree[{First.Link.index(), First.Lane}];
    for (size_t P : PortsOf[First.Link.index()])
      Start = std::max(Start, PortFree[P]);
    for (size_t I : Members[G])
      if (St.Parent[I] >= 0)
        Start = std::max(Start, Arrive[St.Parent[I]]);
    double End = Start + costOf(S, First) +
                 betaOf(S, First) * double(Members[G].size() - 1);
    for (size_t I : Members[G]) {
      Ts[I].StartUs = Start;
      Ts[I].EndUs = Arrive[I] = End;
    }
    LaneFree[{First.Link.index(), First.Lane}] = End;
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
  auto Merged = retime(S, Sched, greedyJoins(S, Sched));
  return Merged && Merged->MakespanUs < Sched.MakespanUs ? *Merged : Sched;
}
