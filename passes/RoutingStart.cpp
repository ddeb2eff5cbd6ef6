//===- passes/RoutingStart.cpp - Stage 1: the routing warm start ----------===//
//
// Algorithm:
//   1. per chunk, Dijkstra from its source gives dist_c and a shortest-path
//      tree; a greedy Steiner tree with link weights raised by the load of
//      earlier chunks on the link and its shared ports gives one that
//      spreads traffic and crosses costly links once; the better set of
//      trees is the warm start and its makespan H bounds T;
//   2. only orbit representatives are searched and kept; the other chunks
//      of an orbit have the representative's trees, moved by the group
//      element, which load the links they map to and are read through
//      the representative (memory: per orbit, not per chunk);
//   3. the makespan's lower bound: the farthest shortest distance, or the
//      loads that ports and links must carry (RoutingBound.h).
//
// Dijkstra settles ranks by (distance, index) from a heap, which is the
// order of a scan for the nearest rank with the lowest index on ties, in
// O(E log V); the Steiner heuristic stops each search at the nearest rank
// it still has to join.
//
//===----------------------------------------------------------------------===//
#include "passes/RoutingStart.h"
#include "passes/RoutingBound.h"
#include "passes/TimeModel.h"

#include "solver/Model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <queue>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Dijkstra from \p From (or, when empty, the pre ranks of \p C) with
/// per-link weights \p Weight; returns distances and a tree (ties: the
/// first link in declaration order). With \p Targets, it stops once every
/// rank as near as the nearest target is settled: the distances of the
/// ranks not settled then are only upper bounds, all beyond that target's.
std::pair<std::vector<double>, std::vector<LinkId>>
dijkstra(const Sketch &S, ChunkId C, const std::vector<double> &Weight,
         const std::vector<bool> &From = {},
         const std::vector<bool> *Targets = nullptr) {
  const Topology &T = S.Topo;
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Dist(T.getNumRanks(), Inf);
  std::vector<LinkId> Parent(T.getNumRanks());
  std::vector<bool> Done(T.getNumRanks(), false);
  if (From.empty())
    for (RankId Pre : S.Coll.chunk(C).Pre)
      Dist[Pre.index()] = 0;
  else
    for (unsigned R = 0; R < From.size(); ++R)
      if (From[R])
        Dist[R] = 0;
  // Ranks are settled by (distance, index), the order a scan for the
  // nearest unsettled rank with the lowest index on ties would give; a heap
  // makes that O(E log V) instead of O(V^2).
  using Entry = std::pair<double, unsigned>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> Heap;
  for (unsigned R = 0; R < T.getNumRanks(); ++R)
    if (std::isfinite(Dist[R]))
      Heap.push({Dist[R], R});
  double Nearest = Inf; // distance of the nearest target settled
  while (!Heap.empty() && Heap.top().first <= Nearest) {
    auto [D, Best] = Heap.top();
    Heap.pop();
    if (Done[Best] || D != Dist[Best])
      continue; // settled, or superseded by a shorter distance
    Done[Best] = true;
    if (Targets && (*Targets)[Best] && Nearest == Inf)
      Nearest = D;
    for (LinkId L : T.outLinks(RankId(Best))) {
      unsigned Dst = T.link(L).Dst.index();
      double Via = Dist[Best] + Weight[L.index()];
      if (!Done[Dst] && Via < Dist[Dst] * (1 - 1e-12)) {
        Dist[Dst] = Via;
        Parent[Dst] = L;
        Heap.push({Via, Dst});
      }
    }
  }
  return {Dist, Parent};
}

/// A tree that reaches every post rank of \p C: repeatedly join the post
/// rank nearest to the tree by its shortest path from the tree (the
/// Takahashi-Matsuyama heuristic for Steiner trees), so a costly link into
/// a node is crossed once and the node is then served by cheaper ones.
std::vector<LinkId> steinerTree(const Sketch &S, ChunkId C,
                                const std::vector<double> &Weight) {
  const Topology &T = S.Topo;
  std::vector<bool> InTree(T.getNumRanks(), false);
  std::vector<LinkId> Parent(T.getNumRanks());
  for (RankId Pre : S.Coll.chunk(C).Pre)
    InTree[Pre.index()] = true;
  // The post ranks not yet in the tree: only the nearest is needed, so each
  // search stops there (the others' distances are then larger than its).
  std::vector<bool> Wanted(T.getNumRanks(), false);
  for (RankId Post : S.Coll.chunk(C).Post)
    Wanted[Post.index()] = !InTree[Post.index()];
  for (;;) {
    auto [Dist, Via] = dijkstra(S, C, Weight, InTree, &Wanted);
    unsigned Best = T.getNumRanks();
    for (RankId Post : S.Coll.chunk(C).Post)
      if (!InTree[Post.index()] && std::isfinite(Dist[Post.index()]) &&
          (Best == T.getNumRanks() || Dist[Post.index()] < Dist[Best]))
        Best = Post.index();
    if (Best == T.getNumRanks())
      return Parent;
    for (unsigned R = Best; !InTree[R]; R = T.link(Via[R]).Src.index()) {
      InTree[R] = true;
      Wanted[R] = false;
      Parent[R] = Via[R];
    }
  }
}

/// Shortest distances of \p C, and a warm-start tree that avoids links and
/// shared ports already loaded by earlier chunks (weight = cost + the load
/// of the link and of each port it uses), so the warm start spreads
/// traffic over parallel paths instead of piling it on one link or NIC.
/// \p Load holds the load of every link so far.
ChunkPaths paths(const Sketch &S, const TimeModel &TM, ChunkId C,
                 const std::vector<double> &Load,
                 const std::vector<Resource> &Ports, bool Spread) {
  const Topology &T = S.Topo;
  std::vector<double> Cost(T.links().size()), Weight(T.links().size());
  std::vector<double> Busy(Load);
  if (Spread)
    for (const Resource &P : Ports) {
      double PortLoad = 0;
      for (LinkId L : P.Links)
        PortLoad += Load[L.index()];
      for (LinkId L : P.Links)
        Busy[L.index()] += PortLoad;
    }
  for (unsigned L = 0; L < T.links().size(); ++L) {
    Cost[L] = S.mayCarry(C, LinkId(L))
                  ? TM.costUs(LinkId(L))
                  : std::numeric_limits<double>::infinity();
    Weight[L] = Cost[L] + (Spread ? Busy[L] : 0.0);
  }
  ChunkPaths P;
  P.Dist = dijkstra(S, C, Cost).first;
  P.Parent = Spread ? steinerTree(S, C, Weight) : dijkstra(S, C, Weight).second;
  // Keep only the tree links that lead to a post rank.
  std::vector<bool> Needed(T.getNumRanks(), false);
  for (RankId Post : S.Coll.chunk(C).Post)
    for (unsigned R = Post.index(); !Needed[R] && P.Parent[R].isValid();
         R = T.link(P.Parent[R]).Src.index())
      Needed[R] = true;
  // Arrival times along the tree, each rank's computed once from its
  // parent's (the ancestors of a needed rank are needed).
  P.TreeTime.assign(T.getNumRanks(), 0.0);
  std::vector<bool> Timed(T.getNumRanks(), false);
  std::vector<unsigned> Path;
  for (unsigned R = 0; R < T.getNumRanks(); ++R) {
    if (!Needed[R])
      continue;
    for (unsigned U = R; !Timed[U] && P.Parent[U].isValid();
         U = T.link(P.Parent[U]).Src.index())
      Path.push_back(U);
    for (; !Path.empty(); Path.pop_back()) {
      unsigned U = Path.back();
      const Link &L = T.link(P.Parent[U]);
      P.TreeTime[U] = P.TreeTime[L.Src.index()] + Cost[P.Parent[U].index()];
      Timed[U] = true;
    }
  }
  for (unsigned R = 0; R < T.getNumRanks(); ++R)
    if (!Needed[R])
      P.Parent[R] = LinkId();
  return P;
}

} // namespace

RoutingStart tacclc::routingStart(const Sketch &S, const SymmetryGroup &Group,
                                  const Deadline &GiveUp) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  const TimeModel TM(S);
  const unsigned NumRanks = Topo.getNumRanks();
  const unsigned NumLinks = Topo.links().size();
  const std::vector<Resource> Ports = Topo.resources();
  PhaseScope Phase("computing the shortest-path warm start");
  RoutingStart Out;
  bool GaveUp = false;
  for (bool Spread : {false, true}) {
    std::vector<ChunkPaths> Try(Coll.getNumChunks());
    // What the trees so far put on every link's lanes and on its ports.
    std::vector<double> Load(NumLinks, 0.0), PortLoadOf(NumLinks, 0.0);
    double TryH = 0;
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      if (!Group.isRepresentative(ChunkId(C)))
        continue;
      checkDeadline();
      if (Spread && GiveUp.hasPassed()) {
        GaveUp = true; // keep the plain trees
        break;
      }
      // A representative's tree; its images for the rest of the orbit (a
      // symmetric warm start) load the links it maps to.
      ChunkPaths &P = Try[C];
      P = paths(S, TM, ChunkId(C), Load, Ports, Spread);
      for (unsigned G = 0; G < Group.size(); ++G)
        for (unsigned R = 0; R < NumRanks; ++R)
          if (P.Parent[R].isValid()) {
            LinkId L = Group.link(G, P.Parent[R]);
            Load[L.index()] += TM.laneLoadUs(L);
            PortLoadOf[L.index()] += TM.portLoadUs(L);
          }
      for (RankId R : Coll.chunk(ChunkId(C)).Post) {
        TryH = std::max(TryH, P.TreeTime[R.index()]);
        Out.LowerBound = std::max(Out.LowerBound, P.Dist[R.index()]);
      }
    }
    if (GaveUp)
      break;
    for (unsigned L = 0; L < NumLinks; ++L)
      TryH = std::max(TryH, Load[L] / Topo.link(LinkId(L)).Multiplicity);
    for (const Resource &P : Ports) {
      double PortLoad = 0;
      for (LinkId L : P.Links)
        PortLoad += PortLoadOf[L.index()];
      TryH = std::max(TryH, PortLoad);
    }
    if (Out.Paths.empty() || TryH < Out.Horizon) {
      Out.Paths = std::move(Try);
      Out.Horizon = TryH;
    }
  }
  Out.LowerBound =
      std::max(Out.LowerBound, routingLoadBound(S, Group, Out.Paths));
  // (An image arrives where its representative does, as early.)
  Out.ArrivalsAtDistance = true;
  for (const ChunkPaths &P : Out.Paths)
    for (unsigned R = 0; R < P.Parent.size(); ++R)
      if (P.Parent[R].isValid() && P.TreeTime[R] > P.Dist[R] * (1 + 1e-9))
        Out.ArrivalsAtDistance = false;
  return Out;
}

uint64_t tacclc::routingStartBytes(const Sketch &S,
                                   const SymmetryGroup &Group) {
  const uint64_t NumChunks = S.Coll.getNumChunks(),
                 NumRanks = S.Topo.getNumRanks();
  return 2 * (NumChunks * sizeof(ChunkPaths) +
              uint64_t(Group.numOrbits()) * NumRanks *
                  (2 * sizeof(double) + sizeof(LinkId)));
}

bool tacclc::usesStartLink(const Sketch &S, const SymmetryGroup &Group,
                           const RoutingStart &Start, ChunkId C, LinkId L) {
  LinkId Rep = Group.representativeLink(C, L);
  return Start.Paths[Group.representative(C).index()]
             .Parent[S.Topo.link(Rep).Dst.index()] == Rep;
}

Routes tacclc::startRoutes(const Sketch &S, const SymmetryGroup &Group,
                           const RoutingStart &Start) {
  const Topology &Topo = S.Topo;
  Routes Out;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const ChunkId Ch(C);
    const ChunkPaths &P = Start.Paths[Group.representative(Ch).index()];
    const unsigned G = Group.via(Ch);
    // The image of every tree link, by its source.
    std::map<unsigned, std::vector<LinkId>> Leaving;
    for (unsigned R = 0; R < P.Parent.size(); ++R)
      if (P.Parent[R].isValid()) {
        LinkId L = Group.link(G, P.Parent[R]);
        Leaving[Topo.link(L).Src.index()].push_back(L);
      }
    ChunkRoute CR;
    CR.Chunk = Ch;
    // Breadth-first from the pre ranks so parents precede children; a
    // rank's links in the order it lists them (by number).
    std::vector<RankId> Queue(S.Coll.chunk(Ch).Pre);
    for (size_t Next = 0; Next < Queue.size(); ++Next) {
      auto It = Leaving.find(Queue[Next].index());
      if (It == Leaving.end())
        continue;
      std::sort(It->second.begin(), It->second.end());
      for (LinkId L : It->second) {
        CR.Links.push_back(L);
        Queue.push_back(Topo.link(L).Dst);
      }
    }
    Out.Chunks.push_back(std::move(CR));
  }
  Out.RelaxedMakespanUs = Start.Horizon;
  Out.SolverStatus = "warm start";
  return Out;
}
