//===- exec/CpuWorker.h - One threadblock on a CPU thread -------*- C++ -*-===//
//
// Internal to the CPU executor: the host memory of each rank (storages and
// the i/o/s views onto them, which encode NCCL's in-place aliasing), the
// per-chunk-slot write tracking used to report uninitialised reads and the
// last writer of a wrong element, and runThreadblock(), the body of one
// threadblock thread: the runtime's loop over slices of every chunk with all
// op types, dependency waits and flag publication.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_CPUWORKER_H
#define TACCLC_EXEC_CPUWORKER_H

#include "exec/CpuSync.h"
#include "exec/DataTypes.h"
#include "format/Program.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tacclrt {

/// A buffer name (i, o or s) mapped onto one storage, in elements.
struct CpuView {
  /// Index of the storage.
  std::size_t Storage = 0;
  /// First element of the view inside the storage.
  std::uint64_t Base = 0;
  /// Elements in the view.
  std::uint64_t Len = 0;
};

/// Never-written marker of a chunk slot.
constexpr std::int64_t NeverWritten = -1;
/// Marker of a slot holding call input (initialised in every iteration).
constexpr std::int64_t HoldsInput = INT64_MAX;

/// The memory of one rank.
struct CpuRankMemory {
  /// Raw element storage; views index into these.
  std::vector<std::vector<std::byte>> Storages;
  /// Views for Input, Output and Scratch (indexed by BufferKind).
  CpuView Views[3];
  /// Per storage and chunk slot: last iteration written (or a marker).
  std::vector<std::unique_ptr<std::atomic<std::int64_t>[]>> Written;
  /// Per storage and chunk slot: packed last writer, 0 for none.
  std::vector<std::unique_ptr<std::atomic<std::uint64_t>[]>> Writer;
};

/// Packs a writer (rank, tb, step, iteration) into a non-zero word.
std::uint64_t packWriter(int Rank, int Tb, int Pos, long Iter);
/// Unpacks packWriter(); false for 0 (no writer).
bool unpackWriter(std::uint64_t W, int &Rank, int &Tb, int &Pos, long &Iter);

/// Parameters shared by all threadblocks of a run.
struct CpuRunConfig {
  /// Element operations.
  const TypeOps *Ty = nullptr;
  /// Reduction operator.
  ReduceOp Op = ReduceOp::Sum;
  /// Elements per chunk (count_total / nchunksperloop).
  std::uint64_t SizePerChunk = 1;
  /// Elements of each chunk moved per iteration.
  std::uint64_t SliceElems = 1;
  /// Loop iterations.
  long Iterations = 1;
  /// Whether chunk slots are tracked (views aligned to chunks).
  bool Tracking = false;
};

/// Runs tb \p T (thread \p Me of \p Sync) to completion or abort.
void runThreadblock(const Algo &A, const TbProgram &T, std::size_t Me,
                    const CpuRunConfig &C, std::vector<CpuRankMemory> &Mem,
                    CpuSync &Sync);

} // namespace tacclrt

#endif // TACCLC_EXEC_CPUWORKER_H
