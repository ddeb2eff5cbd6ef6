//===- passes/ListSchedule.cpp - Greedy list scheduling -------------------===//
//
// Algorithm:
//   1. every route link (c, l) is a job; it becomes ready when chunk c has
//      arrived at l's source (time 0 at pre ranks);
//   2. repeatedly start the ready job with the earliest possible start time
//      max(ready, a free lane of the link (parallel links give several),
//      every shared port the link uses free); ties go to the job with the
//      longest remaining path below it (critical path first), then lower
//      chunk, then lower link; with `sender first`, a chunk relayed over a
//      link to another node waits until the sender's own chunks on that link
//      have started;
//   3. its end time is start + alpha + beta * chunk bytes; the chunk's arrival
//      at the link's destination releases the jobs leaving that rank, and
//      the lane and ports stay busy until then.
// Deterministic by construction: no hashing, total order on ties.
//
//===----------------------------------------------------------------------===//
#include "passes/ListSchedule.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
struct Job {
  ChunkId Chunk;
  LinkId Link;
  double Ready = std::numeric_limits<double>::infinity();
  double Remaining = 0; ///< Longest cost from this link to a leaf, inclusive.
  bool Done = false;
};
} // namespace

Schedule tacclc::scheduleTransfers(const Sketch &S, const Routes &R) {
  const Topology &Topo = S.Topo;
  const double Bytes = S.chunkBytes();
  std::vector<Job> Jobs;
  // Children of each job: jobs of the same chunk leaving its destination.
  std::vector<std::vector<size_t>> Children;
  for (const ChunkRoute &CR : R.Chunks) {
    size_t First = Jobs.size();
    for (LinkId L : CR.Links)
      Jobs.push_back({CR.Chunk, L});
    Children.resize(Jobs.size());
    for (size_t I = First; I < Jobs.size(); ++I) {
      RankId Src = Topo.link(Jobs[I].Link).Src;
      if (S.Coll.isPre(CR.Chunk, Src))
        Jobs[I].Ready = 0;
      for (size_t J = First; J < Jobs.size(); ++J)
        if (Topo.link(Jobs[J].Link).Src == Topo.link(Jobs[I].Link).Dst)
          Children[I].push_back(J);
    }
    // Remaining path lengths, leaves first (links are parent-first).
    for (size_t I = Jobs.size(); I-- > First;) {
      double Below = 0;
      for (size_t C : Children[I])
        Below = std::max(Below, Jobs[C].Remaining);
      Jobs[I].Remaining = Topo.link(Jobs[I].Link).costUs(Bytes) + Below;
    }
  }

  // Lanes per link, shared ports per link, own chunks pending per link.
  std::vector<std::vector<double>> LaneFree;
  for (const Link &L : Topo.links())
    LaneFree.emplace_back(L.Multiplicity, 0.0);
  const std::vector<Resource> Ports = Topo.resources();
  std::vector<double> PortFree(Ports.size(), 0.0);
  std::vector<std::vector<size_t>> PortsOf(Topo.links().size());
  for (size_t P = 0; P < Ports.size(); ++P)
    for (LinkId L : Ports[P].Links)
      PortsOf[L.index()].push_back(P);
  auto IsOwn = [&](const Job &J) {
    return S.Coll.chunk(J.Chunk).Source == Topo.link(J.Link).Src;
  };
  auto CrossesNodes = [&](LinkId L) {
    return Topo.nodeOf(Topo.link(L).Src) != Topo.nodeOf(Topo.link(L).Dst);
  };
  std::vector<unsigned> OwnPending(Topo.links().size(), 0);
  if (S.SenderFirst)
    for (const Job &J : Jobs)
      if (CrossesNodes(J.Link) && IsOwn(J))
        ++OwnPending[J.Link.index()];
  auto EarliestLane = [&](LinkId L) {
    const std::vector<double> &Lanes = LaneFree[L.index()];
    return size_t(std::min_element(Lanes.begin(), Lanes.end()) - Lanes.begin());
  };

  Schedule Out;
  for (size_t Left = Jobs.size(); Left > 0; --Left) {
    size_t Best = Jobs.size();
    double BestStart = 0;
    for (size_t I = 0; I < Jobs.size(); ++I) {
      const Job &J = Jobs[I];
      if (J.Done || J.Ready == std::numeric_limits<double>::infinity())
        continue;
      if (OwnPending[J.Link.index()] > 0 && !IsOwn(J))
        continue;
      double Start =
          std::max(J.Ready, LaneFree[J.Link.index()][EarliestLane(J.Link)]);
      for (size_t P : PortsOf[J.Link.index()])
        Start = std::max(Start, PortFree[P]);
      if (Best == Jobs.size() || Start < BestStart - 1e-12 ||
          (Start <= BestStart + 1e-12 &&
           std::make_tuple(-J.Remaining, J.Chunk.index(), J.Link.index()) <
               std::make_tuple(-Jobs[Best].Remaining, Jobs[Best].Chunk.index(),
                               Jobs[Best].Link.index()))) {
        Best = I;
        BestStart = Start;
      }
    }
    Job &J = Jobs[Best];
    J.Done = true;
    double End = BestStart + Topo.link(J.Link).costUs(Bytes);
    size_t Lane = EarliestLane(J.Link);
    LaneFree[J.Link.index()][Lane] = End;
    for (size_t P : PortsOf[J.Link.index()])
      PortFree[P] = End;
    if (S.SenderFirst && CrossesNodes(J.Link) && IsOwn(J))
      --OwnPending[J.Link.index()];
    for (size_t C : Children[Best])
      Jobs[C].Ready = End;
    Out.Transfers.push_back({J.Chunk, J.Link, BestStart, End, unsigned(Lane)});
    Out.MakespanUs = std::max(Out.MakespanUs, End);
  }
  Out.sortTransfers();
  return Out;
}
