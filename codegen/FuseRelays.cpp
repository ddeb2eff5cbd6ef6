//===- codegen/FuseRelays.cpp - Receive-copy-send for relayed chunks ------===//
//
// Without fusion a relay costs two steps on two threadblocks: a receive
// from A, and a send to B that waits for it. MSCCL's `rcs` does both in one
// step of a threadblock whose receive peer is A and send peer is B; a
// reducing receive (`rrc`) and the send of its result fuse the same way
// into `rrcs`.
// Algorithm, per rank:
//   0. stamps: each step stands at a schedule time (a send at its start, a
//      receive at its end); raise them until none stands earlier than a
//      step of the rank it waits for (a dependency, the step before it in
//      its threadblock); see "Stamps" below;
//   1. candidates: each (receive tb from A, send tb to B) on one channel,
//      counting the sends to B whose only dependency is a receive of that
//      tb (the chunk it delivered), and among them those that step 3's
//      rule lets fuse; a pair with none of the latter is no candidate;
//   2. pair threadblocks greedily, most fusable forwarded chunks first,
//      then most forwarded chunks (ties: lower tb ids); each tb is in at
//      most one pair;
//   3. per pair, keep the forwarded (receive, send) pairs that appear in the
//      same order in both threadblocks (both FIFOs must see their own order)
//      and whose receive may wait for the forward: nothing that waits for
//      the receive stands earlier than the forward starts, neither the
//      message a FIFO's worth later on the receive connection (it is sent
//      no earlier), nor the receives after it, nor any
//      other step that depends on the receive (no other send of the chunk,
//      e.g. to another peer, starts earlier; no later reduction into the
//      same accumulator ends earlier). Then merge the two step lists: a
//      fused pair becomes one rcs step; before it go the steps of either
//      list that must precede it; between fused steps the two lists
//      interleave by schedule time, receives first on ties. A pair left
//      with no fused step stays two threadblocks: merged, its steps would
//      only wait for each other, for nothing in return;
// Why no fusion can deadlock: order every step of every rank by schedule
// time (a send at its start, a receive at its end, receives first on ties).
// Each threadblock runs its steps in that order, every wait (a receive for
// its message, a send for the data it forwards or for room in a FIFO of F
// messages, a dependency) is on a step earlier in it, so running all steps
// in that order never blocks. A fused step stands at its forward's time,
// later than its receive, so everything that waits for the receive must
// stand no earlier than the forward: the message F later on its connection
// (it needs the FIFO's room), the later steps of the receive's own tb, and
// every step that depends on the receive, in other threadblocks too. Step 3
// checks exactly these. F is CodegenOptions::FifoMessages: with 1, the
// argument holds for any runtime FIFO (and later steps of the receive's tb
// end no earlier than the next message is sent); with more, for FIFOs that
// hold that many messages, which the driver's verification (a FIFO of one)
// must confirm, or it lowers again with 1.
// (On equal times, receives and the receiving halves of fused steps go
// first, then the sending halves, then plain sends; transfers take time,
// so nothing a fused step waits for comes later in this order.)
// The case that needs the second half: a chunk received once and forwarded
// to two peers. Fused with its later forward, the receive would hold up
// the earlier one, which depends on it, behind the steps the merged tb
// runs in between; once one of those waits, through a dependency or other
// ranks, for the earlier forward (on DGX-2 allgathers with relays, two
// fused tbs of one rank did), no rank can move.
// Stamps. The argument needs the stamps of all ranks to be such an order:
// every wait of the unfused program on a step stamped no later. The
// schedule's times are, but the lowering bends them: a message grown back
// to back (MergeSteps.cpp) leaves with its first chunk but lands with its
// last, while the schedule forwards the first chunk as soon as that one
// lands. The forward, the receive of it on the next rank, and whatever
// waits for those then stand earlier than they can run, and a merged tb
// that orders such a receive before a send by these stamps can wait for
// itself around the ranks. ALLTOALL on two nodes of four GPUs (quad_alltoall
// in tests/e2e/inputs/two-node-collectives.sketch): 5 sends 0 six chunks
// as one message landing at 45.6 us, and 0 forwards the first to 1 at
// 12.8; 1's tbs receiving from 0 and sending to 4 fused nothing but were
// merged, so 1 received that chunk (13.6) before sending its own six
// chunks to 4 (38.0); 4 and 5 did the same the other way round, and 5's
// six chunks are what 0 waits for: no rank could move. settleTimes(),
// meant to run over all ranks before this pass (LoweringInternal.h),
// raises the stamps until every wait, across ranks too, is on a step
// stamped no later (a receive no earlier than its message's send plus the
// time the schedule gives the message, the next send on a connection no
// earlier than the receive of the message before it), which restores the
// premise. Step 0 is its part within one rank, so that this pass never
// reads a stamp that a wait of the rank contradicts. And a pair that
// fuses nothing stays apart, so that only a fused step makes two
// threadblocks' steps wait for each other.
//   4. the merged tb takes the send tb's place, the receive tb disappears,
//      and every dependency is renumbered; dependencies on an earlier step
//      of the same threadblock are dropped (program order covers them).
// The result is verified with everything else; should a rank's fused
// program not verify (by the above it cannot, on settled stamps), that is
// the lowering's caller's concern (it can lower again without fusion).
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include "support/Deadline.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// The receive step of tb \p RecvTb (in \p Recvs) that a send forwards: the
/// send's only dependency, a plain or reducing receive whose destination
/// the send reads.
int forwardedFrom(const PendingStep &Send, int RecvTb,
                  const std::vector<PendingStep> &Recvs) {
  if (Send.S.Type != OpType::Send || Send.Deps.size() != 1 ||
      Send.Deps[0].first != RecvTb)
    return -1;
  const Step &R = Recvs[Send.Deps[0].second].S;
  if ((R.Type != OpType::Recv && R.Type != OpType::RecvReduceCopy) ||
      R.DstBuf != Send.S.SrcBuf || R.DstOff != Send.S.SrcOff ||
      R.Count != Send.S.Count)
    return -1;
  return Send.Deps[0].second;
}

struct Pair {
  int Recv, Send;
  unsigned Safe, Count; ///< Forwards that may fuse; all forwards.
};
} // namespace

namespace {
/// Raises \p V to \p To if that is later; true if it did.
bool raiseTo(double &V, double To) {
  if (To <= V)
    return false;
  V = To;
  return true;
}

/// One pass of step 0 over a rank's own waits: no step stands earlier than
/// its dependencies or the step before it in its threadblock. True if a
/// stamp rose.
bool settleRank(RankBuilder &RB) {
  bool Changed = false;
  for (std::vector<PendingStep> &Steps : RB.Steps)
    for (size_t I = 0; I < Steps.size(); ++I) {
      if (I)
        Changed |= raiseTo(Steps[I].Time, Steps[I - 1].Time);
      for (auto [DTb, DIdx] : Steps[I].Deps)
        Changed |= raiseTo(Steps[I].Time, RB.Steps[DTb][DIdx].Time);
    }
  return Changed;
}
} // namespace

void tacclc::settleTimes(std::vector<RankBuilder> &Ranks, unsigned Fifo) {
  Fifo = std::max(1u, Fifo);
  // Each message: its send, its receive and how long the schedule lets it
  // take. Before fusion a tb has one peer, so the k-th send of the tb
  // sending R -> D on a channel is the k-th receive of the tb of D
  // receiving from R on it.
  struct Ref {
    unsigned Rank;
    int Tb, Idx;
  };
  struct Message {
    Ref Send, Recv;
    double Takes;
  };
  auto StepAt = [&](const Ref &X) -> PendingStep & {
    return Ranks[X.Rank].Steps[X.Tb][X.Idx];
  };
  std::vector<Message> Msgs;
  std::vector<std::pair<Ref, Ref>> Room; // (next send, receive before it)
  size_t NumSteps = 0;
  for (unsigned R = 0; R < Ranks.size(); ++R)
    for (size_t T = 0; T < Ranks[R].Tbs.size(); ++T) {
      NumSteps += Ranks[R].Steps[T].size();
      const ThreadBlock &Tb = Ranks[R].Tbs[T];
      if (Tb.Send < 0 || size_t(Tb.Send) >= Ranks.size())
        continue;
      const unsigned D = unsigned(Tb.Send);
      for (size_t U = 0; U < Ranks[D].Tbs.size(); ++U) {
        const ThreadBlock &Peer = Ranks[D].Tbs[U];
        if (Peer.Recv != int(R) || Peer.Channel != Tb.Channel)
          continue;
        std::vector<int> Sends, Recvs;
        for (size_t I = 0; I < Ranks[R].Steps[T].size(); ++I)
          if (Ranks[R].Steps[T][I].S.Type == OpType::Send)
            Sends.push_back(int(I));
        for (size_t I = 0; I < Ranks[D].Steps[U].size(); ++I) {
          OpType Ty = Ranks[D].Steps[U][I].S.Type;
          if (Ty == OpType::Recv || Ty == OpType::RecvReduceCopy)
            Recvs.push_back(int(I));
        }
        for (size_t K = 0; K < std::min(Sends.size(), Recvs.size()); ++K) {
          Ref Sd{R, int(T), Sends[K]}, Rv{D, int(U), Recvs[K]};
          Msgs.push_back({Sd, Rv, StepAt(Rv).Time - StepAt(Rv).Sent});
          if (K >= Fifo)
            Room.push_back({Sd, Ref{D, int(U), Recvs[K - Fifo]}});
        }
      }
    }
  // Every wait of the unfused program goes to a step that runs earlier, so
  // the longest chain of waits has at most NumSteps links (the cap only
  // guards against a lowering that could not run anyway).
  bool Changed = true;
  for (size_t Pass = 0; Changed && Pass <= NumSteps; ++Pass) {
    checkDeadline();
    Changed = false;
    for (RankBuilder &RB : Ranks)
      Changed |= settleRank(RB);
    for (const Message &M : Msgs) {
      PendingStep &Rv = StepAt(M.Recv);
      Changed |= raiseTo(Rv.Sent, StepAt(M.Send).Time);
      Changed |= raiseTo(Rv.Time, Rv.Sent + M.Takes);
    }
    for (const auto &[Next, Prev] : Room)
      Changed |= raiseTo(StepAt(Next).Time, StepAt(Prev).Time);
  }
}

unsigned tacclc::fuseRelays(RankBuilder &RB, unsigned MaxSteps, unsigned Fifo) {
  Fifo = std::max(1u, Fifo);
  const int NumTbs = static_cast<int>(RB.Tbs.size());
  // 0. Stamps that no wait inside the rank contradicts.
  while (settleRank(RB)) {
  }
  // Who waits for each step (by dependency), and from when.
  struct Waiter {
    int Tb, Idx;
    double Time;
  };
  std::map<std::pair<int, int>, std::vector<Waiter>> WaitersOf;
  for (int T = 0; T < NumTbs; ++T)
    for (size_t I = 0; I < RB.Steps[T].size(); ++I)
      for (const std::pair<int, int> &D : RB.Steps[T][I].Deps)
        WaitersOf[D].push_back({T, int(I), RB.Steps[T][I].Time});
  // Whether receive I of tb R may wait for its forward, send J of tb S
  // (step 3's rule): fused, the receive stands at the forward's time, so
  // nothing that waits for it may stand earlier: neither the message a
  // FIFO's worth later on its connection (sent when the schedule sends it)
  // nor another step that depends on it (the chunk forwarded to another
  // peer first, a later reduction into the same accumulator). Steps of R
  // after I must stand no earlier either (with a FIFO of one message they
  // do: they end no earlier than the next message is sent). (Reads
  // only R's and S's lists, which step 3 merges no earlier than their pair,
  // and times from before any merge: merging only moves steps later.)
  const double Eps = 1e-9;
  auto MayFuse = [&](int R, int I, int S, int J) {
    const std::vector<PendingStep> &X = RB.Steps[R];
    const double At = RB.Steps[S][J].Time;
    if (size_t(I) + 1 < X.size() && X[I + 1].Time < At - Eps)
      return false;
    if (size_t(I) + Fifo < X.size() && X[I + Fifo].Sent < At - Eps)
      return false;
    auto W = WaitersOf.find({R, I});
    if (W != WaitersOf.end())
      for (const Waiter &D : W->second)
        if (!(D.Tb == S && D.Idx == J) && D.Time < At - Eps)
          return false;
    return true;
  };

  // 1. Candidates.
  std::vector<Pair> Cands;
  for (int R = 0; R < NumTbs; ++R) {
    const ThreadBlock &RTb = RB.Tbs[R];
    if (RTb.Recv < 0 || RTb.Send >= 0)
      continue;
    for (int S = 0; S < NumTbs; ++S) {
      const ThreadBlock &STb = RB.Tbs[S];
      if (STb.Send < 0 || STb.Recv >= 0 || STb.Channel != RTb.Channel)
        continue;
      unsigned Safe = 0, N = 0;
      for (size_t J = 0; J < RB.Steps[S].size(); ++J) {
        int I = forwardedFrom(RB.Steps[S][J], R, RB.Steps[R]);
        N += I >= 0;
        Safe += I >= 0 && MayFuse(R, I, S, int(J));
      }
      if (Safe) // a pair none of whose forwards may fuse stays apart
        Cands.push_back({R, S, Safe, N});
    }
  }
  // 2. Greedy pairing.
  std::stable_sort(
      Cands.begin(), Cands.end(), [](const Pair &A, const Pair &B) {
        return std::make_tuple(-int(A.Safe), -int(A.Count), A.Recv, A.Send) <
               std::make_tuple(-int(B.Safe), -int(B.Count), B.Recv, B.Send);
      });
  std::vector<bool> Used(NumTbs, false);
  std::vector<Pair> Chosen;
  for (const Pair &P : Cands)
    if (!Used[P.Recv] && !Used[P.Send]) {
      Used[P.Recv] = Used[P.Send] = true;
      Chosen.push_back(P);
    }
  if (Chosen.empty())
    return 0;

  // 3. Merge each pair; record where every old step went.
  // NewPos[tb][i] = (new tb, new logical index), in old tb numbering.
  std::vector<std::vector<std::pair<int, int>>> NewPos(NumTbs);
  for (int T = 0; T < NumTbs; ++T)
    for (size_t I = 0; I < RB.Steps[T].size(); ++I)
      NewPos[T].push_back({T, int(I)});
  std::vector<bool> Removed(NumTbs, false);
  unsigned Fused = 0;
  bool Any = false;
  for (const Pair &P : Chosen) {
    const std::vector<PendingStep> &X = RB.Steps[P.Recv], &Y = RB.Steps[P.Send];
    // Forwarded pairs, kept only while increasing in both lists, and only
    // where receiving as late as the forward holds up nothing that stands
    // earlier: the next message on the receive connection is sent no
    // earlier, and every other step that waits for the receive stands no
    // earlier (see above).
    std::vector<int> MateOfX(X.size(), -1), MateOfY(Y.size(), -1);
    int LastX = -1;
    for (size_t J = 0; J < Y.size(); ++J) {
      int I = forwardedFrom(Y[J], P.Recv, X);
      if (I >= 0 && !MayFuse(P.Recv, I, P.Send, int(J)))
        continue;
      if (I > LastX) {
        MateOfX[I] = int(J);
        MateOfY[J] = I;
        LastX = I;
      }
    }
    std::vector<PendingStep> Merged;
    std::vector<int> PosX(X.size()), PosY(Y.size());
    size_t I = 0, J = 0;
    unsigned PairFused = 0;
    auto TakeX = [&] {
      PosX[I] = int(Merged.size());
      Merged.push_back(X[I++]);
    };
    auto TakeY = [&] {
      PosY[J] = int(Merged.size());
      Merged.push_back(Y[J++]);
    };
    // The highest step of X that Y[J] waits for, or -1.
    auto NeedsX = [&](size_t J) {
      int Max = -1;
      for (auto [DTb, DIdx] : Y[J].Deps)
        if (DTb == P.Recv)
          Max = std::max(Max, DIdx);
      return Max;
    };
    while (I < X.size() || J < Y.size()) {
      if (J < Y.size() && (MateOfY[J] < 0 || MateOfY[J] != int(I)) &&
          NeedsX(J) >= int(I)) {
        // Y[J] waits for a receive not yet placed: place X first, giving up
        // a fusion that would have to come later.
        if (MateOfX[I] >= 0) {
          MateOfY[MateOfX[I]] = -1;
          MateOfX[I] = -1;
        }
        TakeX();
        continue;
      }
      if (I < X.size() && J < Y.size() && MateOfX[I] == int(J)) {
        PendingStep Rcs = X[I];
        Rcs.S.Type = Rcs.S.Type == OpType::Recv ? OpType::RecvCopySend
                                                : OpType::RecvReduceCopySend;
        Rcs.Time = Y[J].Time;
        PosX[I] = PosY[J] = int(Merged.size());
        Merged.push_back(Rcs);
        ++I, ++J, ++PairFused;
      } else if (I == X.size() || (J < Y.size() && MateOfX[I] >= 0)) {
        TakeY(); // X waits for its mate further down Y
      } else if (J == Y.size() || MateOfY[J] >= 0) {
        TakeX();
      } else if (Y[J].Time < X[I].Time) { // ties: receive first
        TakeY();
      } else {
        TakeX();
      }
    }
    // Merged, the two threadblocks' steps wait for each other in schedule
    // order; only a fused step pays for that (see the banner).
    if (!PairFused || Merged.size() > MaxSteps)
      continue; // nothing fused, or the runtime's limit on steps per tb
    for (size_t K = 0; K < X.size(); ++K)
      NewPos[P.Recv][K] = {P.Send, PosX[K]};
    for (size_t K = 0; K < Y.size(); ++K)
      NewPos[P.Send][K] = {P.Send, PosY[K]};
    Fused += PairFused;
    RB.Steps[P.Send] = std::move(Merged);
    RB.Steps[P.Recv].clear();
    RB.Tbs[P.Send].Recv = RB.Tbs[P.Recv].Recv;
    Removed[P.Recv] = true;
    Any = true;
  }
  if (!Any)
    return 0;

  // 4. Renumber threadblocks and dependencies.
  std::vector<int> NewId(NumTbs, -1);
  int Next = 0;
  for (int T = 0; T < NumTbs; ++T)
    if (!Removed[T])
      NewId[T] = Next++;
  std::vector<ThreadBlock> Tbs;
  std::vector<std::vector<PendingStep>> Steps;
  for (int T = 0; T < NumTbs; ++T) {
    if (Removed[T])
      continue;
    std::vector<PendingStep> Out;
    for (size_t I = 0; I < RB.Steps[T].size(); ++I) {
      PendingStep PS = RB.Steps[T][I];
      std::vector<std::pair<int, int>> Deps;
      for (auto [DTb, DIdx] : PS.Deps) {
        auto [NTb, NIdx] = NewPos[DTb][DIdx];
        if (NTb == T && NIdx < int(I))
          continue; // earlier in the same threadblock
        Deps.push_back({NewId[NTb], NIdx});
      }
      PS.Deps = std::move(Deps);
      Out.push_back(std::move(PS));
    }
    Tbs.push_back(RB.Tbs[T]);
    Steps.push_back(std::move(Out));
  }
  RB.Tbs = std::move(Tbs);
  RB.Steps = std::move(Steps);
  RB.SendTb.clear();
  RB.RecvTb.clear();
  return Fused;
}

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
      for (unsigned K = 0; K < PS.S.Count; ++K) {
        if (readsSrc(PS.S.Type) && PS.S.SrcBuf == Buffer::Scratch)
          ++Uses[PS.S.SrcOff + int(K)];
        if (writesDst(PS.S.Type) && PS.S.DstBuf == Buffer::Scratch)
          ++Uses[PS.S.DstOff + int(K)];
        Virtual = std::max(
            {Virtual, PS.S.SrcOff + int(K) + 1, PS.S.DstOff + int(K) + 1});
      }
  std::map<int, int> Moved; // old slot -> shared (virtual) slot
  for (auto &Steps : RB.Steps) {
    unsigned Width = 0;
    for (PendingStep &PS : Steps) {
      if (PS.S.Type != OpType::RecvCopySend || PS.S.DstBuf != Buffer::Scratch)
        continue;
      bool Private = true;
      for (unsigned K = 0; K < PS.S.Count; ++K)
        Private = Private && Uses[PS.S.DstOff + int(K)] == 1;
      if (!Private)
        continue;
      for (unsigned K = 0; K < PS.S.Count; ++K)
        Moved[PS.S.DstOff + int(K)] = Virtual + int(K);
      PS.S.SrcBuf = Buffer::Scratch;
      PS.S.SrcOff = PS.S.DstOff = Virtual;
      Width = std::max(Width, PS.S.Count);
    }
    Virtual += int(Width);
  }
  // Keep the slots' order (slots are numbered in arrival order).
  std::map<int, int> Slot;
  for (auto &Steps : RB.Steps)
    for (PendingStep &PS : Steps) {
      for (unsigned K = 0; K < PS.S.Count; ++K) {
        if (readsSrc(PS.S.Type) && PS.S.SrcBuf == Buffer::Scratch)
          Slot[PS.S.SrcOff + int(K)] = 0;
        if (writesDst(PS.S.Type) && PS.S.DstBuf == Buffer::Scratch)
          Slot[PS.S.DstOff + int(K)] = 0;
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
