//===- codegen/LowerToProgram.cpp - Schedule to TACCL-EF program ----------===//
//
// Algorithm (non-reducing collectives, out-of-place):
//   1. buffers as the collective defines them (ALLGATHER: input = the rank's
//      own K chunks, output = all R*K chunks); nchunksperloop = the larger
//      buffer's chunk count; a chunk lives in the input at its source, in
//      the output where it is wanted, and in scratch (one slot per chunk, in
//      arrival order) at a rank that only relays it;
//   2. threadblocks: per rank, one tb per used outgoing link (send = peer)
//      followed by one tb per used incoming link (recv = peer), on channel
//      0; so no two tbs share a (peer, channel, direction). More channels
//      where a link needs more steps than a tb holds, a rank more peers
//      than a channel allows, a link has parallel lanes, or its transfers
//      are split into waves so that buffer slices overlap;
//   3. steps: each tb carries its link's transfers in schedule order, which
//      is also the FIFO order MSCCL matches sends and receives by; a send
//      reads where the chunk lives on its rank and, away from the source,
//      depends on the receive that delivered it;
//   4. the local copy input -> output of each chunk its source also needs
//      (ALLGATHER: the rank's own chunks) opens the rank's first send tb;
//   5. dependencies beyond the first become nops right before the step; every
//      dependency target gets hasdep=1;
//   6. limits: steps per tb and dependency-target tb ids are checked;
//   7. ALLGATHER programs also serve in-place calls (see below).
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "codegen/LoweringInternal.h"

#include "support/Deadline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

unsigned tacclc::chunksPerLoop(const Collective &C) {
  switch (C.getKind()) {
  case CollectiveKind::Gather:
    return C.getInputChunks();
  case CollectiveKind::Scatter:
    return C.getOutputChunks();
  default:
    return C.getSizeParts();
  }
}

uint64_t tacclc::runtimeBytes(const Collective &C, uint64_t Bytes) {
  // The larger buffer is a whole number of runtime counts (1 or nRanks).
  return Bytes / (C.getSizeParts() / chunksPerLoop(C));
}

std::optional<Program> tacclc::lowerToProgram(const Sketch &S,
                                              const Schedule &Sch,
                                              const CodegenOptions &Opts,
                                              DiagnosticEngine &Diags) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  const unsigned NumRanks = Topo.getNumRanks();
  PhaseScope Phase("lowering the schedule to a program");

  Program P;
  P.Name = S.Name;
  P.Protocol = S.Protocol;
  P.Collective = std::string(collectiveName(Coll.getKind()));
  P.ChunksPerLoop = chunksPerLoop(Coll);
  if (isRooted(Coll.getKind()))
    P.Root = static_cast<int>(Coll.getRoot().index());
  const bool Combining = isCombining(Coll.getKind());
  // In place, input and output share memory as NCCL defines. For ALLGATHER
  // and GATHER a rank's input is its own part of the output, for SCATTER its
  // output is its part of the input, for BROADCAST they are one buffer: own
  // chunks are only read (and copied onto themselves), receives write only
  // parts no send still needs, and the inputs of non-root ranks mean
  // nothing. ALLTOALL may receive onto input not yet sent: out-of-place only.
  P.InPlace = Opts.ServeInPlace && Coll.getKind() != CollectiveKind::AllToAll;
  P.OutOfPlace = true;

  // 2. Threadblocks, sends first, each side ordered by peer. A link with
  //    more transfers than a threadblock may hold steps is split into
  //    consecutive segments, segment k on channel k at both ends (so the
  //    FIFO of each (peer, channel) still sees one ordered stream). The
  //    rank's first send threadblock also holds its local copies.
  std::vector<unsigned> Copies(NumRanks, 0);
  for (unsigned C = 0; C < Coll.getNumChunks() && !Combining; ++C)
    if (Coll.isPost(ChunkId(C), Coll.chunk(ChunkId(C)).Source))
      ++Copies[Coll.chunk(ChunkId(C)).Source.index()];
  // A stream is one connection's ordered transfers: (source rank,
  // destination, stream lane); planStreams() gives each transfer its lane
  // (a link lane, or a wave of one; Streams.cpp).
  using Key = std::tuple<unsigned, unsigned, unsigned>;
  std::map<Key, unsigned> Count, Cap, Ordinal;
  const StreamPlan Plan = planStreams(S, Sch, Opts);
  const unsigned Lanes = Plan.Lanes;
  for (size_t I = 0; I < Sch.Transfers.size(); ++I) {
    const Link &L = Topo.link(Sch.Transfers[I].Link);
    ++Count[{L.Src.index(), L.Dst.index(), Plan.LaneOf[I]}];
  }
  std::vector<bool> HasFirst(NumRanks, false);
  unsigned Segments = 1;
  for (const auto &[K, N] : Count) {
    unsigned Src = std::get<0>(K);
    unsigned Reserved = HasFirst[Src] ? 0 : Copies[Src];
    HasFirst[Src] = true;
    if (Reserved >= Opts.MaxStepsPerTb) {
      Diags.report(DiagId::LimitExceeded, S.Loc,
                   fmt::format("rank {} copies {} chunks locally; the runtime "
                               "allows {} steps per threadblock (use fewer "
                               "chunks)",
                               Src, Reserved, Opts.MaxStepsPerTb));
      return std::nullopt;
    }
    Cap[K] = Opts.MaxStepsPerTb - Reserved;
    Segments = std::max(Segments, (N + Cap[K] - 1) / Cap[K]);
  }
  // A rank may have at most MaxTbsPerChannel sending (and receiving)
  // threadblocks per channel: links are put in channel groups greedily, each
  // link in the first group where both its ends still have room.
  std::map<std::pair<unsigned, unsigned>, unsigned> GroupOf;
  std::map<std::pair<unsigned, unsigned>, unsigned> SendIn, RecvIn;
  unsigned Groups = 1;
  for (const auto &[K, N] : Count) {
    auto [Src, Dst, Lane] = K;
    if (GroupOf.count({Src, Dst}))
      continue;
    unsigned G = 0;
    while (SendIn[{Src, G}] >= Opts.MaxTbsPerChannel ||
           RecvIn[{Dst, G}] >= Opts.MaxTbsPerChannel)
      ++G;
    ++SendIn[{Src, G}];
    ++RecvIn[{Dst, G}];
    GroupOf[{Src, Dst}] = G;
    Groups = std::max(Groups, G + 1);
  }
  if (Groups * Segments * Lanes > Opts.MaxChannels) {
    Diags.report(DiagId::LimitExceeded, S.Loc,
                 fmt::format("the links need {} channels ({} group(s) of at "
                             "most {} peers x {} segment(s) of {} steps x {} "
                             "parallel link(s)); the runtime allows {} (use "
                             "fewer chunks or peers)",
                             Groups * Segments * Lanes, Groups,
                             Opts.MaxTbsPerChannel, Segments,
                             Opts.MaxStepsPerTb, Lanes, Opts.MaxChannels));
    return std::nullopt;
  }
  P.NumChannels = Groups * Segments * Lanes;
  auto Channel = [&](unsigned Src, unsigned Dst, unsigned Lane, unsigned Seg) {
    return (GroupOf.at({Src, Dst}) * Segments + Seg) * Lanes + Lane;
  };
  std::vector<RankBuilder> Ranks(NumRanks);
  for (const auto &[K, N] : Count) {
    auto [Src, Dst, Lane] = K;
    RankBuilder &RB = Ranks[Src];
    for (unsigned Seg = 0; Seg * Cap[K] < N; ++Seg) {
      unsigned Chan = Channel(Src, Dst, Lane, Seg);
      RB.SendTb[{Dst, Chan}] = RB.Tbs.size();
      RB.Tbs.push_back({static_cast<int>(Dst), -1, Chan, {}});
    }
  }
  // Receive threadblocks, ordered by peer: iterate (destination, source).
  std::map<Key, Key> ByDst;
  for (const auto &[K, N] : Count)
    ByDst[{std::get<1>(K), std::get<0>(K), std::get<2>(K)}] = K;
  for (const auto &[D, K] : ByDst) {
    auto [Src, Dst, Lane] = K;
    RankBuilder &RB = Ranks[Dst];
    for (unsigned Seg = 0; Seg * Cap[K] < Count[K]; ++Seg) {
      unsigned Chan = Channel(Src, Dst, Lane, Seg);
      RB.RecvTb[{Src, Chan}] = RB.Tbs.size();
      RB.Tbs.push_back({-1, static_cast<int>(Src), Chan, {}});
    }
  }
  for (RankBuilder &RB : Ranks)
    RB.Steps.resize(RB.Tbs.size());

  // 4. Local copies of the chunks their source also needs. Sends of such a
  //    chunk read the copy (and wait for it): in place, the copy writes the
  //    very input it reads, and an unordered read would race with it.
  std::map<unsigned, std::pair<int, int>> CopyAt;
  for (unsigned C = 0; C < Coll.getNumChunks() && !Combining; ++C) {
    const Chunk &Ch = Coll.chunk(ChunkId(C));
    if (!Coll.isPost(ChunkId(C), Ch.Source))
      continue;
    RankBuilder &RB = Ranks[Ch.Source.index()];
    if (RB.Tbs.empty())
      reportInternalError("a rank that owns a chunk has no threadblock");
    Step Cpy{OpType::Copy,
             Buffer::Input,
             static_cast<int>(Ch.InputIndex),
             Buffer::Output,
             static_cast<int>(Ch.OutputIndex),
             1};
    // Consecutive chunks are copied by one step where they can be.
    std::vector<PendingStep> &Tb0 = RB.Steps[0];
    if (Opts.MergeContiguous && !Tb0.empty()) {
      Step &Last = Tb0.back().S;
      if (Last.Type == OpType::Copy && Last.Count < Opts.MaxMergedChunks &&
          Last.SrcOff + int(Last.Count) == Cpy.SrcOff &&
          Last.DstOff + int(Last.Count) == Cpy.DstOff) {
        ++Last.Count;
        CopyAt[C] = {0, static_cast<int>(Tb0.size()) - 1};
        continue;
      }
    }
    CopyAt[C] = {0, static_cast<int>(Tb0.size())};
    Tb0.push_back({Cpy, {}});
  }

  // 3. Transfers in schedule order; remember where each chunk arrived and
  //    where it is kept on each rank.
  std::map<std::pair<unsigned, unsigned>, std::pair<int, int>> ArrivedAt;
  std::vector<unsigned> ScratchUsed(NumRanks, 0);
  std::map<std::pair<unsigned, unsigned>, unsigned> ScratchSlot;
  // Where a rank keeps a chunk it holds but did not start with: in its
  // output where it wants the chunk, else in a scratch slot of its own.
  auto OutputOrScratch = [&](ChunkId C,
                             unsigned Rank) -> std::pair<Buffer, int> {
    if (Coll.isPost(C, RankId(Rank)))
      return {Buffer::Output, int(Coll.chunk(C).OutputIndex)};
    auto [It, New] = ScratchSlot.try_emplace({C.index(), Rank}, 0);
    if (New)
      It->second = ScratchUsed[Rank]++;
    return {Buffer::Scratch, int(It->second)};
  };
  auto Place = [&](ChunkId C, unsigned Rank) -> std::pair<Buffer, int> {
    if (Coll.isPre(C, RankId(Rank)))
      return {Buffer::Input, int(Coll.chunk(C).InputIndex)};
    return OutputOrScratch(C, Rank);
  };
  // Reductions: a (chunk, rank) accumulates where OutputOrScratch says;
  // AccWriter is the step that last wrote it.
  std::map<std::pair<unsigned, unsigned>, std::pair<int, int>> AccWriter;
  const auto &AccPlace = OutputOrScratch;
  // Copies over a `contiguous` link class may share a step with the chunk
  // before them.
  auto MayMerge = [&](const Transfer &T) {
    int Class = Topo.link(T.Link).Class;
    return Opts.MergeContiguous && !T.Reduce && Class >= 0 &&
           size_t(Class) < S.ContiguousClasses.size() &&
           S.ContiguousClasses[Class];
  };
  // A combining collective's transfer: a reducing one sends the sender's
  // accumulated value (or its own input, if nothing arrived yet) and the
  // receiver reduces it into its accumulator (rrc); a copying one spreads a
  // finished result from output to output.
  auto lowerCombining = [&](const Transfer &T, size_t I, unsigned Src,
                            unsigned Dst) {
    const Chunk &Ch = Coll.chunk(T.Chunk);
    const std::pair<int, int> NoStep{-1, -1};
    PendingStep Send, Recv;
    std::pair<int, int> SendDep = NoStep, RecvDep = NoStep;
    if (T.Reduce) {
      auto W = AccWriter.find({T.Chunk.index(), Src});
      auto [SBuf, SOff] = W == AccWriter.end()
                              ? std::pair(Buffer::Input, int(Ch.InputIndex))
                              : AccPlace(T.Chunk, Src);
      if (W != AccWriter.end())
        SendDep = W->second;
      auto [ABuf, AOff] = AccPlace(T.Chunk, Dst);
      auto Prev = AccWriter.find({T.Chunk.index(), Dst});
      Send.S = {OpType::Send, SBuf, SOff, ABuf, AOff, 1};
      if (Prev == AccWriter.end()) {
        Recv.S = {OpType::RecvReduceCopy,
                  Buffer::Input,
                  int(Ch.InputIndex),
                  ABuf,
                  AOff,
                  1};
      } else {
        Recv.S = {OpType::RecvReduceCopy, ABuf, AOff, ABuf, AOff, 1};
        RecvDep = Prev->second;
      }
    } else {
      int Out = int(Ch.OutputIndex);
      auto A = ArrivedAt.find({T.Chunk.index(), Src});
      auto W = AccWriter.find({T.Chunk.index(), Src});
      if (A != ArrivedAt.end())
        SendDep = A->second;
      else if (W != AccWriter.end())
        SendDep = W->second;
      else
        reportInternalError(fmt::format("chunk {} is spread from rank {} "
                                        "before it is reduced there",
                                        T.Chunk.index(), Src));
      Send.S = {OpType::Send, Buffer::Output, Out, Buffer::Output, Out, 1};
      Recv.S = {OpType::Recv, Buffer::Output, Out, Buffer::Output, Out, 1};
    }
    Key Stream{Src, Dst, Plan.LaneOf[I]};
    unsigned Chan =
        Channel(Src, Dst, Plan.LaneOf[I], Ordinal[Stream]++ / Cap[Stream]);
    int STb = Ranks[Src].SendTb.at({Dst, Chan});
    int RTb = Ranks[Dst].RecvTb.at({Src, Chan});
    // (Program order covers a dependency inside one threadblock.)
    if (SendDep != NoStep && SendDep.first != STb)
      Send.Deps.push_back(SendDep);
    if (RecvDep != NoStep && RecvDep.first != RTb)
      Recv.Deps.push_back(RecvDep);
    Send.Time = Recv.Sent = T.StartUs;
    Recv.Time = T.EndUs;
    (T.Reduce ? AccWriter : ArrivedAt)[{T.Chunk.index(), Dst}] =
        appendTransfer(Ranks[Src], STb, Send, Ranks[Dst], RTb, Recv,
                       MayMerge(T), Opts.MaxMergedChunks);
  };
  for (size_t I = 0; I < Sch.Transfers.size(); ++I) {
    if (I % 1024 == 0)
      checkDeadline();
    const Transfer &T = Sch.Transfers[I];
    const Link &L = Topo.link(T.Link);
    unsigned Src = L.Src.index(), Dst = L.Dst.index();
    if (Combining) {
      lowerCombining(T, I, Src, Dst);
      continue;
    }
    bool AtSource = Coll.isPre(T.Chunk, L.Src);
    auto [SrcBuf, SrcOff] = Place(T.Chunk, Src);
    auto [DstBuf, DstOff] = Place(T.Chunk, Dst);
    auto Copied = CopyAt.find(T.Chunk.index());
    bool FromCopy = AtSource && Copied != CopyAt.end();
    if (FromCopy) {
      SrcBuf = Buffer::Output;
      SrcOff = int(Coll.chunk(T.Chunk).OutputIndex);
    }

    PendingStep Send;
    Send.S = {OpType::Send, SrcBuf, SrcOff, DstBuf, DstOff, 1};
    Send.Time = T.StartUs;

    if (!AtSource) {
      auto It = ArrivedAt.find({T.Chunk.index(), Src});
      if (It == ArrivedAt.end())
        reportInternalError(
            fmt::format("chunk {} is sent from rank {} before it arrives there",
                        T.Chunk.index(), Src));
      Send.Deps.push_back(It->second);
    }
    Key Stream{Src, Dst, Plan.LaneOf[I]};
    unsigned Chan =
        Channel(Src, Dst, Plan.LaneOf[I], Ordinal[Stream]++ / Cap[Stream]);
    int STb = Ranks[Src].SendTb.at({Dst, Chan});
    // (Program order already covers a copy in the same threadblock.)
    if (FromCopy && Copied->second.first != STb)
      Send.Deps.push_back(Copied->second);
    PendingStep Recv;
    Recv.S = {OpType::Recv, DstBuf, DstOff, DstBuf, DstOff, 1};
    Recv.Time = T.EndUs;
    Recv.Sent = T.StartUs;
    int RTb = Ranks[Dst].RecvTb.at({Src, Chan});
    ArrivedAt[{T.Chunk.index(), Dst}] =
        appendTransfer(Ranks[Src], STb, Send, Ranks[Dst], RTb, Recv,
                       MayMerge(T), Opts.MaxMergedChunks);
  }

  // A rank that wants a reduced chunk no other rank contributed to (a
  // single rank) copies its own input.
  for (unsigned C = 0; C < Coll.getNumChunks() && Combining; ++C)
    for (RankId R : Coll.chunk(ChunkId(C)).Post) {
      if (AccWriter.count({C, R.index()}) || ArrivedAt.count({C, R.index()}))
        continue;
      RankBuilder &RB = Ranks[R.index()];
      if (RB.Tbs.empty()) {
        RB.Tbs.push_back({-1, -1, 0, {}});
        RB.Steps.emplace_back();
      }
      const Chunk &Ch = Coll.chunk(ChunkId(C));
      RB.Steps[0].push_back({{OpType::Copy, Buffer::Input, int(Ch.InputIndex),
                              Buffer::Output, int(Ch.OutputIndex), 1},
                             {},
                             0});
    }

  // 6. Relays become receive-copy-send steps where the threadblocks allow;
  //    a fused reduction into scratch needs no copy (rrs), and scratch is
  //    renumbered to the slots still used.
  if (Opts.FuseRelays) {
    PhaseScope Fusing("fusing relays");
    settleTimes(Ranks, Opts.FifoMessages);
    for (unsigned R = 0; R < NumRanks; ++R) {
      checkDeadline();
      if (R >= Opts.NoFuseRanks.size() || !Opts.NoFuseRanks[R])
        fuseRelays(Ranks[R], Opts.MaxStepsPerTb, Opts.FifoMessages);
    }
  }
  std::vector<std::map<int, int>> NewSlot(NumRanks);
  for (unsigned R = 0; R < NumRanks; ++R) {
    checkDeadline();
    NewSlot[R] = compactScratch(Ranks[R]);
    ScratchUsed[R] = 0;
    for (const auto &[Old, New] : NewSlot[R])
      ScratchUsed[R] = std::max(ScratchUsed[R], unsigned(New) + 1);
  }
  // A send names where the chunk lands on the receiver; a slot the receiver
  // no longer needs (its reduction now forwards without storing) becomes
  // the send's own source.
  for (RankBuilder &RB : Ranks)
    for (size_t Tb = 0; Tb < RB.Tbs.size(); ++Tb)
      for (PendingStep &PS : RB.Steps[Tb]) {
        if (PS.S.Type != OpType::Send || PS.S.DstBuf != Buffer::Scratch)
          continue;
        const auto &Peer = NewSlot[RB.Tbs[Tb].Send];
        auto It = Peer.find(PS.S.DstOff);
        if (It != Peer.end()) {
          PS.S.DstOff = It->second;
        } else {
          PS.S.DstBuf = PS.S.SrcBuf;
          PS.S.DstOff = PS.S.SrcOff;
        }
      }

  // 5. Materialise: nops for extra dependencies, then positions and hasdep.
  // Positions shift when nops are inserted, so map logical -> final indices.
  P.Gpus.resize(NumRanks);
  bool Ok = true;
  for (unsigned R = 0; R < NumRanks; ++R) {
    checkDeadline();
    RankBuilder &RB = Ranks[R];
    std::vector<std::vector<int>> FinalIndex(RB.Tbs.size());
    for (size_t Tb = 0; Tb < RB.Tbs.size(); ++Tb) {
      int Pos = 0;
      for (const PendingStep &PS : RB.Steps[Tb]) {
        Pos += PS.Deps.empty() ? 0 : static_cast<int>(PS.Deps.size()) - 1;
        FinalIndex[Tb].push_back(Pos++);
      }
    }
    for (size_t Tb = 0; Tb < RB.Tbs.size(); ++Tb) {
      std::vector<Step> &Out = RB.Tbs[Tb].Steps;
      for (const PendingStep &PS : RB.Steps[Tb]) {
        for (size_t D = 0; D < PS.Deps.size(); ++D) {
          auto [DepTb, DepLogical] = PS.Deps[D];
          int DepPos = FinalIndex[DepTb][DepLogical];
          if (D + 1 < PS.Deps.size()) {
            Step Nop;
            Nop.DepTb = DepTb;
            Nop.DepStep = DepPos;
            Out.push_back(Nop);
          }
        }
        Step St = PS.S;
        if (!PS.Deps.empty()) {
          St.DepTb = PS.Deps.back().first;
          St.DepStep = FinalIndex[PS.Deps.back().first][PS.Deps.back().second];
        }
        Out.push_back(St);
      }
    }
    // hasdep on every dependency target.
    for (ThreadBlock &TB : RB.Tbs)
      for (const Step &St : TB.Steps)
        if (St.DepTb >= 0) {
          RB.Tbs[St.DepTb].Steps[St.DepStep].HasDep = true;
          if (static_cast<unsigned>(St.DepTb) > Opts.MaxDepTargetTb) {
            Diags.report(DiagId::LimitExceeded, S.Loc,
                         fmt::format("rank {} needs a dependency on "
                                     "threadblock {}; the runtime allows "
                                     "only ids up to {}",
                                     R, St.DepTb, Opts.MaxDepTargetTb));
            Ok = false;
          }
        }
    for (size_t Tb = 0; Tb < RB.Tbs.size(); ++Tb)
      if (RB.Tbs[Tb].Steps.size() > Opts.MaxStepsPerTb) {
        Diags.report(DiagId::LimitExceeded, S.Loc,
                     fmt::format("rank {} threadblock {} needs {} steps; the "
                                 "runtime allows {} per threadblock (use "
                                 "fewer chunks)",
                                 R, Tb, RB.Tbs[Tb].Steps.size(),
                                 Opts.MaxStepsPerTb));
        Ok = false;
      }
    // Threadblocks per rank, and sending / receiving ones per channel.
    std::map<unsigned, unsigned> SendsOn, RecvsOn;
    for (const ThreadBlock &Tb : RB.Tbs) {
      SendsOn[Tb.Channel] += Tb.Send >= 0;
      RecvsOn[Tb.Channel] += Tb.Recv >= 0;
    }
    unsigned Busiest = 0;
    for (const auto &Side : {SendsOn, RecvsOn})
      for (const auto &[Chan, N] : Side)
        Busiest = std::max(Busiest, N);
    if (Ok && (RB.Tbs.size() > Opts.MaxTbsPerRank ||
               Busiest > Opts.MaxTbsPerChannel)) {
      Diags.report(DiagId::LimitExceeded, S.Loc,
                   fmt::format("rank {} needs {} threadblocks, up to {} "
                               "sending or receiving on one channel; the "
                               "runtime allows {} per rank and {} per channel "
                               "(connect fewer peers: use fewer relays or "
                               "links)",
                               R, RB.Tbs.size(), Busiest, Opts.MaxTbsPerRank,
                               Opts.MaxTbsPerChannel));
      Ok = false;
    }
    size_t Nodes = 1 + size_t(NumRanks) + RB.Tbs.size();
    for (const ThreadBlock &Tb : RB.Tbs)
      Nodes += Tb.Steps.size();
    if (Ok && Nodes > Opts.MaxXmlNodesPerRank) {
      Diags.report(DiagId::LimitExceeded, S.Loc,
                   fmt::format("rank {} needs {} XML elements (the algorithm, "
                               "{} ranks, {} threadblocks and their steps); "
                               "the MSCCL runtime's reader keeps at most {} "
                               "per rank (use fewer chunks, channels or "
                               "rings)",
                               R, Nodes, NumRanks, RB.Tbs.size(),
                               Opts.MaxXmlNodesPerRank));
      Ok = false;
    }
    GpuProgram &G = P.Gpus[R];
    G.InputChunks = Coll.getInputChunks();
    G.OutputChunks = Coll.getOutputChunks();
    G.ScratchChunks = ScratchUsed[R];
    G.Tbs = std::move(RB.Tbs);
  }
  if (!Ok)
    return std::nullopt;
  return P;
}
