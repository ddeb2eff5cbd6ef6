//===- exec/device/CudaExecutor.h - Run a plan on NVIDIA GPUs ---*- C++ -*-===//
//
// The CUDA interpreter: one kernel launch executes a whole TACCL-EF plan,
// one CUDA block per threadblock of the XML (DevicePlan.h). Three ways to
// place the ranks:
//   - virtual ranks: every rank's buffers and blocks on one GPU, so any
//     plan can be run and checked on a single device;
//   - spread: ranks round-robin over the GPUs this process sees (one rank
//     per GPU when there are enough), reaching each other through peer
//     access;
//   - NCCL processes: one process per rank and GPU, bootstrapped by NCCL
//     (ncclCommInitRank); the FIFO memory lives in NCCL symmetric windows
//     (ncclMemAlloc + ncclCommWindowRegister) and peers are reached through
//     the NCCL 2.28 device API, as a multi-process application would.
// Inputs, the reference and the output check are the CPU executor's
// (HostBuffers), so every backend reports the same way. NCCL's own
// implementation of a collective can be timed next to the plan.
//
// Built only where nvcc is found; elsewhere runOnCuda() says so. On a
// machine without a usable GPU it reports that and does not run.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_CUDAEXECUTOR_H
#define TACCLC_EXEC_DEVICE_CUDAEXECUTOR_H

#include "format/Call.h"

#include <optional>
#include <string>
#include <string_view>

namespace tacclrt {

/// How ranks map onto GPUs.
enum class CudaMode {
  /// Every rank on one GPU (the first visible one).
  VirtualRanks,
  /// Rank r on GPU r % (visible GPUs), all driven by this process through
  /// peer access; with one GPU the same as VirtualRanks.
  SpreadRanks,
};

/// True when this build contains the CUDA interpreter.
bool cudaInterpreterBuilt();

/// Runs \p A once on the GPU as described by \p Opts (FifoSlots, SliceBytes
/// and WatchdogSeconds as for runOnCpu; the watchdog runs on the device and
/// names the blocked rank, threadblock and step). Never throws: a missing
/// GPU, a plan too large to keep every block resident, a CUDA error, a hang
/// and wrong results all end up in RunResult::Issues. RunResult::Seconds
/// is the kernel's time.
RunResult runOnCuda(const Algo &A, const RunOptions &Opts, CudaMode Mode,
                    std::string_view FileName);

/// How a call is repeated for timing.
struct RepeatOptions {
  /// Untimed runs first, then timed ones.
  unsigned Warmup = 0, Iters = 1;
  /// Also time NCCL's own implementation of the collective on the same
  /// communicators, size, type and reduction.
  bool NcclBaseline = false;
};

/// The outcome of a repeated call.
struct RepeatedRun {
  /// Every run checked: the first element by element against the
  /// reference, each later one byte for byte against the first. Seconds is
  /// the mean over the timed runs of the slowest rank's kernel time.
  RunResult Run;
  /// NCCL's mean time, when asked for and it ran; else NcclWhy says why not.
  std::optional<double> NcclSeconds;
  std::string NcclWhy;
};

/// Runs \p A with one process per rank, rank r on GPU r. The processes are
/// forked from this one, which must not have used CUDA before (a forked CUDA
/// context is unusable); they bootstrap with ncclCommInitRank, so every rank
/// needs a GPU of its own and all of them one NVLink (LSA) domain. Never
/// throws, never hangs: a rank that fails, hangs or dies is reported, and
/// the others are stopped.
RepeatedRun runOnNcclRanks(const Algo &A, const RunOptions &Opts,
                           const RepeatOptions &Rep, std::string_view FileName);

/// NCCL's own implementation of \p A's collective for call \p Opts, in this
/// process with one communicator per GPU (ncclCommInitAll), so it needs a GPU
/// per rank: the mean time of Rep.Iters runs after Rep.Warmup, or nothing
/// and the reason in \p Why (no GPU, too few GPUs, a collective NCCL does
/// not have, an NCCL error).
std::optional<double> ncclBaselineSeconds(const Algo &A, const RunOptions &Opts,
                                          const RepeatOptions &Rep,
                                          std::string &Why);

} // namespace tacclrt

#endif // TACCLC_EXEC_DEVICE_CUDAEXECUTOR_H
