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
      R.Cnt != Send.S.Cnt)
    return -1;
  return Send.Deps[0].second;
}

/// A candidate pair of threadblocks: one receiving, one sending.
struct Pair {
  int Recv, Send;
  unsigned Safe, Count; ///< Forwards that may fuse; all forwards.
};

/// A step that waits for another (by dependency), and from when.
struct Waiter {
  int Tb, Idx;
  double Time;
};

/// The steps of a pair merged into one list (step 3), and where each step
/// of the receive (X) and send (Y) threadblocks went.
struct MergedPair {
  std::vector<PendingStep> Steps;
  std::vector<int> PosX, PosY;
  unsigned Fused = 0;
};

/// Relay fusion on one rank, the banner's steps 0 to 4 (fuseRelays()).
class RelayFuser {
public:
  RelayFuser(RankBuilder &RB, unsigned MaxSteps, unsigned Fifo)
      : RB(RB), MaxSteps(MaxSteps), Fifo(std::max(1u, Fifo)),
        NumTbs(static_cast<int>(RB.Tbs.size())) {}

  /// Fuses what the rules allow; returns the number of fused steps.
  unsigned run();

private:
  /// Step 0's result: who waits for each step, and from when.
  void findWaiters();
  /// Whether receive \p I of tb \p R may wait for its forward, send \p J
  /// of tb \p S (step 3's rule).
  bool mayFuse(int R, int I, int S, int J) const;
  /// Step 1: the candidate pairs.
  std::vector<Pair> candidates() const;
  /// Step 2: greedy pairing of \p Cands.
  std::vector<Pair> choosePairs(std::vector<Pair> Cands) const;
  /// Step 3, first half: the forwarded (receive, send) pairs of \p P that
  /// may fuse, as each side's mate in the other list (-1: none).
  void matchForwards(const Pair &P, std::vector<int> &MateOfX,
                     std::vector<int> &MateOfY) const;
  /// Step 3, second half: the two step lists of \p P merged.
  MergedPair interleave(const Pair &P, std::vector<int> MateOfX,
                        std::vector<int> MateOfY) const;
  /// Step 3: merges \p P where that fuses something within the runtime's
  /// limit; returns the steps fused.
  unsigned mergePair(const Pair &P);
  /// Step 4: drops the removed threadblocks, renumbers dependencies.
  void renumber();

  RankBuilder &RB;
  const unsigned MaxSteps, Fifo;
  const int NumTbs;
  std::map<std::pair<int, int>, std::vector<Waiter>> WaitersOf;
  /// NewPos[tb][i] = (new tb, new logical index), in old tb numbering.
  std::vector<std::vector<std::pair<int, int>>> NewPos;
  std::vector<bool> Removed;
};
} // namespace

void RelayFuser::findWaiters() {
  for (int T = 0; T < NumTbs; ++T)
    for (size_t I = 0; I < RB.Steps[T].size(); ++I)
      for (const std::pair<int, int> &D : RB.Steps[T][I].Deps)
        WaitersOf[D].push_back({T, int(I), RB.Steps[T][I].Time});
}

// Fused, the receive stands at the forward's time, so nothing that waits
// for it may stand earlier: neither the message a FIFO's worth later on its
// connection (sent when the schedule sends it) nor another step that
// depends on it (the chunk forwarded to another peer first, a later
// reduction into the same accumulator). Steps of R after I must stand no
// earlier either (with a FIFO of one message they do: they end no earlier
// than the next message is sent). (Reads only R's and S's lists, which
// step 3 merges no earlier than their pair, and times from before any
// merge: merging only moves steps later.)
bool RelayFuser::mayFuse(int R, int I, int S, int J) const {
  const double Eps = 1e-9;
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
}

std::vector<Pair> RelayFuser::candidates() const {
  std::vector<Pair> Cands;
  for (int R = 0; R < NumTbs; ++R) {
    const ThreadBlock &RTb = RB.Tbs[R];
    if (RTb.Recv < 0 || RTb.Send >= 0)
      continue;
    for (int S = 0; S < NumTbs; ++S) {
      const ThreadBlock &STb = RB.Tbs[S];
      if (STb.Send < 0 || STb.Recv >= 0 || STb.Chan != RTb.Chan)
        continue;
      unsigned Safe = 0, N = 0;
      for (size_t J = 0; J < RB.Steps[S].size(); ++J) {
        int I = forwardedFrom(RB.Steps[S][J], R, RB.Steps[R]);
        N += I >= 0;
        Safe += I >= 0 && mayFuse(R, I, S, int(J));
      }
      if (Safe) // a pair none of whose forwards may fuse stays apart
        Cands.push_back({R, S, Safe, N});
    }
  }
  return Cands;
}

std::vector<Pair> RelayFuser::choosePairs(std::vector<Pair> Cands) const {
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
  return Chosen;
}

// Forwarded pairs, kept only while increasing in both lists, and only where
// receiving as late as the forward holds up nothing that stands earlier:
// the next message on the receive connection is sent no earlier, and every
// other step that waits for the receive stands no earlier (mayFuse()).
void RelayFuser::matchForwards(const Pair &P, std::vector<int> &MateOfX,
                               std::vector<int> &MateOfY) const {
  const std::vector<PendingStep> &X = RB.Steps[P.Recv], &Y = RB.Steps[P.Send];
  MateOfX.assign(X.size(), -1);
  MateOfY.assign(Y.size(), -1);
  int LastX = -1;
  for (size_t J = 0; J < Y.size(); ++J) {
    int I = forwardedFrom(Y[J], P.Recv, X);
    if (I >= 0 && !mayFuse(P.Recv, I, P.Send, int(J)))
      continue;
    if (I > LastX) {
      MateOfX[I] = int(J);
      MateOfY[J] = I;
      LastX = I;
    }
  }
}

MergedPair RelayFuser::interleave(const Pair &P, std::vector<int> MateOfX,
                                  std::vector<int> MateOfY) const {
  const std::vector<PendingStep> &X = RB.Steps[P.Recv], &Y = RB.Steps[P.Send];
  MergedPair M;
  M.PosX.resize(X.size());
  M.PosY.resize(Y.size());
  size_t I = 0, J = 0;
  auto TakeX = [&] {
    M.PosX[I] = int(M.Steps.size());
    M.Steps.push_back(X[I++]);
  };
  auto TakeY = [&] {
    M.PosY[J] = int(M.Steps.size());
    M.Steps.push_back(Y[J++]);
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
      M.PosX[I] = M.PosY[J] = int(M.Steps.size());
      M.Steps.push_back(Rcs);
      ++I, ++J, ++M.Fused;
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
  return M;
}

unsigned RelayFuser::mergePair(const Pair &P) {
  std::vector<int> MateOfX, MateOfY;
  matchForwards(P, MateOfX, MateOfY);
  MergedPair M = interleave(P, std::move(MateOfX), std::move(MateOfY));
  // Merged, the two threadblocks' steps wait for each other in schedule
  // order; only a fused step pays for that (see the banner).
  if (!M.Fused || M.Steps.size() > MaxSteps)
    return 0; // nothing fused, or the runtime's limit on steps per tb
  for (size_t K = 0; K < M.PosX.size(); ++K)
    NewPos[P.Recv][K] = {P.Send, M.PosX[K]};
  for (size_t K = 0; K < M.PosY.size(); ++K)
    NewPos[P.Send][K] = {P.Send, M.PosY[K]};
  RB.Steps[P.Send] = std::move(M.Steps);
  RB.Steps[P.Recv].clear();
  RB.Tbs[P.Send].Recv = RB.Tbs[P.Recv].Recv;
  Removed[P.Recv] = true;
  return M.Fused;
}

void RelayFuser::renumber() {
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
}

unsigned RelayFuser::run() {
  // 0. Stamps that no wait inside the rank contradicts.
  while (settleRank(RB)) {
  }
  findWaiters();
  // 1. and 2. Candidates, paired greedily.
  std::vector<Pair> Chosen = choosePairs(candidates());
  if (Chosen.empty())
    return 0;
  // 3. Merge each pair; record where every old step went.
  NewPos.assign(NumTbs, {});
  for (int T = 0; T < NumTbs; ++T)
    for (size_t I = 0; I < RB.Steps[T].size(); ++I)
      NewPos[T].push_back({T, int(I)});
  Removed.assign(NumTbs, false);
  unsigned Fused = 0;
  for (const Pair &P : Chosen)
    Fused += mergePair(P);
  if (!Fused)
    return 0;
  // 4. Renumber threadblocks and dependencies.
  renumber();
  return Fused;
}

unsigned tacclc::fuseRelays(RankBuilder &RB, unsigned MaxSteps, unsigned Fifo) {
  return RelayFuser(RB, MaxSteps, Fifo).run();
}
