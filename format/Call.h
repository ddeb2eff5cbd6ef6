//===- format/Call.h - What a call of a plan asks and gets ------*- C++ -*-===//
//
// The call types every backend shares (the CPU executor, the CUDA
// interpreter, the NCCL ranks, the shim): NCCL's element types with their
// names and sizes (format/Vocabulary.def), the options of one call of a
// plan and what a run of it found.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_CALL_H
#define TACCLC_FORMAT_CALL_H

#include "format/Collective.h"
#include "format/Diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tacclrt {

/// NCCL's element types.
enum class DataType {
#define TACCLRT_DATA_TYPE(E, Name, Bytes) E,
#include "format/Vocabulary.def"
};

/// NCCL-style name: "float32", "int32", ...
std::string_view nameOf(DataType T);
/// Size of one element in bytes.
std::size_t sizeOf(DataType T);
/// The type named \p Name as nameOf() writes it (NCCL's aliases "half",
/// "float", "double", "int", "char" and "bf16" too), or nothing.
std::optional<DataType> parseDataType(std::string_view Name);

/// How to run a plan.
struct RunOptions {
  /// Total bytes as the runtime selects algorithms by: count x
  /// sizeMultiplier x type size (for allgather the full output, for
  /// reducescatter the full input, for allreduce the buffer; for gather and
  /// scatter one rank's part).
  std::uint64_t Bytes = 1 << 20;
  /// The element type.
  DataType Type = DataType::Float32;
  /// The reduction operator (reducing collectives only).
  ReduceOp Op = ReduceOp::Sum;
  /// Run an in-place call (the plan must declare inplace="1") instead of an
  /// out-of-place one (outofplace="1").
  bool InPlace = false;
  /// Slice of every chunk moved per loop iteration, in bytes; 0 selects the
  /// protocol default (Simple 2 MiB, LL 32 KiB, LL128 576000 B).
  std::size_t SliceBytes = 0;
  /// Messages each (sender, receiver, channel) FIFO holds (NCCL_STEPS = 8).
  unsigned FifoSlots = 8;
  /// Abort when no threadblock completes an operation for this long (<= 0
  /// disables the watchdog; deadlocks are detected exactly regardless).
  double WatchdogSeconds = 10;
  /// The runtime whose size selection applies: the legacy one treats
  /// maxBytes as exclusive (only for the "would not select" warning).
  bool LegacySizeRange = false;
  /// Root of a broadcast, reduce, gather or scatter call; -1 takes the
  /// plan's `root` attribute, or 0 (with a warning) when it has none.
  int Root = -1;
  /// Compare the outputs with the collective's reference. False skips the
  /// comparison (nccl-tests' `-c 0`): RunResult then counts no element, and
  /// only a refusal, a deadlock or an access error makes the run fail.
  bool Verify = true;
};

/// What one run found.
struct RunResult {
  /// True when the run completed and every output element is right.
  bool Ok = false;
  /// Output elements compared with the reference (all ranks).
  std::uint64_t ElementsChecked = 0;
  /// Output elements that differ from the reference.
  std::uint64_t WrongElements = 0;
  /// Every problem found, in order.
  Report Issues;
  /// Wall time of the threaded execution, in seconds.
  double Seconds = 0;
  /// One line describing the run and its outcome.
  std::string Summary;
};

} // namespace tacclrt

#endif // TACCLC_FORMAT_CALL_H
