//===- codegen/Scratch.cpp - Scratch slots after relay fusion -------------===//
//
// Step 7 of the lowering (LowerToProgram.cpp). The lowering gives every
// chunk a rank holds but neither started with nor wants a scratch slot of
// its own, in arrival order. After relay fusion (FuseRelays.cpp) many of
// those slots are no longer needed: a fused reduction whose result only
// travels on needs no slot (`rrs`), and the relays of one threadblock may
// share one. compactScratch() renumbers one rank's slots densely;
// compactAllScratch() does so on every rank and then renumbers the slots
// that sends name on their receivers.
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include "support/Deadline.h"

#include <algorithm>
#include <map>

using namespace tacclc;
using namespace tacclc::ir;

// readsSrc and writesDst are the format's op table (format/Plan.h): a
// send's destination names the receiver's buffer, not its own.

std::map<int, int> tacclc::compactScratch(RankBuilder &RB) {
  // A scratch accumulator is read only by the next reduction into it and by
  // the send of the result; once that send is fused into the last
  // reduction, the value never needs to land.
  for (auto &Steps : RB.Steps)
    for (PendingStep &PS : Steps)
      if (PS.S.Type == OpType::RecvReduceCopySend &&
          PS.S.DstBuf == Buffer::Scratch) {
        PS.S.Type = OpType::RecvReduceSend;
        PS.S.DstBuf = PS.S.SrcBuf;
        PS.S.DstOff = PS.S.SrcOff;
      }
  // A relayed chunk lands in scratch only because `rcs` stores what it
  // forwards: where no other step touches the slot, the relays of one
  // threadblock share one slot (program order keeps them apart).
  std::map<int, unsigned> Uses;
  int Virtual = 0;
  for (auto &Steps : RB.Steps)
    for (PendingStep &PS : Steps)
      for (int K = 0; K < PS.S.Cnt; ++K) {
        if (readsSrc(PS.S.Type) && PS.S.SrcBuf == Buffer::Scratch)
          ++Uses[PS.S.SrcOff + K];
        if (writesDst(PS.S.Type) && PS.S.DstBuf == Buffer::Scratch)
          ++Uses[PS.S.DstOff + K];
        Virtual = std::max({Virtual, PS.S.SrcOff + K + 1, PS.S.DstOff + K + 1});
      }
  std::map<int, int> Moved; // old slot -> shared (virtual) slot
  for (auto &Steps : RB.Steps) {
    unsigned Width = 0;
    for (PendingStep &PS : Steps) {
      if (PS.S.Type != OpType::RecvCopySend || PS.S.DstBuf != Buffer::Scratch)
        continue;
      bool Private = true;
      for (int K = 0; K < PS.S.Cnt; ++K)
        Private = Private && Uses[PS.S.DstOff + K] == 1;
      if (!Private)
        continue;
      for (int K = 0; K < PS.S.Cnt; ++K)
        Moved[PS.S.DstOff + K] = Virtual + K;
      PS.S.SrcBuf = Buffer::Scratch;
      PS.S.SrcOff = PS.S.DstOff = Virtual;
      Width = std::max(Width, unsigned(PS.S.Cnt));
    }
    Virtual += int(Width);
  }
  // Keep the slots' order (slots are numbered in arrival order).
  std::map<int, int> Slot;
  for (auto &Steps : RB.Steps)
    for (PendingStep &PS : Steps) {
      for (int K = 0; K < PS.S.Cnt; ++K) {
        if (readsSrc(PS.S.Type) && PS.S.SrcBuf == Buffer::Scratch)
          Slot[PS.S.SrcOff + K] = 0;
        if (writesDst(PS.S.Type) && PS.S.DstBuf == Buffer::Scratch)
          Slot[PS.S.DstOff + K] = 0;
      }
    }
  int Next = 0;
  for (auto &[Old, New] : Slot)
    New = Next++;
  for (auto &Steps : RB.Steps)
    for (PendingStep &PS : Steps) {
      if (PS.S.SrcBuf == Buffer::Scratch && Slot.count(PS.S.SrcOff))
        PS.S.SrcOff = Slot.at(PS.S.SrcOff);
      if (PS.S.DstBuf == Buffer::Scratch && writesDst(PS.S.Type))
        PS.S.DstOff = Slot.at(PS.S.DstOff);
    }
  // Senders name the slots their chunks land in by the old numbers.
  for (auto &[Old, Shared] : Moved)
    Slot[Old] = Slot.at(Shared);
  return Slot;
}

std::vector<unsigned>
tacclc::compactAllScratch(std::vector<RankBuilder> &Ranks) {
  const size_t NumRanks = Ranks.size();
  std::vector<std::map<int, int>> NewSlot(NumRanks);
  std::vector<unsigned> ScratchChunks(NumRanks, 0);
  for (size_t R = 0; R < NumRanks; ++R) {
    checkDeadline();
    NewSlot[R] = compactScratch(Ranks[R]);
    for (const auto &[Old, New] : NewSlot[R])
      ScratchChunks[R] = std::max(ScratchChunks[R], unsigned(New) + 1);
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
  return ScratchChunks;
}
