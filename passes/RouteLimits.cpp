//===- passes/RouteLimits.cpp - Limits the routes decide ------------------===//
//
// Counts, per rank, what every program on some routes needs (RouteLimits.h).
// A step receives at most one message and sends at most one (a relay's
// `rcs`, a reduction's `rrcs` do both), and steps of different chunks share
// nothing unless a link merges them (`contiguous`). So per chunk a rank
// needs at least max(arrivals, sends) steps:
//   - a copying collective: a transfer per link of the chunk's route;
//   - a combining one, routed as its dual: each rank whose only route in
//     is from its parent sends the parent its partial sum, and a rank with
//     any route in sends once; so a rank receives one partial per such
//     child and sends at most one. The k partials from k children arrive
//     in k threadblocks, of which k - 1 must be waited on;
//   - an ALLREDUCE then spreads each sum: a transfer per link of the
//     spread's route, or, before it is routed, one arrival at every rank
//     but the root and one send from the root. A step of the root that
//     receives the last partial may send the sum on (`rrcs`); a rank that
//     sent its partial cannot receive the sum in the same step.
// A rank also needs a threadblock per peer it receives from and per peer
// it sends to, two of which may share one. `instances N` multiplies the
// threadblocks, steps and threadblocks waited on by N.
//
//===----------------------------------------------------------------------===//
#include "passes/RouteLimits.h"

#include "llvm/ADT/DenseSet.h"

#include <fmt/format.h>

#include <algorithm>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Per-rank counts of one chunk, reset between chunks.
class ChunkCounts {
public:
  explicit ChunkCounts(unsigned Ranks)
      : In(Ranks, 0), Out(Ranks, 0), Parent(Ranks, 0), Seen(Ranks, false) {}

  std::vector<unsigned> In, Out, Parent;
  /// The ranks touched for this chunk, in first-touch order.
  std::vector<unsigned> Touched;

  void touch(unsigned R) {
    if (!Seen[R]) {
      Seen[R] = true;
      Touched.push_back(R);
    }
  }
  void clear() {
    for (unsigned R : Touched) {
      In[R] = Out[R] = Parent[R] = 0;
      Seen[R] = false;
    }
    Touched.clear();
  }

private:
  std::vector<bool> Seen;
};

/// Counts the needs of every rank, chunk after chunk.
class NeedsCounter {
public:
  NeedsCounter(const Sketch &Original, const Sketch &Routed)
      : Original(Original), Routed(Routed), Ranks(Original.Topo.getNumRanks()),
        Steps(Ranks, 0), SendPeers(Ranks), RecvPeers(Ranks), Counts(Ranks),
        Spread(Ranks) {}

  /// A copying collective's chunk on its route \p Links.
  void copying(const std::vector<LinkId> &Links) {
    countCopies(Routed.Topo, Links, Counts);
    for (unsigned R : Counts.Touched)
      Steps[R] += std::max(Counts.In[R], Counts.Out[R]);
    Counts.clear();
  }

  /// A combining collective's chunk \p C, whose dual route is \p Links;
  /// an ALLREDUCE's chunk spreads on \p SpreadLinks, or (null) as cheaply
  /// as a spread can.
  void combining(unsigned C, const std::vector<LinkId> &Links,
                 const std::vector<LinkId> *SpreadLinks) {
    const Topology &Topo = Routed.Topo;
    const unsigned Root = Routed.Coll.chunk(ChunkId(C)).Source.index();
    for (LinkId L : Links) {
      unsigned U = Topo.link(L).Src.index(), V = Topo.link(L).Dst.index();
      Counts.touch(U);
      Counts.touch(V);
      ++Counts.In[V];
      Counts.Parent[V] = U;
    }
    // Children whose one route in is from their parent: each sends it a
    // partial, on the reverse of that link (Out counts the partials a rank
    // receives).
    for (unsigned V : Counts.Touched)
      if (Counts.In[V] == 1) {
        unsigned P = Counts.Parent[V];
        ++Counts.Out[P];
        SendPeers[V].insert(P);
        RecvPeers[P].insert(V);
      }
    for (unsigned R : Counts.Touched)
      if (Counts.Out[R] > 1 && Counts.Out[R] - 1 > Needs.WaitedThreadblocks) {
        Needs.WaitedThreadblocks = Counts.Out[R] - 1;
        Needs.WaitingRank = R;
        Needs.SummedChunk = C;
        Needs.SummingPeers = Counts.Out[R];
      }
    const bool AllReduce = Original.Coll.getKind() == CollectiveKind::AllReduce;
    // Up: the partials a rank receives, or its one send of its own.
    for (unsigned R : Counts.Touched)
      if (R != Root || !AllReduce)
        Steps[R] += std::max(Counts.Out[R], Counts.In[R] > 0 ? 1u : 0u);
    if (AllReduce) {
      // The root's last partial may arrive in the step that sends the sum.
      const unsigned Up = Counts.Out[Root];
      auto Fused = [&](unsigned Down) {
        return Up + Down - (Up > 0 && Down > 0 ? 1 : 0);
      };
      if (SpreadLinks) {
        countCopies(Original.Topo, *SpreadLinks, Spread);
        Spread.touch(Root);
        for (unsigned R : Spread.Touched) {
          unsigned Down = std::max(Spread.In[R], Spread.Out[R]);
          Steps[R] += R == Root ? Fused(Down) : Down;
        }
        Spread.clear();
      } else if (!hasContiguous() && Ranks > 1) {
        // An arrival at every rank but the root, a send from the root.
        ++EveryRank;
        Steps[Root] += Fused(1) - 1;
      } else {
        Steps[Root] += Up;
      }
    }
    Counts.clear();
  }

  /// The needs counted so far.
  RouteNeeds finish() {
    Needs.WaitedThreadblocks *= Original.Instances;
    for (unsigned R = 0; R < Ranks; ++R) {
      size_t Tbs = std::max(SendPeers[R].size(), RecvPeers[R].size());
      // Each of the program's instances has threadblocks of its own.
      Tbs *= Original.Instances;
      size_t RankSteps = (Steps[R] + EveryRank) * Original.Instances;
      size_t Elements = 1 + size_t(Ranks) + Tbs + RankSteps;
      if (Elements > Needs.XmlElements) {
        Needs.XmlElements = Elements;
        Needs.XmlRank = R;
        Needs.Threadblocks = Tbs;
        Needs.Steps = RankSteps;
      }
    }
    return Needs;
  }

private:
  /// Transfers of one chunk along \p Links of \p Topo: arrivals (In) and
  /// sends (Out) per rank, those of links that may merge left out, and the
  /// peers each rank sends to and receives from.
  void countCopies(const Topology &Topo, const std::vector<LinkId> &Links,
                   ChunkCounts &Into) {
    for (LinkId L : Links) {
      const Link &Ln = Topo.link(L);
      unsigned U = Ln.Src.index(), V = Ln.Dst.index();
      Into.touch(U);
      Into.touch(V);
      SendPeers[U].insert(V);
      RecvPeers[V].insert(U);
      if (mayMerge(Ln))
        continue;
      ++Into.Out[U];
      ++Into.In[V];
    }
  }

  /// Whether transfers on \p L may share a step with other chunks'.
  bool mayMerge(const Link &L) const {
    return L.Class >= 0 &&
           size_t(L.Class) < Original.ContiguousClasses.size() &&
           Original.ContiguousClasses[L.Class];
  }
  bool hasContiguous() const {
    return std::find(Original.ContiguousClasses.begin(),
                     Original.ContiguousClasses.end(),
                     true) != Original.ContiguousClasses.end();
  }

  const Sketch &Original, &Routed;
  const unsigned Ranks;
  RouteNeeds Needs;
  std::vector<size_t> Steps;
  /// Steps every rank needs besides its own count.
  size_t EveryRank = 0;
  std::vector<llvm::DenseSet<unsigned>> SendPeers, RecvPeers;
  ChunkCounts Counts, Spread;
};
} // namespace

RouteNeeds tacclc::routeNeeds(const Sketch &Original, const Sketch &Routed,
                              const Routes &Rt, const Routes *Spread) {
  NeedsCounter Counter(Original, Routed);
  const bool Combining = isCombining(Original.Coll.getKind());
  // The spread's route of each chunk, by chunk.
  std::vector<const std::vector<LinkId> *> SpreadOf(
      Original.Coll.getNumChunks(), nullptr);
  if (Spread)
    for (const ChunkRoute &CR : Spread->Chunks)
      SpreadOf[CR.Chunk.index()] = &CR.Links;
  for (const ChunkRoute &CR : Rt.Chunks) {
    unsigned C = CR.Chunk.index();
    if (!Combining)
      Counter.copying(CR.Links);
    else
      Counter.combining(C, CR.Links, SpreadOf[C]);
  }
  return Counter.finish();
}

bool tacclc::checkRouteLimits(const Sketch &Original, const Sketch &Routed,
                              const Routes &Rt, const Routes *Spread,
                              const RankLimits &Limits,
                              DiagnosticEngine &Diags) {
  RouteNeeds N = routeNeeds(Original, Routed, Rt, Spread);
  bool Ok = true;
  if (N.WaitedThreadblocks > Limits.WaitedThreadblocks) {
    Diags.report(DiagId::LimitExceeded, Original.Loc,
                 fmt::format("on these routes rank {} sums chunk {} from {} "
                             "peers, so {} of its threadblocks must be waited "
                             "on; the runtime can name only {} in a "
                             "dependency (give ranks fewer peers to sum "
                             "from: fewer links, relays or instances)",
                             N.WaitingRank, N.SummedChunk, N.SummingPeers,
                             N.WaitedThreadblocks, Limits.WaitedThreadblocks));
    Ok = false;
  }
  if (N.XmlElements > Limits.XmlElements) {
    Diags.report(DiagId::LimitExceeded, Original.Loc,
                 fmt::format("on these routes rank {} needs at least {} XML "
                             "elements (the algorithm, {} ranks, {} "
                             "threadblocks and {} steps); the MSCCL "
                             "runtime's reader keeps at most {} per rank "
                             "(use fewer chunks, or fewer peers per rank so "
                             "that chunks travel on relays, where one step "
                             "receives and sends)",
                             N.XmlRank, N.XmlElements,
                             Original.Topo.getNumRanks(), N.Threadblocks,
                             N.Steps, Limits.XmlElements));
    Ok = false;
  }
  return Ok;
}
