//===- checker/HappensBefore.h - Vector-clock race detection ----*- C++ -*-===//
//
// Internal to the checker. Tracks the happens-before order of one symbolic
// run with vector clocks and finds data races on chunk slots. Threadblocks
// run concurrently; the only orderings are program order inside a tb, a
// step's dependencies (it runs after the first step of the target tb that
// publishes a step number >= the awaited one) and messages (a receive runs
// after the matching send). Every tb of every rank has a clock vector over
// all tbs; executing an operation ticks its own entry, a dependency joins
// the target's clock as it was right after the target step (snapshots are
// kept only for steps some dependency really resolves to) and a receive
// joins the clock the message carries. Every slot keeps its last write and
// the reads since; an access that is not ordered after a conflicting one by
// another tb is a race.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CHECKER_HAPPENSBEFORE_H
#define TACCLC_CHECKER_HAPPENSBEFORE_H

#include "format/Plan.h"
#include "format/Program.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tacclrt {

/// A vector clock: one entry per threadblock of every rank.
using VectorClock = std::vector<std::uint32_t>;

/// One access to a chunk slot.
struct SlotAccess {
  /// The accessing tb (global index, see HappensBefore::globalTb()).
  std::uint32_t Tb = 0;
  /// Its own clock entry at the access.
  std::uint32_t Clock = 0;
  /// The XML position of the step.
  std::int32_t Step = -1;
  /// The chunk index inside Buf (the buffer name the step used).
  std::int32_t Chunk = -1;
  /// The buffer name the step used ('i', 'o' or 's').
  BufferKind Buf = BufferKind::Input;
};

/// What a slot saw since its last write.
struct SlotHistory {
  /// The last write, when HasWrite.
  SlotAccess Write;
  bool HasWrite = false;
  /// True once a race on this slot was reported: report each slot once.
  bool Raced = false;
  /// The reads since the last write, at most one per tb (the latest).
  std::vector<SlotAccess> Reads;
};

/// An access unordered with the current one.
struct RaceConflict {
  /// The earlier access.
  SlotAccess Other;
  /// True when the earlier access is a write.
  bool OtherWrites = false;
};

/// Vector clocks and per-slot access histories of one symbolic run.
class HappensBefore {
public:
  /// The most clock entries (tbs x (dependency targets + clocks + messages
  /// in flight)) one run may allocate; larger plans skip race detection.
  static constexpr std::uint64_t MaxClockEntries = 50'000'000;

  /// Prepares clocks for \p P. Check enabled() before using it.
  HappensBefore(const Program &P, unsigned FifoCapacity);

  /// False when the clocks would exceed MaxClockEntries; nothing else may
  /// be called then.
  bool enabled() const { return Enabled; }
  /// Total threadblocks of all ranks.
  std::size_t tbCount() const { return NTbs; }
  /// Dependency targets whose clock is snapshotted.
  std::size_t snapshotCount() const { return NSnapshots; }
  /// The clock entries the run would need.
  std::uint64_t clockEntries() const { return Entries; }

  /// The global index of tb \p Tb of rank \p Rank.
  std::uint32_t globalTb(int Rank, int Tb) const {
    return static_cast<std::uint32_t>(RankBase[static_cast<std::size_t>(Rank)] +
                                      static_cast<std::size_t>(Tb));
  }
  /// The tb id (inside its rank) of global index \p G.
  int localTb(std::uint32_t G) const { return LocalId[G]; }

  /// Operation \p OpIndex of tb \p Tb on \p Rank starts (its dependencies
  /// are satisfied): ticks the tb's clock and joins its dependency targets.
  void beginOp(int Rank, int Tb, std::size_t OpIndex);
  /// The tb receives a message sent with clock \p Sent.
  void receive(int Rank, int Tb, const VectorClock &Sent);
  /// The clock a message sent now by the tb carries.
  const VectorClock &clock(int Rank, int Tb) const {
    return Clocks[globalTb(Rank, Tb)];
  }
  /// Operation \p OpIndex of the tb has completed: snapshots the clock when
  /// some dependency resolves to it.
  void endOp(int Rank, int Tb, std::size_t OpIndex);

  /// Records a read of slot \p Key of \p Rank by tb \p Tb at step \p Step
  /// through \p Buf chunk \p Chunk; returns the unreported conflicting
  /// write it races with, if any.
  std::optional<RaceConflict> read(int Rank, std::uint64_t Key, int Tb,
                                   int Step, BufferKind Buf, int Chunk);
  /// Same for a write: conflicts with the last write or any read since.
  std::optional<RaceConflict> write(int Rank, std::uint64_t Key, int Tb,
                                    int Step, BufferKind Buf, int Chunk);

private:
  bool Enabled = false;
  std::size_t NTbs = 0;
  std::size_t NSnapshots = 0;
  std::uint64_t Entries = 0;
  std::vector<std::size_t> RankBase; // [rank] -> first global tb
  std::vector<int> LocalId;          // [global tb] -> tb id
  std::vector<VectorClock> Clocks;   // [global tb]
  std::vector<VectorClock> Snapshots;
  /// [global tb][op] -> snapshot index or -1.
  std::vector<std::vector<int>> SnapshotOf;
  /// [global tb][op] -> the snapshots its dependencies join.
  std::vector<std::vector<std::vector<int>>> DepSnapshots;
  /// [rank] -> slot key -> history (only slots ever accessed).
  std::vector<std::unordered_map<std::uint64_t, SlotHistory>> Histories;

  SlotAccess access(int Rank, int Tb, int Step, BufferKind Buf,
                    int Chunk) const;
  /// True when \p Earlier (by another tb) is not ordered before tb \p G now.
  bool unordered(const SlotAccess &Earlier, std::uint32_t G) const {
    return Earlier.Tb != G && Earlier.Clock > Clocks[G][Earlier.Tb];
  }
};

} // namespace tacclrt

#endif // TACCLC_CHECKER_HAPPENSBEFORE_H
