//===- exec/device/NcclProcesses.cpp - The NCCL backend's parent ----------===//
//
// runOnNcclRanks(): the parent of the rank processes (NcclRank.cu). It
// never touches CUDA, so that the processes it forks start clean:
//   1. the call is prepared, the host buffers filled and the plan flattened
//      exactly as for the other backends;
//   2. memory shared with the ranks is mapped (each rank's report, run
//      times and buffers) and a pipe made for NCCL's unique id;
//   3. one process per rank is forked (runRankProcesses); when a rank
//      fails, the others get the device watchdog's time plus a little to
//      report what they saw, and are then stopped; an overall limit stops a
//      run that makes no progress at all (NCCL's bootstrap waiting for a
//      rank that is gone, say);
//   4. what each rank saw becomes issues (a hung run names the rank,
//      threadblock, step and iteration); when all completed, the buffers of
//      the first run are checked element by element against the reference,
//      and later runs that differed from it count as wrong.
//
//===----------------------------------------------------------------------===//
#include "exec/CallSetup.h"
#include "exec/HostBuffers.h"
#include "exec/device/CudaExecutor.h"
#include "exec/device/DeviceErrors.h"
#include "exec/device/NcclRank.h"
#include "exec/device/PlanPrepared.h"
#include "exec/device/RankProcesses.h"
#include "format/IssueSink.h"
#include "format/Program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

namespace tacclrt {

namespace {

using cuda::NcclRankJob;
using cuda::RankReport;
std::size_t align64(std::size_t X) { return (X + 63) / 64 * 64; }

/// Step 2a: the offset of each rank's part of the shared memory (its report,
/// run times and buffers), with the total size at Offset[N].
std::vector<std::size_t> sharedOffsets(const std::vector<CpuRankMemory> &Mem,
                                       std::size_t N, unsigned Runs) {
  std::vector<std::size_t> Offset(N + 1, 0);
  for (std::size_t Rk = 0; Rk < N; ++Rk) {
    std::size_t Bytes = 0;
    for (const auto &St : Mem[Rk].Storages)
      Bytes += St.size();
    Offset[Rk + 1] = Offset[Rk] + align64(sizeof(RankReport)) +
                     align64(Runs * sizeof(double)) + align64(Bytes);
  }
  return Offset;
}

/// Step 2b: the job of each rank, pointing into its part of \p Shared.
std::vector<NcclRankJob>
makeJobs(const Algo &A, const RunOptions &O, const RepeatOptions &Rep,
         DevicePlan *D, std::vector<CpuRankMemory> &Mem, SharedMemory &Shared,
         const std::vector<std::size_t> &Offset, const int IdPipe[2],
         std::size_t N, unsigned Runs) {
  std::vector<NcclRankJob> Jobs(N);
  for (std::size_t Rk = 0; Rk < N; ++Rk) {
    std::byte *Base = Shared.get() + Offset[Rk];
    NcclRankJob &J = Jobs[Rk];
    J.Rank = int(Rk);
    J.NRanks = int(N);
    J.A = &A;
    J.Opts = &O;
    J.Rep = &Rep;
    J.Plan = &*D;
    J.Initial = &Mem[Rk];
    J.IdRead = IdPipe[0];
    J.IdWrite = IdPipe[1];
    J.Report = new (Base) RankReport();
    J.Seconds = reinterpret_cast<double *>(Base + align64(sizeof(RankReport)));
    J.Output =
        Base + align64(sizeof(RankReport)) + align64(Runs * sizeof(double));
  }
  return Jobs;
}

/// Step 3: one process per rank, stopped when a rank fails or the run makes
/// no progress; nothing when the processes could not be started.
std::optional<std::vector<RankEnding>>
runRanks(const RunOptions &O, std::vector<NcclRankJob> &Jobs,
         const int IdPipe[2], std::size_t N, unsigned Runs, std::string &Why) {
  const double Watchdog = O.WatchdogSeconds > 0 ? O.WatchdogSeconds : 3600;
  return runRankProcesses(
      unsigned(N),
      [&](unsigned Rk) {
        if (Rk != 0)
          close(IdPipe[1]); // rank 0's failure must reach the others as EOF
        return cuda::runNcclRank(Jobs[Rk]);
      },
      [&] {
        close(IdPipe[0]);
        close(IdPipe[1]);
      },
      Watchdog + 5, 120 + Runs * (2 * Watchdog + 10), Why);
}

/// Step 4a: reports what each rank saw (a hang where it hung, the same
/// failure on several ranks once); whether every rank finished.
bool reportRanks(const Algo &A, const RunOptions &O,
                 const std::optional<Program> &P, const DevicePlan *D,
                 const std::vector<NcclRankJob> &Jobs,
                 const std::vector<RankEnding> &Ends, IssueSink &Sink) {
  const std::size_t N = D->Ranks.size();
  // The same failure on several ranks is said once.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> Failures;
  bool AllFinished = true;
  for (std::size_t Rk = 0; Rk < N; ++Rk) {
    const RankReport &Rp = *Jobs[Rk].Report;
    const RankEnding &E = Ends[Rk];
    AllFinished = AllFinished && Rp.Finished && E.ok();
    if (Rp.Error[0] != cuda::NoError) {
      const DevBlock &B = D->Blocks[std::size_t(Rp.Error[1])];
      const TbProgram &T = P->Ranks[std::size_t(B.Rank)][std::size_t(B.Tb)];
      Where W = stepWhere(A, B.Rank, B.Tb, T.Ops[std::size_t(Rp.Error[2])].Pos);
      W.Iteration = Rp.Error[3];
      Sink.report<MsgId::GpuRunHungInRun>(W, Rp.ErrorRun + 1, O.WatchdogSeconds,
                                          cuda::waitName(Rp.Error[4]));
      continue;
    }
    std::string Msg;
    if (Rp.Failed)
      Msg = Rp.Message;
    else if (E.Stopped)
      Msg = "stopped: the run did not complete in time (another rank failed, "
            "or NCCL waited for one that is gone)";
    else if (E.Signal)
      Msg = fmt::format("the rank's process died ({})", strsignal(E.Signal));
    else if (!Rp.Finished || !E.ok())
      Msg = "the rank's process ended without a report";
    if (Msg.empty())
      continue;
    auto It = std::find_if(Failures.begin(), Failures.end(),
                           [&](const auto &F) { return F.first == Msg; });
    if (It == Failures.end())
      Failures.push_back({Msg, {Rk}});
    else
      It->second.push_back(Rk);
  }
  for (const auto &[Msg, Ranks] : Failures) {
    Where W;
    if (Ranks.size() == 1) {
      W.Rank = int(Ranks[0]);
      Sink.report<MsgId::DeviceFailure>(W, Msg);
      continue;
    }
    Sink.report(W, Ranks.size() == N ? message<MsgId::AllRanksFailed>(N, Msg)
                                     : message<MsgId::RanksFailed>(
                                           fmt::join(Ranks, ", "), Msg));
  }
  return AllFinished;
}

/// Step 4b: checks the first run's buffers against the reference and counts
/// later runs that differed from it as wrong.
void checkOutputs(const Algo &A, CallSetup &S, std::vector<CpuRankMemory> &Mem,
                  const DevicePlan *D, const std::vector<NcclRankJob> &Jobs,
                  IssueSink &Sink, RunResult &R) {
  const std::size_t N = D->Ranks.size();
  for (std::size_t Rk = 0; Rk < N; ++Rk) {
    const std::byte *Src = Jobs[Rk].Output;
    for (auto &St : Mem[Rk].Storages) {
      std::memcpy(St.data(), Src, St.size());
      Src += St.size();
    }
  }
  S.Cfg.Tracking = false; // the GPU keeps no record of writers
  verifyOutputs(A, S, Mem, Sink, R);
  for (std::size_t Rk = 0; Rk < N; ++Rk) {
    const RankReport &Rp = *Jobs[Rk].Report;
    if (Rp.DifferingBytes == 0)
      continue;
    Where W;
    W.Rank = int(Rk);
    Sink.report<MsgId::NonDeterministicResults>(W, Rp.DifferingBytes,
                                                Rp.FirstDifferingRun + 1);
    R.WrongElements += std::max<std::uint64_t>(
        1, Rp.DifferingBytes / std::max<std::uint32_t>(D->TypeSize, 1));
  }
}

/// Step 4c: the mean time of the slowest rank over the timed runs, and
/// NCCL's own time when it was asked for.
void collectTimes(const RepeatOptions &Rep, unsigned Runs,
                  const std::vector<NcclRankJob> &Jobs, RepeatedRun &Out) {
  RunResult &R = Out.Run;
  double Total = 0;
  for (unsigned K = Rep.Warmup; K < Runs; ++K) {
    double Slowest = 0;
    for (const NcclRankJob &J : Jobs)
      Slowest = std::max(Slowest, J.Seconds[K]);
    Total += Slowest;
  }
  R.Seconds = Total / Rep.Iters;
  if (Rep.NcclBaseline) {
    double Slowest = 0;
    for (const NcclRankJob &J : Jobs) {
      if (!J.Report->NcclRan) {
        Out.NcclWhy = J.Report->NcclWhy;
        break;
      }
      Slowest = std::max(Slowest, J.Report->NcclSeconds);
    }
    if (Out.NcclWhy.empty())
      Out.NcclSeconds = Slowest;
  }
}

} // namespace

RepeatedRun runOnNcclRanks(const Algo &A, const RunOptions &O,
                           const RepeatOptions &Rep,
                           std::string_view FileName) {
  RepeatedRun Out;
  RunResult &R = Out.Run;
  IssueSink Sink(R.Issues, FileName);
  auto NotRun = [&] {
    R.Summary = notRunSummary(R.Issues);
    return Out;
  };
  // 1. The call, the host buffers, the flat plan.
  std::optional<PreparedDeviceRun> Prepared =
      prepareDeviceRun(A, O, Sink, R.Issues, FileName);
  if (!Prepared)
    return NotRun();
  const std::optional<Program> &P = Prepared->Run.P;
  CallSetup &S = Prepared->Run.S;
  std::vector<CpuRankMemory> &Mem = Prepared->Run.Mem;
  DevicePlan *D = &Prepared->Plan;
  if (Rep.Iters == 0) {
    Sink.report<MsgId::NoTimedRun>(Where());
    return NotRun();
  }
  const std::size_t N = D->Ranks.size();
  const unsigned Runs = Rep.Warmup + Rep.Iters;

  // 2. Shared memory: per rank, its report, run times and buffers.
  std::vector<std::size_t> Offset = sharedOffsets(Mem, N, Runs);
  SharedMemory Shared(Offset[N]);
  int IdPipe[2] = {-1, -1};
  if (!Shared.get() || pipe(IdPipe) != 0) {
    Sink.report<MsgId::RankProcessSetup>(Where(), std::strerror(errno));
    return NotRun();
  }
  std::vector<NcclRankJob> Jobs =
      makeJobs(A, O, Rep, D, Mem, Shared, Offset, IdPipe, N, Runs);

  // 3. One process per rank.
  std::string Why;
  std::optional<std::vector<RankEnding>> Ends =
      runRanks(O, Jobs, IdPipe, N, Runs, Why);
  if (!Ends) {
    Sink.report<MsgId::DeviceFailure>(Where(), Why);
    return NotRun();
  }

  // 4. What the ranks saw, the outputs, the times.
  if (!reportRanks(A, O, P, D, Jobs, *Ends, Sink))
    return NotRun();
  if (O.Verify)
    checkOutputs(A, S, Mem, D, Jobs, Sink, R);
  collectTimes(Rep, Runs, Jobs, Out);
  R.Ok = !R.Issues.hasErrors();
  R.Summary = fmt::format(
      "{} on {} ranks (a process and a GPU each, peers through NCCL "
      "windows), {} B of {}{}, {} run(s): {} element(s) checked, {} wrong: {}",
      nameOf(A.Coll), N, O.Bytes, nameOf(O.Type),
      isReduction(A.Coll) ? fmt::format(" ({})", nameOf(O.Op)) : "", Runs,
      R.ElementsChecked, R.WrongElements, R.Ok ? "ok" : "FAILED");
  return Out;
}

} // namespace tacclrt
