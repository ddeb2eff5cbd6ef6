//===- codegen/MergeSteps.cpp - Consecutive chunks in one step ------------===//
//
// A step may move several consecutive chunks at once (cnt > 1): one
// message, one latency, one FIFO slot. The lowering appends every transfer
// through appendTransfer(), which grows the previous send and receive of the
// same connection instead of adding steps when the schedule sends the two
// chunks together:
//   - the link's class is marked `contiguous` in the sketch (the caller
//     says so) and the chunk is a copy, not a partial reduction;
//   - the sender's last step on that threadblock is a plain send and the
//     receiver's last step a plain receive, both of the previous transfer
//     of this connection;
//   - the chunk sits right after the previous ones in every buffer the two
//     steps touch (sender's source, receiver's destination);
//   - either the schedule starts both together (stage 3 decided they share
//     a message; it then waits for the dependencies of both), or the send
//     waits for nothing the previous one did not, beyond later local copies
//     (so neither chunk is held up by the other), and starts no later than
//     the previous transfer lands (a schedule's start is its data's start
//     less the hop latency: the lane moves their data back to back).
// Both ends grow together, since MSCCL pairs sends and receives by order
// and requires equal counts.
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include <algorithm>
#include <optional>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// The dependencies \p Prev must have to also cover \p Next's, or nothing
/// if that would make it wait for more than it does: each of Next's must be
/// one of Prev's, or a later step of the same threadblock when only local
/// copies lie between (copies wait for nothing, so the merged send is not
/// held up; this is how a source's own chunks are sent from their copies).
std::optional<std::vector<std::pair<int, int>>>
mergedDeps(const PendingStep &Next, const PendingStep &Prev,
           const RankBuilder &RB) {
  std::vector<std::pair<int, int>> Deps = Prev.Deps;
  for (const auto &[Tb, Idx] : Next.Deps) {
    auto It = std::find_if(Deps.begin(), Deps.end(),
                           [&](const auto &D) { return D.first == Tb; });
    if (It == Deps.end() || It->second > Idx)
      return std::nullopt;
    for (int K = It->second + 1; K <= Idx; ++K)
      if (RB.Steps[Tb][K].S.Type != OpType::Copy)
        return std::nullopt;
    It->second = Idx;
  }
  return Deps;
}

/// The dependencies of \p Prev and \p Next together: the later step of
/// each threadblock either waits for.
std::vector<std::pair<int, int>> unitedDeps(const PendingStep &Next,
                                            const PendingStep &Prev) {
  std::vector<std::pair<int, int>> Deps = Prev.Deps;
  for (const auto &[Tb, Idx] : Next.Deps) {
    auto It = std::find_if(Deps.begin(), Deps.end(),
                           [&](const auto &D) { return D.first == Tb; });
    if (It == Deps.end())
      Deps.push_back({Tb, Idx});
    else
      It->second = std::max(It->second, Idx);
  }
  return Deps;
}

/// True if \p Next's buffer range continues \p Prev's.
bool continues(Buffer PB, int POff, unsigned PCnt, Buffer NB, int NOff) {
  return PB == NB && POff + int(PCnt) == NOff;
}
} // namespace

std::pair<int, int> tacclc::appendTransfer(RankBuilder &Sender, int STb,
                                           const PendingStep &Send,
                                           RankBuilder &Receiver, int RTb,
                                           const PendingStep &Recv,
                                           bool MayMerge, unsigned MaxCount) {
  std::vector<PendingStep> &SS = Sender.Steps[STb];
  std::vector<PendingStep> &RS = Receiver.Steps[RTb];
  if (MayMerge && !SS.empty() && !RS.empty()) {
    PendingStep &PS = SS.back();
    PendingStep &PR = RS.back();
    const Step &A = PS.S, &B = PR.S;
    const double Eps = 1e-9;
    if (A.Type == OpType::Send && B.Type == OpType::Recv &&
        Send.S.Type == OpType::Send && Recv.S.Type == OpType::Recv &&
        A.Cnt == B.Cnt && A.Cnt < int(MaxCount) &&
        continues(A.SrcBuf, A.SrcOff, A.Cnt, Send.S.SrcBuf, Send.S.SrcOff) &&
        continues(A.DstBuf, A.DstOff, A.Cnt, Send.S.DstBuf, Send.S.DstOff) &&
        continues(B.DstBuf, B.DstOff, B.Cnt, Recv.S.DstBuf, Recv.S.DstOff) &&
        Recv.Deps.empty() && Send.Time <= PR.Time + Eps) {
      // Chunks the schedule starts together (stage 3 chose to send them as
      // one message) wait for each other by design: the message waits for
      // all of their dependencies. Otherwise neither may be held up.
      std::optional<std::vector<std::pair<int, int>>> Deps =
          Send.Time <= PS.Time + Eps ? unitedDeps(Send, PS)
                                     : mergedDeps(Send, PS, Sender);
      if (Deps) {
        // The merged message leaves with its last chunk and lands with it
        // (FuseRelays.cpp orders steps by these times).
        PS.Deps = std::move(*Deps);
        PS.Time = std::max(PS.Time, Send.Time);
        ++PS.S.Cnt;
        ++PR.S.Cnt;
        PR.Time = Recv.Time;
        PR.Sent = std::max(PR.Sent, Recv.Sent);
        return {RTb, int(RS.size()) - 1};
      }
    }
  }
  SS.push_back(Send);
  RS.push_back(Recv);
  return {RTb, int(RS.size()) - 1};
}
