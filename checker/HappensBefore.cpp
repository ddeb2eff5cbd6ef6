//===- checker/HappensBefore.cpp - Vector-clock race detection ------------===//
//
// Resolves every dependency to the step that satisfies it, sizes the clocks
// (refusing plans whose clocks would not fit), and implements the per-slot
// last-write / reads-since bookkeeping of a vector-clock race detector.
//
//===----------------------------------------------------------------------===//
#include "checker/HappensBefore.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace tacclrt {

HappensBefore::HappensBefore(const Program &P, unsigned FifoCapacity) {
  RankBase.reserve(P.Ranks.size());
  for (const auto &Rank : P.Ranks) {
    RankBase.push_back(NTbs);
    NTbs += Rank.size();
  }

  // A dependency on (tb D, step S) is satisfied by the first operation of D
  // that publishes a step >= S (flags only grow and operations publish in
  // order); that operation's clock is what the waiter learns.
  SnapshotOf.resize(NTbs);
  DepSnapshots.resize(NTbs);
  LocalId.resize(NTbs);
  std::uint64_t Sends = 0;
  std::set<std::tuple<int, int, int>> Fifos;
  for (std::size_t R = 0; R < P.Ranks.size(); ++R)
    for (const TbProgram &T : P.Ranks[R]) {
      std::size_t G = RankBase[R] + static_cast<std::size_t>(T.Id);
      LocalId[G] = T.Id;
      SnapshotOf[G].assign(T.Ops.size(), -1);
      DepSnapshots[G].resize(T.Ops.size());
      for (const Operation &Op : T.Ops)
        if (sendsMessage(Op.S->Type)) {
          ++Sends;
          Fifos.insert({T.Rank, T.Send, T.Chan});
        }
    }
  for (std::size_t R = 0; R < P.Ranks.size(); ++R)
    for (const TbProgram &T : P.Ranks[R]) {
      std::size_t G = RankBase[R] + static_cast<std::size_t>(T.Id);
      for (std::size_t K = 0; K < T.Ops.size(); ++K)
        for (const Dependency &D : T.Ops[K].Deps) {
          if (D.Tb < 0 || static_cast<std::size_t>(D.Tb) >= P.Ranks[R].size())
            continue;
          const TbProgram &Target = P.Ranks[R][static_cast<std::size_t>(D.Tb)];
          std::size_t TG = RankBase[R] + static_cast<std::size_t>(D.Tb);
          for (std::size_t J = 0; J < Target.Ops.size(); ++J) {
            const Operation &Op = Target.Ops[J];
            if (!Op.S->HasDep || Op.PublishedStep < D.Step)
              continue;
            int &Snap = SnapshotOf[TG][J];
            if (Snap < 0)
              Snap = static_cast<int>(NSnapshots++);
            DepSnapshots[G][K].push_back(Snap);
            break;
          }
          // No such operation: the waiter deadlocks, nothing to join.
        }
    }

  std::uint64_t InFlight = std::min<std::uint64_t>(
      Sends, std::uint64_t(std::max(1u, FifoCapacity)) * Fifos.size());
  Entries = std::uint64_t(NTbs) * (std::uint64_t(NSnapshots) + NTbs + InFlight);
  Enabled = Entries <= MaxClockEntries;
  if (!Enabled) {
    SnapshotOf.clear();
    DepSnapshots.clear();
    return;
  }
  Clocks.assign(NTbs, VectorClock(NTbs, 0));
  Snapshots.resize(NSnapshots);
  Histories.resize(P.Ranks.size());
}

void HappensBefore::beginOp(int Rank, int Tb, std::size_t OpIndex) {
  std::uint32_t G = globalTb(Rank, Tb);
  VectorClock &C = Clocks[G];
  for (int Snap : DepSnapshots[G][OpIndex]) {
    const VectorClock &S = Snapshots[static_cast<std::size_t>(Snap)];
    for (std::size_t K = 0; K < NTbs; ++K)
      C[K] = std::max(C[K], S[K]);
  }
  ++C[G];
}

void HappensBefore::receive(int Rank, int Tb, const VectorClock &Sent) {
  VectorClock &C = Clocks[globalTb(Rank, Tb)];
  for (std::size_t K = 0; K < NTbs && K < Sent.size(); ++K)
    C[K] = std::max(C[K], Sent[K]);
}

void HappensBefore::endOp(int Rank, int Tb, std::size_t OpIndex) {
  std::uint32_t G = globalTb(Rank, Tb);
  int Snap = SnapshotOf[G][OpIndex];
  if (Snap >= 0)
    Snapshots[static_cast<std::size_t>(Snap)] = Clocks[G];
}

SlotAccess HappensBefore::access(int Rank, int Tb, int Step, BufferKind Buf,
                                 int Chunk) const {
  SlotAccess A;
  A.Tb = globalTb(Rank, Tb);
  A.Clock = Clocks[A.Tb][A.Tb];
  A.Step = Step;
  A.Chunk = Chunk;
  A.Buf = Buf;
  return A;
}

std::optional<RaceConflict> HappensBefore::read(int Rank, std::uint64_t Key,
                                                int Tb, int Step,
                                                BufferKind Buf, int Chunk) {
  SlotHistory &H = Histories[static_cast<std::size_t>(Rank)][Key];
  SlotAccess A = access(Rank, Tb, Step, Buf, Chunk);
  std::optional<RaceConflict> Race;
  if (!H.Raced && H.HasWrite && unordered(H.Write, A.Tb)) {
    H.Raced = true;
    Race = RaceConflict{H.Write, true};
  }
  auto It = std::find_if(H.Reads.begin(), H.Reads.end(),
                         [&A](const SlotAccess &R) { return R.Tb == A.Tb; });
  if (It != H.Reads.end())
    *It = A;
  else
    H.Reads.push_back(A);
  return Race;
}

std::optional<RaceConflict> HappensBefore::write(int Rank, std::uint64_t Key,
                                                 int Tb, int Step,
                                                 BufferKind Buf, int Chunk) {
  SlotHistory &H = Histories[static_cast<std::size_t>(Rank)][Key];
  SlotAccess A = access(Rank, Tb, Step, Buf, Chunk);
  std::optional<RaceConflict> Race;
  if (!H.Raced) {
    if (H.HasWrite && unordered(H.Write, A.Tb))
      Race = RaceConflict{H.Write, true};
    else
      for (const SlotAccess &R : H.Reads)
        if (unordered(R, A.Tb)) {
          Race = RaceConflict{R, false};
          break;
        }
    H.Raced = Race.has_value();
  }
  H.Write = A;
  H.HasWrite = true;
  H.Reads.clear();
  return Race;
}

} // namespace tacclrt
