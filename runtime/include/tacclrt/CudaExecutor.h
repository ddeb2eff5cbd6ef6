//===- tacclrt/CudaExecutor.h - Run a plan on NVIDIA GPUs -------*- C++ -*-===//
//
// The CUDA interpreter: one kernel launch executes a whole TACCL-EF plan,
// one CUDA block per threadblock of the XML (DevicePlan.h). In the
// virtual-ranks mode every rank's buffers and blocks live on one GPU, so
// any plan can be run and checked on a single device; in the spread mode
// ranks go round-robin over the GPUs this process sees (one rank per GPU
// when there are enough), which reach each other through peer access. Inputs,
// the reference and the output check are the CPU executor's (HostBuffers), so
// both backends report the same way.
//
// Built only where nvcc is found; elsewhere runOnCuda() says so. On a
// machine without a usable GPU it reports that and does not run.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLRT_CUDAEXECUTOR_H
#define TACCLRT_CUDAEXECUTOR_H

#include "tacclrt/CpuExecutor.h"

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

} // namespace tacclrt

#endif // TACCLRT_CUDAEXECUTOR_H
