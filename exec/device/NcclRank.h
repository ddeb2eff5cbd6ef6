//===- exec/device/NcclRank.h - One NCCL rank process -----------*- C++ -*-===//
//
// The contract between runOnNcclRanks (NcclProcesses.cpp, the parent, which
// never touches CUDA) and the rank processes it forks (NcclRank.cu): what
// each rank is given (the flat plan, its rank's initial memory, the pipe
// that carries NCCL's unique id from rank 0 to the others) and what it
// writes back into memory shared with the parent (a report, the time of
// every run, and its buffers after the first run).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_NCCLRANK_H
#define TACCLC_EXEC_DEVICE_NCCLRANK_H

#include "exec/CpuWorker.h"
#include "exec/device/CudaExecutor.h"
#include "exec/device/DevicePlan.h"

#include <cstddef>
#include <cstdint>

namespace tacclrt::cuda {

/// What a rank process reports, in memory shared with the parent.
struct RankReport {
  /// Set when the rank completed every run (and tore down cleanly).
  int Finished = 0;
  /// Set when the rank failed; Message says why.
  int Failed = 0;
  /// The device watchdog's word when a run hung (Error[0] != 0; see
  /// Interpreter.cuh), and that run.
  int Error[5] = {0, 0, 0, 0, 0};
  int ErrorRun = -1;
  /// Bytes of the rank's buffers that differed from the first run's, and
  /// the first run that differed (-1 when none).
  std::uint64_t DifferingBytes = 0;
  int FirstDifferingRun = -1;
  /// NCCL's mean time, when it ran (NcclRan), else NcclWhy.
  int NcclRan = 0;
  double NcclSeconds = 0;
  char Message[1024] = {};
  char NcclWhy[512] = {};
};

/// What one rank process is given.
struct NcclRankJob {
  int Rank = 0, NRanks = 0;
  const Algo *A = nullptr;
  const RunOptions *Opts = nullptr;
  const RepeatOptions *Rep = nullptr;
  const DevicePlan *Plan = nullptr;
  /// This rank's memory before the call (inputs and the output's initial
  /// contents), restored before every run.
  const CpuRankMemory *Initial = nullptr;
  /// Rank 0 writes NCCL's unique id NRanks - 1 times into IdWrite; every
  /// other rank reads it from IdRead (EOF: rank 0 failed first).
  int IdRead = -1, IdWrite = -1;
  /// Shared with the parent: the report, the kernel time of every run, and
  /// the rank's storages back to back after the first run.
  RankReport *Report = nullptr;
  double *Seconds = nullptr;
  std::byte *Output = nullptr;
};

/// Runs one rank (in a forked process) and returns its exit status: 0 when
/// every run completed, else 1 with the reason in Job.Report.
int runNcclRank(const NcclRankJob &Job);

} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_NCCLRANK_H
