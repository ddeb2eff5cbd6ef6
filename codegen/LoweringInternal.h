//===- codegen/LoweringInternal.h - Lowering's shared state ----*- C++ -*-===//
//
// Internal to codegen/: the per-rank threadblocks as the lowering builds
// them, before dependencies become positions (LowerToProgram.cpp), so that
// passes such as relay fusion (FuseRelays.cpp) can rearrange steps while
// dependencies still name logical steps; and the lowering's steps that live
// in files of their own (Threadblocks.cpp, Stamps.cpp, Scratch.cpp,
// Materialize.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CODEGEN_LOWERINGINTERNAL_H
#define TACCLC_CODEGEN_LOWERINGINTERNAL_H

#include "codegen/Codegen.h"
#include "ir/Program.h"

#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace tacclc {

/// A step of \p Type moving \p Cnt chunks from \p SrcBuf at \p SrcOff to
/// \p DstBuf at \p DstOff, waiting for nothing.
inline ir::Step makeStep(ir::OpType Type, ir::Buffer SrcBuf, int SrcOff,
                         ir::Buffer DstBuf, int DstOff, int Cnt = 1) {
  ir::Step St;
  St.Type = Type;
  St.SrcBuf = SrcBuf;
  St.SrcOff = SrcOff;
  St.DstBuf = DstBuf;
  St.DstOff = DstOff;
  St.Cnt = Cnt;
  return St;
}

/// An empty threadblock sending to \p Send and receiving from \p Recv
/// (-1: none) on channel \p Chan.
inline ir::ThreadBlock makeThreadBlock(int Send, int Recv, int Chan) {
  ir::ThreadBlock Tb;
  Tb.Send = Send;
  Tb.Recv = Recv;
  Tb.Chan = Chan;
  return Tb;
}

/// A step, the (tb, logical step) pairs it must wait for, and the schedule
/// time it stands for (a send's start, a receive's end; for a receive also
/// when its message was sent).
struct PendingStep {
  ir::Step S;
  std::vector<std::pair<int, int>> Deps;
  double Time = 0;
  double Sent = 0;
};

/// One rank's threadblocks under construction.
struct RankBuilder {
  std::vector<ir::ThreadBlock> Tbs;
  std::vector<std::vector<PendingStep>> Steps;
  /// (peer, channel) -> tb.
  std::map<std::pair<unsigned, unsigned>, int> SendTb, RecvTb;
};

/// The connection each transfer of a schedule travels on: its stream lane
/// (a lane of its link, or of one wave of the link's transfers).
struct StreamPlan {
  /// Stream lane of transfer i of the schedule.
  std::vector<unsigned> LaneOf;
  /// Stream lanes per link (the largest lane + 1, at least 1).
  unsigned Lanes = 1;
};

/// A stream: one connection's transfers in schedule order, named by
/// (source rank, destination rank, stream lane).
using StreamKey = std::tuple<unsigned, unsigned, unsigned>;

/// The threadblocks and channels the lowering gives the streams
/// (Threadblocks.cpp).
struct ThreadblockLayout {
  /// The stream lane of each transfer.
  StreamPlan Plan;
  /// Transfers per stream, and the steps each of its threadblocks (one per
  /// segment) may hold.
  std::map<StreamKey, unsigned> Count, Cap;
  /// Channel group of each link (source rank, destination rank).
  std::map<std::pair<unsigned, unsigned>, unsigned> GroupOf;
  /// Channel groups, and segments of the longest stream.
  unsigned Groups = 1, Segments = 1;

  /// The channel of segment \p Seg of stream (\p Src, \p Dst, \p Lane).
  unsigned channel(unsigned Src, unsigned Dst, unsigned Lane,
                   unsigned Seg) const;
  /// Channels the program uses.
  unsigned numChannels() const { return Groups * Segments * Plan.Lanes; }
};

/// Splits each link's transfers into waves on connections of their own
/// where \p Opts asks for it (SeparateHalves, PipelineWaves), so that the
/// runtime's buffer slices overlap (Streams.cpp).
StreamPlan planStreams(const ir::Sketch &S, const ir::Schedule &Sch,
                       const CodegenOptions &Opts);

/// Lays out the streams of \p Sch on threadblocks and channels (step 2 of
/// the lowering). Reports and returns nothing where the runtime's limits on
/// steps per threadblock or channels are exceeded.
std::optional<ThreadblockLayout> layOutThreadblocks(const ir::Sketch &S,
                                                    const ir::Schedule &Sch,
                                                    const CodegenOptions &Opts,
                                                    DiagnosticEngine &Diags);

/// The empty threadblocks of every rank as \p L lays them out: per rank,
/// the send threadblocks by peer, then the receive threadblocks by peer.
std::vector<RankBuilder> createThreadblocks(const ThreadblockLayout &L,
                                            unsigned NumRanks);

/// Raises the schedule times the steps of every rank carry until no wait of
/// the unfused program points to a step stamped later: a step's
/// dependencies and the step before it in its threadblock, a receive's
/// message (sent no earlier than its send stands, taking as long as the
/// schedule says), the receive of the message \p Fifo before a send on the
/// same connection (room in a FIFO of that many messages). A message grown
/// back to back (MergeSteps.cpp) lands after the schedule forwards its
/// first chunks; fuseRelays() is deadlock-free only on stamps settled this
/// way, with the same \p Fifo (see FuseRelays.cpp). Run before fusion, on
/// all ranks at once (Stamps.cpp).
void settleTimes(std::vector<RankBuilder> &Ranks, unsigned Fifo = 1);

/// One pass over a rank's own waits: raises every step's stamp to those of
/// its dependencies and of the step before it in its threadblock. True if
/// a stamp rose (Stamps.cpp).
bool settleRank(RankBuilder &RB);

/// Fuses relays on one rank: where a receive threadblock (from A) and a send
/// threadblock (to B) on the same channel forward chunks A -> here -> B,
/// they become one threadblock with both peers whose forwarded chunks move
/// in one `rcs` step, unless the merged threadblock would exceed
/// \p MaxSteps. Stamps must be settled with the same \p Fifo. Returns the
/// number of fused steps.
unsigned fuseRelays(RankBuilder &RB, unsigned MaxSteps, unsigned Fifo = 1);

/// The wait that keeps a send in its NIC's schedule order: the
/// receive of transfer Recv of the schedule (-1: none), unless the send
/// already waits for a step the schedule completes after After.
struct NicPace {
  int Recv = -1;
  double After = 0;
};

/// For each transfer of \p Sch, the receive its send waits for so that the
/// sends a rank makes through its NIC go in the schedule's turn
/// (PaceNics.cpp).
std::vector<NicPace> paceNics(const ir::Topology &Topo,
                              const ir::Schedule &Sch);

/// Appends a transfer: \p Send to tb \p STb of \p Sender and \p Recv to tb
/// \p RTb of \p Receiver, or, with \p MayMerge, grows the previous send and
/// receive of that connection by one chunk (cnt + 1, at most \p MaxCount)
/// where the schedule sends the two chunks together (MergeSteps.cpp).
/// Returns the receive's (tb, logical step).
std::pair<int, int> appendTransfer(RankBuilder &Sender, int STb,
                                   const PendingStep &Send,
                                   RankBuilder &Receiver, int RTb,
                                   const PendingStep &Recv, bool MayMerge,
                                   unsigned MaxCount);

/// Turns fused reductions whose result only travels on (rrcs into scratch:
/// nothing reads the slot afterwards) into `rrs`, lets the relays (rcs) of a
/// threadblock whose scratch slot no other step touches share one slot, then
/// renumbers the scratch slots the rank's steps access densely, keeping
/// their order. Returns the renumbering (old slot -> new slot; several old
/// slots may share one); a send's destination, which names the receiver's
/// buffer, is left for the caller to renumber.
std::map<int, int> compactScratch(RankBuilder &RB);

/// compactScratch() on every rank, then the scratch slots every send names
/// on its receiver renumbered to match; a send whose slot the receiver no
/// longer keeps names its own source instead (Scratch.cpp). Returns the
/// scratch chunks each rank uses.
std::vector<unsigned> compactAllScratch(std::vector<RankBuilder> &Ranks);

/// Sets \p P's NGpus and the Id of every rank and threadblock and the S of
/// every step to their positions, as the loader guarantees for a plan it
/// returns (Materialize.cpp).
void numberByPosition(ir::Program &P);

/// Where a step waits on a threadblock whose id is beyond \p MaxTarget
/// (the runtime keeps a dependency's threadblock in a byte), renumbers
/// \p Tbs (one rank's) so that the threadblocks steps wait on come first,
/// each group in its old order, and their steps' dependencies with them;
/// otherwise leaves them. Returns how many threadblocks are waited on: the
/// limit is met afterwards exactly when that is at most \p MaxTarget + 1.
/// (Map threadblock ids taken before, as RankBuilder's, go stale.)
unsigned putDependencyTargetsFirst(std::vector<ir::ThreadBlock> &Tbs,
                                   unsigned MaxTarget);

/// Turns the ranks' steps into \p P's threadblocks (Materialize.cpp):
/// dependencies beyond a step's last become nops right before it, logical
/// steps become positions, every dependency target gets hasdep, and the
/// runtime's limits are checked (reported; false if one is exceeded).
/// \p ScratchChunks gives each rank's scratch buffer.
bool materializeProgram(std::vector<RankBuilder> &Ranks,
                        const std::vector<unsigned> &ScratchChunks,
                        const ir::Sketch &S, const CodegenOptions &Opts,
                        DiagnosticEngine &Diags, ir::Program &P);

} // namespace tacclc

#endif // TACCLC_CODEGEN_LOWERINGINTERNAL_H
