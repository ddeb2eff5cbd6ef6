//===- exec/CpuExecutor.cpp - Run a plan on CPUs --------------------------===//
//
// runOnCpu(): checks the call against the plan (call kind, size divisibility,
// byte range, iteration limit), allocates every rank's buffers with NCCL's
// in-place aliasing, fills inputs with the deterministic pattern and the
// rest with a sentinel, runs one thread per threadblock under a CpuSync
// monitor and a watchdog, and finally compares every output element with
// the reference computed from Collective.h and the pattern alone.
//
//===----------------------------------------------------------------------===//
#include "exec/CpuExecutor.h"

#include "exec/CallSetup.h"
#include "exec/CpuSync.h"
#include "exec/CpuWorker.h"
#include "exec/DataTypes.h"
#include "exec/HostBuffers.h"
#include "format/IssueSink.h"
#include "format/Program.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <new>
#include <system_error>
#include <thread>

namespace tacclrt {

namespace {

/// Runs the prepared call on threads (one per threadblock) under a CpuSync
/// monitor and the watchdog; true when every threadblock completed.
bool runThreads(const Algo &A, const Program &P, const CallSetup &S,
                std::vector<CpuRankMemory> &Mem, const RunOptions &O,
                IssueSink &Sink, RunResult &R, std::size_t &NThreads) {
  CpuSync Sync(A, P, O.FifoSlots, Sink);
  std::vector<std::thread> Threads;
  NThreads = 0;
  for (const auto &Rank : P.Ranks)
    NThreads += Rank.size();
  auto T0 = std::chrono::steady_clock::now();
  try {
    Threads.reserve(NThreads);
    for (const auto &Rank : P.Ranks)
      for (const TbProgram &T : Rank)
        Threads.emplace_back(runThreadblock, std::cref(A), std::cref(T),
                             Sync.threadIndex(T.Rank, T.Id), std::cref(S.Cfg),
                             std::ref(Mem), std::ref(Sync));
  } catch (const std::system_error &E) {
    Sync.abort(message<MsgId::CannotStartThreads>(NThreads, E.what()));
  } catch (const std::bad_alloc &) {
    Sync.abort(message<MsgId::OutOfMemoryThreads>());
  }
  Sync.start();
  Sync.supervise(O.WatchdogSeconds);
  for (std::thread &Th : Threads)
    Th.join();
  R.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  Sync.reportOutcome();
  return Sync.stopReason() == CpuSync::Stop::None;
}

} // namespace

RunResult runOnCpu(const Algo &A, const RunOptions &O,
                   std::string_view FileName) {
  RunResult R;
  IssueSink Sink(R.Issues, FileName);
  PreparedRun Run;
  if (!prepareRun(A, O, Sink, R.Issues, FileName, Run)) {
    R.Summary = notRunSummary(R.Issues);
    return R;
  }
  const CallSetup &S = Run.S;
  std::vector<CpuRankMemory> &Mem = Run.Mem;
  std::size_t NThreads = 0;
  bool Completed = runThreads(A, *Run.P, S, Mem, O, Sink, R, NThreads);
  if (Completed && O.Verify)
    verifyOutputs(A, S, Mem, Sink, R);
  R.Ok = Completed && !R.Issues.hasErrors() && R.WrongElements == 0;

  std::string Op =
      isReduction(A.Coll) ? fmt::format(" ({})", nameOf(O.Op)) : std::string();
  R.Summary = fmt::format(
      "{} on {} ranks, {} B of {}{}, {}, {}: {} iteration{} of {} element{} "
      "per chunk, {} threadblock threads; {} elements checked, {} wrong: {}",
      nameOf(A.Coll), A.NGpus, O.Bytes, nameOf(O.Type), Op,
      O.InPlace ? "in-place" : "out-of-place", nameOf(A.Proto),
      S.Cfg.Iterations, S.Cfg.Iterations == 1 ? "" : "s",
      std::min(S.Cfg.SliceElems, S.Cfg.SizePerChunk),
      S.Cfg.SliceElems == 1 ? "" : "s", NThreads, R.ElementsChecked,
      R.WrongElements,
      R.Ok ? "ok"
           : (Completed ? "FAILED" : "FAILED (" + firstError(R.Issues) + ")"));
  return R;
}

RunResult executeOnCpu(const Algo &A, const RunOptions &O,
                       const std::vector<const void *> &Inputs,
                       const std::vector<void *> &Outputs,
                       std::string_view FileName) {
  RunResult R;
  IssueSink Sink(R.Issues, FileName);
  if (Inputs.size() != std::size_t(A.NGpus) ||
      Outputs.size() != std::size_t(A.NGpus)) {
    Sink.report<MsgId::BufferCountMismatch>(Where(), Inputs.size(), A.NGpus);
    R.Summary = notRunSummary(R.Issues);
    return R;
  }
  PreparedRun Run;
  if (!prepareRun(A, O, Sink, R.Issues, FileName, Run)) {
    R.Summary = notRunSummary(R.Issues);
    return R;
  }
  const CallSetup &S = Run.S;
  std::vector<CpuRankMemory> &Mem = Run.Mem;
  const std::size_t Size = S.Cfg.Ty->Size;
  auto Bytes = [&](std::size_t Rank, int View) -> std::byte * {
    const CpuView &V = Mem[Rank].Views[View];
    return Mem[Rank].Storages[V.Storage].data() + V.Base * Size;
  };
  // The callers' inputs in, after the pattern allocateHostBuffers wrote.
  for (std::size_t Rank = 0; Rank < Mem.size(); ++Rank)
    if (S.L.InputCount)
      std::memcpy(Bytes(Rank, 0), Inputs[Rank], S.L.InputCount * Size);
  std::size_t NThreads = 0;
  R.Ok = runThreads(A, *Run.P, S, Mem, O, Sink, R, NThreads) &&
         !R.Issues.hasErrors();
  if (R.Ok)
    for (std::size_t Rank = 0; Rank < Mem.size(); ++Rank)
      if (S.L.OutputCount)
        std::memmove(Outputs[Rank], Bytes(Rank, 1), S.L.OutputCount * Size);
  R.Summary = R.Ok ? fmt::format("{} on {} ranks, {} B: done", nameOf(A.Coll),
                                 A.NGpus, O.Bytes)
                   : notRunSummary(R.Issues);
  return R;
}

} // namespace tacclrt
