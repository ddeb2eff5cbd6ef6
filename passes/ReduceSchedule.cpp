//===- passes/ReduceSchedule.cpp - Reductions from reversed trees ---------===//
//
// Algorithm (reverseForReduction):
//   1. keep, per (chunk, rank), the transfer that first brings the chunk to
//      the rank in the dual schedule; later arrivals are redundant copies
//      and would count a contribution twice once reversed. The kept
//      transfers of a chunk form a tree rooted at the chunk's source;
//   2. each kept transfer u -> v over [start, end] becomes v -> u over
//      [T - end, T - start] (T = the dual makespan), marked Reduce, on the
//      same lane where the reverse link has it. A rank sent a chunk to its
//      children after receiving it, so reversed it receives its children's
//      partial results before it sends its own. The dual was routed on the
//      transposed topology unless the sketch's is symmetric, so that the
//      reversed transfers use the sketch's own links;
//   3. ALLREDUCE appends the spreading schedule (the dual on the sketch's
//      topology: for a symmetric one the very trees the sums came up)
//      shifted by T.
// Transfers are sorted by (start, link, chunk), the order Schedule promises.
//
//===----------------------------------------------------------------------===//
#include "passes/ReduceSchedule.h"

#include "support/Diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

Collective tacclc::dualCollective(const Collective &C) {
  CollectiveKind Dual = C.getKind() == CollectiveKind::Reduce
                            ? CollectiveKind::Broadcast
                            : CollectiveKind::AllGather;
  if (!isCombining(C.getKind()))
    reportInternalError("dualCollective of a non-combining collective");
  return Collective::make(Dual, C.getNumRanks(), C.getChunksPerRank(),
                          C.getRoot());
}

Sketch tacclc::dualSketch(const Sketch &S, bool Transpose) {
  Sketch D = S;
  D.Coll = dualCollective(S.Coll);
  if (Transpose) {
    D.Topo = S.Topo.transposed();
    D.Transposed = !S.Transposed;
  }
  return D;
}

Schedule tacclc::reverseForReduction(const Sketch &S, const Schedule &Dual,
                                     bool UpTransposed,
                                     const Schedule *Spread) {
  const Topology &Topo = S.Topo;
  // 1. First arrivals (Dual.Transfers is sorted by start time; compare end
  //    times so that a later-starting but earlier-finishing copy wins).
  std::map<std::pair<unsigned, unsigned>, const Transfer *> First;
  // (On the transposed topology link i runs from Dst to Src of link i.)
  auto DstOf = [&](LinkId L) {
    return UpTransposed ? Topo.link(L).Src : Topo.link(L).Dst;
  };
  for (const Transfer &T : Dual.Transfers) {
    unsigned Dst = DstOf(T.Link).index();
    auto [It, New] = First.try_emplace({T.Chunk.index(), Dst}, &T);
    if (!New && T.EndUs < It->second->EndUs)
      It->second = &T;
  }
  // 2. Reverse them.
  Schedule Out;
  const double End = Dual.MakespanUs;
  for (const Transfer &T : Dual.Transfers) {
    const Link &L = Topo.link(T.Link);
    if (First.at({T.Chunk.index(), DstOf(T.Link).index()}) != &T)
      continue;
    std::optional<LinkId> Back =
        UpTransposed ? T.Link : Topo.findLink(L.Dst, L.Src);
    if (!Back)
      reportInternalError(fmt::format("link {} -> {} has no reverse; the "
                                      "dual should have been routed on the "
                                      "transposed topology",
                                      L.Src.index(), L.Dst.index()));
    Transfer R;
    R.Chunk = T.Chunk;
    R.Link = *Back;
    R.StartUs = End - T.EndUs;
    R.EndUs = End - T.StartUs;
    R.Lane = T.Lane < Topo.link(*Back).Multiplicity ? T.Lane : 0;
    R.Reduce = true;
    Out.Transfers.push_back(R);
  }
  Out.MakespanUs = End;
  // 3. ALLREDUCE: then spread the results.
  if (S.Coll.getKind() == CollectiveKind::AllReduce) {
    if (!Spread)
      reportInternalError("an allreduce needs the schedule that spreads it");
    for (Transfer T : Spread->Transfers) {
      T.StartUs += End;
      T.EndUs += End;
      Out.Transfers.push_back(T);
    }
    Out.MakespanUs = End + Spread->MakespanUs;
  }
  Out.sortTransfers();
  return Out;
}
