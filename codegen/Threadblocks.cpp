//===- codegen/Threadblocks.cpp - Threadblocks and channels of the links --===//
//
// Step 2 of the lowering (LowerToProgram.cpp): which threadblocks each rank
// has and on which channels, before any step is placed. Per rank, one
// threadblock per used outgoing stream (send = peer) followed by one per
// used incoming stream (recv = peer), each side ordered by peer; so no two
// threadblocks share a (peer, channel, direction). A stream is one
// connection's ordered transfers (planStreams(), Streams.cpp). Channels:
//   - a stream with more transfers than a threadblock may hold steps is
//     split into consecutive segments, segment k on channel k at both ends
//     (so the FIFO of each (peer, channel) still sees one ordered stream);
//     the rank's first send threadblock also holds its local copies, which
//     leaves that stream fewer steps;
//   - a rank may have at most MaxTbsPerChannel sending (and receiving)
//     threadblocks per channel: links are put in channel groups greedily,
//     each link in the first group where both its ends still have room;
//   - a link's parallel lanes and waves (Streams.cpp) are streams of their
//     own.
// Channel (group g, segment s, lane l) is (g * segments + s) * lanes + l.
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include <fmt/format.h>

#include <algorithm>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Chunks each rank copies locally from its input to its output (those its
/// source also needs; none for a combining collective).
std::vector<unsigned> localCopiesPerRank(const Collective &Coll,
                                         unsigned NumRanks) {
  std::vector<unsigned> Copies(NumRanks, 0);
  for (unsigned C = 0; C < Coll.getNumChunks() && !isCombining(Coll.getKind());
       ++C)
    if (Coll.isPost(ChunkId(C), Coll.chunk(ChunkId(C)).Source))
      ++Copies[Coll.chunk(ChunkId(C)).Source.index()];
  return Copies;
}

/// Sets the steps each threadblock of a stream may hold (the rank's first
/// send stream leaves room for its local copies) and the segments the
/// longest stream needs. Reports and returns false where the local copies
/// alone fill a threadblock.
bool capStreams(ThreadblockLayout &L, const std::vector<unsigned> &Copies,
                const Sketch &S, const CodegenOptions &Opts,
                DiagnosticEngine &Diags) {
  std::vector<bool> HasFirst(Copies.size(), false);
  for (const auto &[K, N] : L.Count) {
    unsigned Src = std::get<0>(K);
    unsigned Reserved = HasFirst[Src] ? 0 : Copies[Src];
    HasFirst[Src] = true;
    if (Reserved >= Opts.MaxStepsPerTb) {
      Diags.report(DiagId::LimitExceeded, S.Loc,
                   fmt::format("rank {} copies {} chunks locally; the runtime "
                               "allows {} steps per threadblock (use fewer "
                               "chunks)",
                               Src, Reserved, Opts.MaxStepsPerTb));
      return false;
    }
    L.Cap[K] = Opts.MaxStepsPerTb - Reserved;
    L.Segments = std::max(L.Segments, (N + L.Cap[K] - 1) / L.Cap[K]);
  }
  return true;
}

/// Puts each link in the first channel group where both its ends still
/// have fewer than MaxTbsPerChannel threadblocks on that side.
void groupLinks(ThreadblockLayout &L, const CodegenOptions &Opts) {
  std::map<std::pair<unsigned, unsigned>, unsigned> SendIn, RecvIn;
  for (const auto &[K, N] : L.Count) {
    auto [Src, Dst, Lane] = K;
    if (L.GroupOf.count({Src, Dst}))
      continue;
    unsigned G = 0;
    while (SendIn[{Src, G}] >= Opts.MaxTbsPerChannel ||
           RecvIn[{Dst, G}] >= Opts.MaxTbsPerChannel)
      ++G;
    ++SendIn[{Src, G}];
    ++RecvIn[{Dst, G}];
    L.GroupOf[{Src, Dst}] = G;
    L.Groups = std::max(L.Groups, G + 1);
  }
}
} // namespace

unsigned ThreadblockLayout::channel(unsigned Src, unsigned Dst, unsigned Lane,
                                    unsigned Seg) const {
  return (GroupOf.at({Src, Dst}) * Segments + Seg) * Plan.Lanes + Lane;
}

std::optional<ThreadblockLayout>
tacclc::layOutThreadblocks(const Sketch &S, const Schedule &Sch,
                           const CodegenOptions &Opts,
                           DiagnosticEngine &Diags) {
  const Topology &Topo = S.Topo;
  ThreadblockLayout L;
  L.Plan = planStreams(S, Sch, Opts);
  for (size_t I = 0; I < Sch.Transfers.size(); ++I) {
    const Link &Ln = Topo.link(Sch.Transfers[I].Link);
    ++L.Count[{Ln.Src.index(), Ln.Dst.index(), L.Plan.LaneOf[I]}];
  }
  if (!capStreams(L, localCopiesPerRank(S.Coll, Topo.getNumRanks()), S, Opts,
                  Diags))
    return std::nullopt;
  groupLinks(L, Opts);
  if (L.numChannels() > Opts.MaxChannels) {
    Diags.report(DiagId::LimitExceeded, S.Loc,
                 fmt::format("the links need {} channels ({} group(s) of at "
                             "most {} peers x {} segment(s) of {} steps x {} "
                             "parallel link(s)); the runtime allows {} (use "
                             "fewer chunks or peers)",
                             L.numChannels(), L.Groups, Opts.MaxTbsPerChannel,
                             L.Segments, Opts.MaxStepsPerTb, L.Plan.Lanes,
                             Opts.MaxChannels));
    return std::nullopt;
  }
  return L;
}

std::vector<RankBuilder> tacclc::createThreadblocks(const ThreadblockLayout &L,
                                                    unsigned NumRanks) {
  std::vector<RankBuilder> Ranks(NumRanks);
  // Send threadblocks, ordered by peer: Count iterates (source, destination).
  for (const auto &[K, N] : L.Count) {
    auto [Src, Dst, Lane] = K;
    RankBuilder &RB = Ranks[Src];
    for (unsigned Seg = 0; Seg * L.Cap.at(K) < N; ++Seg) {
      unsigned Chan = L.channel(Src, Dst, Lane, Seg);
      RB.SendTb[{Dst, Chan}] = RB.Tbs.size();
      RB.Tbs.push_back(makeThreadBlock(static_cast<int>(Dst), -1, int(Chan)));
    }
  }
  // Receive threadblocks, ordered by peer: iterate (destination, source).
  std::map<StreamKey, StreamKey> ByDst;
  for (const auto &[K, N] : L.Count)
    ByDst[{std::get<1>(K), std::get<0>(K), std::get<2>(K)}] = K;
  for (const auto &[D, K] : ByDst) {
    auto [Src, Dst, Lane] = K;
    RankBuilder &RB = Ranks[Dst];
    for (unsigned Seg = 0; Seg * L.Cap.at(K) < L.Count.at(K); ++Seg) {
      unsigned Chan = L.channel(Src, Dst, Lane, Seg);
      RB.RecvTb[{Src, Chan}] = RB.Tbs.size();
      RB.Tbs.push_back(makeThreadBlock(-1, static_cast<int>(Src), int(Chan)));
    }
  }
  for (RankBuilder &RB : Ranks)
    RB.Steps.resize(RB.Tbs.size());
  return Ranks;
}
