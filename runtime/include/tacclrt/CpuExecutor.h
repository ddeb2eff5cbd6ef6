//===- runtime/include/tacclrt/CpuExecutor.h - Run a plan on CPUs -*- C++ -*-=//
//
// Executes a loaded plan for real on the host: one buffer set per rank (with
// NCCL's in-place aliasing), one std::thread per threadblock of every rank,
// one bounded FIFO per (sender, receiver, channel), the MSCCL runtime's loop
// over slices of every chunk, and dependency flags encoded as (iteration,
// step). A deadlock is detected exactly (every live thread blocked on an
// unsatisfiable wait) and a watchdog aborts stalled runs; the result is then
// compared element by element with the collective's reference output.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLRT_CPUEXECUTOR_H
#define TACCLRT_CPUEXECUTOR_H

#include "tacclrt/Collective.h"
#include "tacclrt/Diagnostic.h"
#include "tacclrt/Plan.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tacclrt {

/// NCCL element types. Float32, Float64 and Int32 run today; the others are
/// rejected with an issue until their element operations are added.
enum class DataType {
  Int8,
  UInt8,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float16,
  Float32,
  Float64,
  BFloat16
};

/// NCCL-style name: "float32", "int32", ...
std::string_view nameOf(DataType T);
/// Size of one element in bytes.
std::size_t sizeOf(DataType T);
/// The type named \p Name as nameOf() writes it (NCCL's aliases "half",
/// "float", "double", "int", "char", "uint8" and "bf16" too), or nothing.
std::optional<DataType> parseDataType(std::string_view Name);
/// The reduction named \p Name as nameOf() writes it, or nothing.
std::optional<ReduceOp> parseReduceOp(std::string_view Name);

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

/// Runs \p A once on the CPU as described by \p Opts. Never throws and never
/// hangs: setup errors, runtime errors, deadlocks and wrong results all end
/// up in RunResult::Issues. \p FileName labels the issues.
RunResult runOnCpu(const Algo &A, const RunOptions &Opts,
                   std::string_view FileName);

/// Runs \p A once on the CPU over the callers' buffers, as a library call
/// would: rank r's input is \p Inputs[r] (the call's InputCount elements,
/// NCCL's sendbuff) and its output goes to \p Outputs[r] (OutputCount
/// elements, NCCL's recvbuff), which may alias as NCCL allows in place. The
/// buffers are copied into executor memory and back, so nothing is checked
/// against a reference. RunResult::Ok is false (with the reason in Issues)
/// when the call does not fit the plan or the run fails.
RunResult executeOnCpu(const Algo &A, const RunOptions &Opts,
                       const std::vector<const void *> &Inputs,
                       const std::vector<void *> &Outputs,
                       std::string_view FileName);

} // namespace tacclrt

#endif // TACCLRT_CPUEXECUTOR_H
