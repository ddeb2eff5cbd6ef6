//===- exec/CpuExecutor.h - Run a plan on CPUs ------------------*- C++ -*-===//
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
#ifndef TACCLC_EXEC_CPUEXECUTOR_H
#define TACCLC_EXEC_CPUEXECUTOR_H

#include "format/Call.h"
#include "format/Diagnostic.h"
#include "format/Plan.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tacclrt {

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

#endif // TACCLC_EXEC_CPUEXECUTOR_H
