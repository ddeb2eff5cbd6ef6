//===- codegen/LowerToProgram.cpp - Schedule to TACCL-EF program ----------===//
//
// lowerToProgram() turns a schedule into a program, in these steps:
//   1. the program's header: buffers as the collective defines them
//      (ALLGATHER: input = the rank's own K chunks, output = all R*K
//      chunks); nchunksperloop = the larger buffer's chunk count; which
//      call kinds it serves (ALLGATHER programs also serve in-place calls,
//      see programHeader());
//   2. threadblocks (Threadblocks.cpp): per rank, one tb per used outgoing
//      link (send = peer) followed by one tb per used incoming link (recv =
//      peer), on channel 0; so no two tbs share a (peer, channel,
//      direction). More channels where a link needs more steps than a tb
//      holds, a rank more peers than a channel allows, a link has parallel
//      lanes, or its transfers are split into waves so that buffer slices
//      overlap;
//   3. the local copy input -> output of each chunk its source also needs
//      (ALLGATHER: the rank's own chunks) opens the rank's first send tb;
//   4. transfers: each tb carries its link's transfers in schedule order,
//      which is also the FIFO order MSCCL matches sends and receives by. A
//      chunk lives in the input at its source, in the output where it is
//      wanted, and in scratch (one slot per chunk, in arrival order) at a
//      rank that only relays it; a send reads where the chunk lives on its
//      rank and, away from the source, depends on the receive that
//      delivered it. A reducing transfer sends the sender's accumulated
//      value and the receiver reduces it into its own. With PaceNics, a
//      send through a NIC also waits for the receive that keeps it in the
//      NIC's schedule order (PaceNics.cpp);
//   5. a rank that wants a reduced chunk no other rank contributed to
//      copies its own input;
//   6. relays become receive-copy-send steps (FuseRelays.cpp);
//   7. scratch is renumbered to the slots still used (Scratch.cpp);
//   8. materialise (Materialize.cpp): dependencies beyond the first become
//      nops right before the step; every dependency target gets hasdep=1;
//      the runtime's limits (steps per tb, dependency-target tb ids,
//      threadblocks, XML elements) are checked.
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

namespace {
/// The format's name for collective \p K (the writer spells it per dialect).
tacclrt::CollKind collKind(CollectiveKind K) {
  switch (K) {
  case CollectiveKind::AllGather:
    return tacclrt::CollKind::AllGather;
  case CollectiveKind::AllToAll:
    return tacclrt::CollKind::AllToAll;
  case CollectiveKind::Broadcast:
    return tacclrt::CollKind::Broadcast;
  case CollectiveKind::Scatter:
    return tacclrt::CollKind::Scatter;
  case CollectiveKind::Gather:
    return tacclrt::CollKind::Gather;
  case CollectiveKind::ReduceScatter:
    return tacclrt::CollKind::ReduceScatter;
  case CollectiveKind::Reduce:
    return tacclrt::CollKind::Reduce;
  case CollectiveKind::AllReduce:
    return tacclrt::CollKind::AllReduce;
  }
  return tacclrt::CollKind::Custom;
}

/// Step 1: the program's header, without its ranks.
Program programHeader(const Sketch &S, const CodegenOptions &Opts) {
  const Collective &Coll = S.Coll;
  Program P;
  P.Name = S.Name;
  P.Proto =
      tacclrt::parseProtocol(S.Protocol).value_or(tacclrt::Protocol::Simple);
  P.Coll = collKind(Coll.getKind());
  P.NChunksPerLoop = chunksPerLoop(Coll);
  if (isRooted(Coll.getKind()))
    P.Root = static_cast<int>(Coll.getRoot().index());
  // In place, input and output share memory as NCCL defines. For ALLGATHER
  // and GATHER a rank's input is its own part of the output, for SCATTER its
  // output is its part of the input, for BROADCAST they are one buffer: own
  // chunks are only read (and copied onto themselves), receives write only
  // parts no send still needs, and the inputs of non-root ranks mean
  // nothing. ALLTOALL may receive onto input not yet sent: out-of-place only.
  P.InPlace = Opts.ServeInPlace && Coll.getKind() != CollectiveKind::AllToAll;
  P.OutOfPlace = true;
  return P;
}

/// Where a step of a rank is: (threadblock, logical step).
using StepRef = std::pair<int, int>;

/// Step 3: the local copies of the chunks their source also needs, on the
/// rank's first threadblock; consecutive chunks share one step where they
/// may. Sends of such a chunk read the copy (and wait for it): in place,
/// the copy writes the very input it reads, and an unordered read would
/// race with it. Returns the copy step of each copied chunk.
std::map<unsigned, StepRef> placeLocalCopies(const Collective &Coll,
                                             const CodegenOptions &Opts,
                                             std::vector<RankBuilder> &Ranks) {
  std::map<unsigned, StepRef> CopyAt;
  for (unsigned C = 0; C < Coll.getNumChunks() && !isCombining(Coll.getKind());
       ++C) {
    const Chunk &Ch = Coll.chunk(ChunkId(C));
    if (!Coll.isPost(ChunkId(C), Ch.Source))
      continue;
    RankBuilder &RB = Ranks[Ch.Source.index()];
    if (RB.Tbs.empty())
      reportInternalError("a rank that owns a chunk has no threadblock");
    Step Cpy =
        makeStep(OpType::Copy, Buffer::Input, static_cast<int>(Ch.InputIndex),
                 Buffer::Output, static_cast<int>(Ch.OutputIndex));
    // Consecutive chunks are copied by one step where they can be.
    std::vector<PendingStep> &Tb0 = RB.Steps[0];
    if (Opts.MergeContiguous && !Tb0.empty()) {
      Step &Last = Tb0.back().S;
      if (Last.Type == OpType::Copy && Last.Cnt < int(Opts.MaxMergedChunks) &&
          Last.SrcOff + Last.Cnt == Cpy.SrcOff &&
          Last.DstOff + Last.Cnt == Cpy.DstOff) {
        ++Last.Cnt;
        CopyAt[C] = {0, static_cast<int>(Tb0.size()) - 1};
        continue;
      }
    }
    CopyAt[C] = {0, static_cast<int>(Tb0.size())};
    Tb0.push_back({Cpy, {}});
  }
  return CopyAt;
}

/// Steps 4 and 5: the schedule's transfers as send and receive steps on
/// the threadblocks of their streams, remembering where each chunk arrived
/// and where it is kept on each rank.
class TransferLowering {
public:
  TransferLowering(const Sketch &S, const CodegenOptions &Opts,
                   const ThreadblockLayout &Layout,
                   std::vector<RankBuilder> &Ranks,
                   std::map<unsigned, StepRef> CopyAt)
      : S(S), Coll(S.Coll), Opts(Opts), Layout(Layout), Ranks(Ranks),
        CopyAt(std::move(CopyAt)), ScratchUsed(Ranks.size(), 0) {}

  /// Step 4: every transfer of \p Sch, in schedule order.
  void lowerTransfers(const Schedule &Sch);
  /// Step 5: a rank that wants a reduced chunk no other rank contributed
  /// to (a single rank) copies its own input.
  void copyUncombinedChunks();

private:
  /// Where \p Rank keeps chunk \p C it holds but did not start with: in
  /// its output where it wants the chunk, else in a scratch slot of its
  /// own. Reductions accumulate there too.
  std::pair<Buffer, int> outputOrScratch(ChunkId C, unsigned Rank);
  /// Where \p Rank keeps chunk \p C: its input if it starts with it.
  std::pair<Buffer, int> place(ChunkId C, unsigned Rank);
  /// Whether \p T may share a step with the chunk before it: a copy over a
  /// `contiguous` link class.
  bool mayMerge(const Transfer &T) const;
  /// The (send, receive) threadblocks of transfer \p I of stream (\p Src,
  /// \p Dst): its stream's next slot, in the segment that slot falls in.
  std::pair<int, int> threadblocksOf(size_t I, unsigned Src, unsigned Dst);
  /// Adds the wait that paces send \p Send of transfer \p I (on tb \p STb
  /// of \p Src) through its NIC, unless it waits already.
  void pace(PendingStep &Send, size_t I, unsigned Src, int STb) const;
  /// A transfer of a non-combining collective.
  void lowerCopying(const Transfer &T, size_t I, unsigned Src, unsigned Dst);
  /// A combining collective's transfer: a reducing one sends the sender's
  /// accumulated value (or its own input, if nothing arrived yet) and the
  /// receiver reduces it into its accumulator (rrc); a copying one spreads
  /// a finished result from output to output.
  void lowerCombining(const Transfer &T, size_t I, unsigned Src, unsigned Dst);

  const Sketch &S;
  const Collective &Coll;
  const CodegenOptions &Opts;
  const ThreadblockLayout &Layout;
  std::vector<RankBuilder> &Ranks;
  /// The local copy step of each chunk its source copies (step 3).
  std::map<unsigned, StepRef> CopyAt;
  /// Each transfer's pacing wait (empty: no pacing), and the receive step
  /// each transfer lowered so far became.
  std::vector<NicPace> Pace;
  std::vector<StepRef> RecvOf;
  /// Transfers of each stream lowered so far.
  std::map<StreamKey, unsigned> Ordinal;
  /// (chunk, rank) -> the receive that delivered the chunk there.
  std::map<std::pair<unsigned, unsigned>, StepRef> ArrivedAt;
  /// (chunk, rank) -> the step that last wrote the rank's accumulator.
  std::map<std::pair<unsigned, unsigned>, StepRef> AccWriter;
  /// Scratch slots per rank, and (chunk, rank) -> slot.
  std::vector<unsigned> ScratchUsed;
  std::map<std::pair<unsigned, unsigned>, unsigned> ScratchSlot;
};
} // namespace

std::pair<Buffer, int> TransferLowering::outputOrScratch(ChunkId C,
                                                         unsigned Rank) {
  if (Coll.isPost(C, RankId(Rank)))
    return {Buffer::Output, int(Coll.chunk(C).OutputIndex)};
  auto [It, New] = ScratchSlot.try_emplace({C.index(), Rank}, 0);
  if (New)
    It->second = ScratchUsed[Rank]++;
  return {Buffer::Scratch, int(It->second)};
}

std::pair<Buffer, int> TransferLowering::place(ChunkId C, unsigned Rank) {
  if (Coll.isPre(C, RankId(Rank)))
    return {Buffer::Input, int(Coll.chunk(C).InputIndex)};
  return outputOrScratch(C, Rank);
}

bool TransferLowering::mayMerge(const Transfer &T) const {
  int Class = S.Topo.link(T.Link).Class;
  return Opts.MergeContiguous && !T.Reduce && Class >= 0 &&
         size_t(Class) < S.ContiguousClasses.size() &&
         S.ContiguousClasses[Class];
}

std::pair<int, int> TransferLowering::threadblocksOf(size_t I, unsigned Src,
                                                     unsigned Dst) {
  const unsigned Lane = Layout.Plan.LaneOf[I];
  StreamKey Stream{Src, Dst, Lane};
  unsigned Chan =
      Layout.channel(Src, Dst, Lane, Ordinal[Stream]++ / Layout.Cap.at(Stream));
  return {Ranks[Src].SendTb.at({Dst, Chan}), Ranks[Dst].RecvTb.at({Src, Chan})};
}

void TransferLowering::pace(PendingStep &Send, size_t I, unsigned Src,
                            int STb) const {
  if (Pace.empty() || Pace[I].Recv < 0)
    return;
  const StepRef R = RecvOf[size_t(Pace[I].Recv)];
  // (Program order covers a wait inside one threadblock.)
  if (R.first < 0 || R.first == STb)
    return;
  const RankBuilder &RB = Ranks[Src];
  for (const auto &[Tb, Idx] : Send.Deps)
    if (RB.Steps[Tb][Idx].Time > Pace[I].After + 1e-9)
      return;
  Send.Deps.push_back(R);
}

void TransferLowering::lowerCopying(const Transfer &T, size_t I, unsigned Src,
                                    unsigned Dst) {
  bool AtSource = Coll.isPre(T.Chunk, RankId(Src));
  auto [SrcBuf, SrcOff] = place(T.Chunk, Src);
  auto [DstBuf, DstOff] = place(T.Chunk, Dst);
  auto Copied = CopyAt.find(T.Chunk.index());
  bool FromCopy = AtSource && Copied != CopyAt.end();
  if (FromCopy) {
    SrcBuf = Buffer::Output;
    SrcOff = int(Coll.chunk(T.Chunk).OutputIndex);
  }

  PendingStep Send;
  Send.S = makeStep(OpType::Send, SrcBuf, SrcOff, DstBuf, DstOff);
  Send.Time = T.StartUs;

  if (!AtSource) {
    auto It = ArrivedAt.find({T.Chunk.index(), Src});
    if (It == ArrivedAt.end())
      reportInternalError(
          fmt::format("chunk {} is sent from rank {} before it arrives there",
                      T.Chunk.index(), Src));
    Send.Deps.push_back(It->second);
  }
  auto [STb, RTb] = threadblocksOf(I, Src, Dst);
  // (Program order already covers a copy in the same threadblock.)
  if (FromCopy && Copied->second.first != STb)
    Send.Deps.push_back(Copied->second);
  PendingStep Recv;
  Recv.S = makeStep(OpType::Recv, DstBuf, DstOff, DstBuf, DstOff);
  Recv.Time = T.EndUs;
  Recv.Sent = T.StartUs;
  pace(Send, I, Src, STb);
  RecvOf[I] = ArrivedAt[{T.Chunk.index(), Dst}] =
      appendTransfer(Ranks[Src], STb, Send, Ranks[Dst], RTb, Recv, mayMerge(T),
                     Opts.MaxMergedChunks);
}

void TransferLowering::lowerCombining(const Transfer &T, size_t I, unsigned Src,
                                      unsigned Dst) {
  const Chunk &Ch = Coll.chunk(T.Chunk);
  const StepRef NoStep{-1, -1};
  PendingStep Send, Recv;
  StepRef SendDep = NoStep, RecvDep = NoStep;
  if (T.Reduce) {
    auto W = AccWriter.find({T.Chunk.index(), Src});
    auto [SBuf, SOff] = W == AccWriter.end()
                            ? std::pair(Buffer::Input, int(Ch.InputIndex))
                            : outputOrScratch(T.Chunk, Src);
    if (W != AccWriter.end())
      SendDep = W->second;
    auto [ABuf, AOff] = outputOrScratch(T.Chunk, Dst);
    auto Prev = AccWriter.find({T.Chunk.index(), Dst});
    Send.S = makeStep(OpType::Send, SBuf, SOff, ABuf, AOff);
    if (Prev == AccWriter.end()) {
      Recv.S = makeStep(OpType::RecvReduceCopy, Buffer::Input,
                        int(Ch.InputIndex), ABuf, AOff);
    } else {
      Recv.S = makeStep(OpType::RecvReduceCopy, ABuf, AOff, ABuf, AOff);
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
    Send.S = makeStep(OpType::Send, Buffer::Output, Out, Buffer::Output, Out);
    Recv.S = makeStep(OpType::Recv, Buffer::Output, Out, Buffer::Output, Out);
  }
  auto [STb, RTb] = threadblocksOf(I, Src, Dst);
  // (Program order covers a dependency inside one threadblock.)
  if (SendDep != NoStep && SendDep.first != STb)
    Send.Deps.push_back(SendDep);
  if (RecvDep != NoStep && RecvDep.first != RTb)
    Recv.Deps.push_back(RecvDep);
  Send.Time = Recv.Sent = T.StartUs;
  Recv.Time = T.EndUs;
  pace(Send, I, Src, STb);
  RecvOf[I] = (T.Reduce ? AccWriter : ArrivedAt)[{T.Chunk.index(), Dst}] =
      appendTransfer(Ranks[Src], STb, Send, Ranks[Dst], RTb, Recv, mayMerge(T),
                     Opts.MaxMergedChunks);
}

void TransferLowering::lowerTransfers(const Schedule &Sch) {
  const bool Combining = isCombining(Coll.getKind());
  if (Opts.PaceNics)
    Pace = paceNics(S.Topo, Sch);
  RecvOf.assign(Sch.Transfers.size(), StepRef{-1, -1});
  for (size_t I = 0; I < Sch.Transfers.size(); ++I) {
    if (I % 1024 == 0)
      checkDeadline();
    const Transfer &T = Sch.Transfers[I];
    const Link &L = S.Topo.link(T.Link);
    if (Combining)
      lowerCombining(T, I, L.Src.index(), L.Dst.index());
    else
      lowerCopying(T, I, L.Src.index(), L.Dst.index());
  }
}

void TransferLowering::copyUncombinedChunks() {
  for (unsigned C = 0; C < Coll.getNumChunks() && isCombining(Coll.getKind());
       ++C)
    for (RankId R : Coll.chunk(ChunkId(C)).Post) {
      if (AccWriter.count({C, R.index()}) || ArrivedAt.count({C, R.index()}))
        continue;
      RankBuilder &RB = Ranks[R.index()];
      if (RB.Tbs.empty()) {
        RB.Tbs.push_back(makeThreadBlock(-1, -1, 0));
        RB.Steps.emplace_back();
      }
      const Chunk &Ch = Coll.chunk(ChunkId(C));
      RB.Steps[0].push_back(
          {makeStep(OpType::Copy, Buffer::Input, int(Ch.InputIndex),
                    Buffer::Output, int(Ch.OutputIndex)),
           {},
           0});
    }
}

/// Step 6: relays become receive-copy-send steps where the threadblocks
/// allow (a fused reduction into scratch needs no copy: rrs), on stamps
/// settled over all ranks first, except on the ranks \p Opts leaves
/// unfused.
static void fuseAllRelays(std::vector<RankBuilder> &Ranks,
                          const CodegenOptions &Opts) {
  if (!Opts.FuseRelays)
    return;
  PhaseScope Fusing("fusing relays");
  settleTimes(Ranks, Opts.FifoMessages);
  for (unsigned R = 0; R < Ranks.size(); ++R) {
    checkDeadline();
    if (R >= Opts.NoFuseRanks.size() || !Opts.NoFuseRanks[R])
      fuseRelays(Ranks[R], Opts.MaxStepsPerTb, Opts.FifoMessages);
  }
}

std::optional<Program> tacclc::lowerToProgram(const Sketch &S,
                                              const Schedule &Sch,
                                              const CodegenOptions &Opts,
                                              DiagnosticEngine &Diags) {
  PhaseScope Phase("lowering the schedule to a program");
  // 1. The header: buffers, nchunksperloop, call kinds served.
  Program P = programHeader(S, Opts);
  // 2. Threadblocks and channels of every stream.
  std::optional<ThreadblockLayout> Layout =
      layOutThreadblocks(S, Sch, Opts, Diags);
  if (!Layout)
    return std::nullopt;
  P.NChannels = Layout->numChannels();
  std::vector<RankBuilder> Ranks =
      createThreadblocks(*Layout, S.Topo.getNumRanks());
  // 3. Local copies of the chunks their source also needs.
  std::map<unsigned, StepRef> CopyAt = placeLocalCopies(S.Coll, Opts, Ranks);
  // 4. The transfers, in schedule order.
  TransferLowering Transfers(S, Opts, *Layout, Ranks, std::move(CopyAt));
  Transfers.lowerTransfers(Sch);
  // 5. Reduced chunks that only their own rank contributes to.
  Transfers.copyUncombinedChunks();
  // 6. Relay fusion.
  fuseAllRelays(Ranks, Opts);
  // 7. Scratch slots still used.
  const std::vector<unsigned> ScratchChunks = compactAllScratch(Ranks);
  // 8. Nops, positions and hasdep; the runtime's limits.
  if (!materializeProgram(Ranks, ScratchChunks, S, Opts, Diags, P))
    return std::nullopt;
  return P;
}
