//===- passes/RoutingBound.cpp - Stage 1: the makespan's load bound -------===//
//
// Every bound here is a load the model's rows must carry: a bucket (a shared
// port, or a link without one) charged w per chunk carries at most T / w
// chunks by time T, so n chunks that only buckets B can deliver need
// T >= n / sum_{b in B} 1 / w_b; likewise n chunks that only links L can
// deliver need T >= n / sum_{l in L} m_l / lane_l on those links' lanes.
// The per-rank pass visits each (chunk, rank that needs it) pair with the
// rank's incoming links and groups the rank's chunks by the links that may
// deliver them; the node pass counts chunks per node once.
//
//===----------------------------------------------------------------------===//
#include "passes/RoutingBound.h"
#include "passes/TimeModel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

using namespace tacclc;
using namespace tacclc::ir;

namespace {

/// Where each link's load goes on one side (receiving or sending): the
/// first shared port of that side holding it, else the link itself; and
/// what one chunk costs there.
struct Buckets {
  std::vector<unsigned> Of;
  std::vector<double> Weight;

  Buckets(const Sketch &S, const TimeModel &TM,
          const std::vector<Resource> &Ports, bool Egress) {
    const unsigned NumLinks = S.Topo.links().size();
    Of.assign(NumLinks, ~0u);
    Weight.resize(NumLinks);
    for (unsigned R = 0; R < Ports.size(); ++R)
      if (Ports[R].Egress == Egress)
        for (LinkId L : Ports[R].Links)
          if (Of[L.index()] == ~0u)
            Of[L.index()] = R;
    for (unsigned L = 0; L < NumLinks; ++L) {
      bool ByPort = Of[L] != ~0u;
      Weight[L] = ByPort ? TM.portLoadUs(LinkId(L))
                         : TM.laneLoadUs(LinkId(L)) /
                               S.Topo.link(LinkId(L)).Multiplicity;
      if (!ByPort)
        Of[L] = Ports.size() + L;
    }
  }
};

/// Per bucket, the cheapest chunk over \p Links.
std::map<unsigned, double> cheapest(const Buckets &B,
                                    llvm::ArrayRef<LinkId> Links) {
  std::map<unsigned, double> Out;
  for (LinkId L : Links) {
    auto [It, New] = Out.try_emplace(B.Of[L.index()], B.Weight[L.index()]);
    if (!New)
      It->second = std::min(It->second, B.Weight[L.index()]);
  }
  return Out;
}

/// Time \p Chunks chunks take through buckets of per-chunk costs \p W.
double fill(double Chunks, const std::map<unsigned, double> &W) {
  double Rate = 0;
  for (const auto &[Bucket, Cost] : W)
    if (Cost > 0)
      Rate += 1 / Cost;
  return Chunks > 0 && Rate > 0 ? Chunks / Rate : 0;
}

/// The bound of one rank's chunks grouped by the set of its incoming links
/// that may deliver them (bit i: the rank's i-th incoming link): the chunks
/// of a set and of its subsets enter over that set's links, whose lanes
/// take at most T m / lane(l) chunks each by time T (the rows T >= lane(l)
/// sum_c x[c,l] / m). With small messages a lane's pace, not the port's
/// wire time, is what fills: a rank whose relay rules bring most chunks in
/// over a few links waits on those links' lanes.
double laneBound(const Sketch &S, const TimeModel &TM,
                 llvm::ArrayRef<LinkId> Links,
                 const std::map<std::vector<uint64_t>, unsigned> &BySet) {
  // Beyond this many sets, each counts its own chunks only.
  constexpr size_t MaxSetsForSubsets = 256;
  const bool Subsets = BySet.size() <= MaxSetsForSubsets;
  double Bound = 0;
  for (const auto &[Set, Count] : BySet) {
    double Chunks = Count;
    if (Subsets)
      for (const auto &[Other, N] : BySet) {
        bool Within = &Other != &Set;
        for (size_t W = 0; Within && W < Set.size(); ++W)
          Within = (Other[W] & ~Set[W]) == 0;
        if (Within)
          Chunks += N;
      }
    double Rate = 0;
    bool FreeLane = false; // a lane that costs nothing bounds nothing
    for (size_t I = 0; I < Links.size(); ++I)
      if (Set[I / 64] >> (I % 64) & 1) {
        double Lane = TM.laneLoadUs(Links[I]);
        FreeLane |= Lane <= 0;
        if (Lane > 0)
          Rate += S.Topo.link(Links[I]).Multiplicity / Lane;
      }
    if (!FreeLane && Rate > 0)
      Bound = std::max(Bound, Chunks / Rate);
  }
  return Bound;
}

/// The receiving side of every rank.
double rankBound(const Sketch &S, const TimeModel &TM, const Buckets &In,
                 const SymmetryGroup &Group,
                 const std::vector<ChunkPaths> &Paths) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  std::vector<std::vector<unsigned>> Needs(Topo.getNumRanks());
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
    for (RankId R : Coll.chunk(ChunkId(C)).Post)
      if (!Coll.isPre(ChunkId(C), R))
        Needs[R.index()].push_back(C);
  double Bound = 0;
  for (unsigned R = 0; R < Topo.getNumRanks(); ++R) {
    llvm::ArrayRef<LinkId> Links = Topo.inLinks(RankId(R));
    std::map<unsigned, double> W = cheapest(In, Links);
    std::map<unsigned, unsigned> Only;
    std::map<std::vector<uint64_t>, unsigned> BySet;
    std::vector<uint64_t> Set((Links.size() + 63) / 64);
    for (unsigned C : Needs[R]) {
      // C's distances are its representative's, moved.
      const ChunkId Ch(C);
      const std::vector<double> &Dist =
          Paths[Group.representative(Ch).index()].Dist;
      std::fill(Set.begin(), Set.end(), 0);
      bool Any = false;
      for (size_t I = 0; I < Links.size(); ++I) {
        LinkId L = Links[I];
        if (!S.mayCarry(Ch, L) ||
            !std::isfinite(
                Dist[Group.representativeRank(Ch, Topo.link(L).Src).index()]))
          continue;
        Set[I / 64] |= uint64_t(1) << (I % 64);
        Any = true;
      }
      if (Any)
        ++BySet[Set];
    }
    // The chunks whose links all load one bucket.
    for (const auto &[Members, N] : BySet) {
      unsigned Found = ~0u;
      bool Several = false;
      for (size_t I = 0; I < Links.size() && !Several; ++I)
        if (Members[I / 64] >> (I % 64) & 1) {
          unsigned B = In.Of[Links[I].index()];
          Several = Found != ~0u && B != Found;
          Found = B;
        }
      if (!Several)
        Only[Found] += N;
    }
    for (const auto &[B, N] : Only)
      Bound = std::max(Bound, N * W[B]);
    Bound = std::max(Bound, fill(Needs[R].size(), W));
    Bound = std::max(Bound, laneBound(S, TM, Links, BySet));
  }
  return Bound;
}

/// Every node's boundary, one way.
double nodeBound(const Sketch &S, const Buckets &Side, bool Out) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  const unsigned NumNodes = Topo.getNumNodes();
  std::vector<std::vector<LinkId>> Crossing(NumNodes);
  for (unsigned L = 0; L < Topo.links().size(); ++L) {
    unsigned From = Topo.nodeOf(Topo.link(LinkId(L)).Src),
             To = Topo.nodeOf(Topo.link(LinkId(L)).Dst);
    if (From != To)
      Crossing[Out ? From : To].push_back(LinkId(L));
  }
  std::vector<unsigned> Chunks(NumNodes, 0);
  std::vector<char> Holds(NumNodes), Needs(NumNodes);
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    const Chunk &Ch = Coll.chunk(ChunkId(C));
    std::fill(Holds.begin(), Holds.end(), 0);
    std::fill(Needs.begin(), Needs.end(), 0);
    unsigned Holding = 0, Needing = 0;
    for (RankId R : Ch.Pre)
      Holding += !std::exchange(Holds[Topo.nodeOf(R)], 1);
    for (RankId R : Ch.Post)
      if (!Coll.isPre(ChunkId(C), R))
        Needing += !std::exchange(Needs[Topo.nodeOf(R)], 1);
    for (unsigned N = 0; N < NumNodes; ++N) {
      bool MustEnter = Needs[N] && !Holds[N];
      // Held in N only, and needed in some other node.
      bool MustLeave =
          Holds[N] && Holding == 1 && Needing > static_cast<unsigned>(Needs[N]);
      Chunks[N] += Out ? MustLeave : MustEnter;
    }
  }
  double Bound = 0;
  for (unsigned N = 0; N < NumNodes; ++N)
    Bound = std::max(Bound, fill(Chunks[N], cheapest(Side, Crossing[N])));
  return Bound;
}

} // namespace

double tacclc::routingLoadBound(const Sketch &S, const SymmetryGroup &Group,
                                const std::vector<ChunkPaths> &Paths) {
  const TimeModel TM(S);
  const std::vector<Resource> Ports = S.Topo.resources();
  Buckets In(S, TM, Ports, /*Egress=*/false), Out(S, TM, Ports, true);
  double Bound = rankBound(S, TM, In, Group, Paths);
  if (S.Topo.getNumNodes() > 1)
    Bound = std::max({Bound, nodeBound(S, In, false), nodeBound(S, Out, true)});
  return Bound;
}
