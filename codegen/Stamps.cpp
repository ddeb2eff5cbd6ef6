//===- codegen/Stamps.cpp - Settled schedule times of the steps -----------===//
//
// Every pending step carries the schedule time it stands for (a send its
// start, a receive its end, and a receive also when its message was sent).
// Relay fusion (FuseRelays.cpp) orders the steps of merged threadblocks by
// these stamps and is deadlock-free only where no wait of the unfused
// program points to a step stamped later; the lowering bends the schedule's
// times (a message grown back to back lands with its last chunk), so
// settleTimes() raises the stamps over all ranks until that holds, and
// settleRank() does the part within one rank. FuseRelays.cpp's banner gives
// the argument ("Stamps").
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include "support/Deadline.h"

#include <algorithm>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Raises \p V to \p To if that is later; true if it did.
bool raiseTo(double &V, double To) {
  if (To <= V)
    return false;
  V = To;
  return true;
}
} // namespace

bool tacclc::settleRank(RankBuilder &RB) {
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
        if (Peer.Recv != int(R) || Peer.Chan != Tb.Chan)
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
