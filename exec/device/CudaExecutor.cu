//===- exec/device/CudaExecutor.cu - Run a plan on GPUs --------*- CUDA -*-===//
//
// runOnCuda(): every rank on one GPU (VirtualRanks), or rank r on GPU
// r % (visible GPUs) (SpreadRanks, peer access between them):
//   1. the GPUs must be there (and reach each other's memory); the call is
//      prepared and the host buffers filled exactly as for the CPU executor
//      (CallSetup, HostBuffers);
//   2. the plan is flattened (planForDevice: every range proven inside its
//      buffer);
//   3. each rank's buffers, FIFO memory, connection counts and block flags
//      go to its GPU; each GPU gets its own copy of the plan, the per-rank
//      pointers and its list of blocks; the error word is host memory that
//      every GPU maps;
//   4. one launch per GPU, all at once (blocks wait for each other across
//      GPUs, so every block must be resident: the block size is lowered from
//      256 threads until each GPU holds its blocks, else the run is
//      refused), timed with events; a device watchdog names the blocked
//      rank, threadblock, step and iteration;
//   5. the outputs come back and are checked element by element by the CPU
//      executor's own check.
// Device memory is released on every path (a guard owns it).
//
//===----------------------------------------------------------------------===//
#include "exec/device/CudaExecutor.h"

#include "exec/CallSetup.h"
#include "exec/HostBuffers.h"
#include "exec/device/CudaSupport.h"
#include "exec/device/DevicePlan.h"
#include "exec/device/Interpreter.cuh"
#include "exec/device/PlanPrepared.h"
#include "format/IssueSink.h"
#include "format/Program.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tacclrt {

namespace {

using cuda::cudaWhy;
using cuda::DeviceMemory;
using cuda::DevView;

/// One GPU's launch: its view of the plan and its blocks.
struct Launch {
  int Device = 0;
  DevView View{};
  unsigned NumBlocks = 0;
};

/// Launches the kernel for element type T on every GPU at once (their
/// blocks wait for each other), then waits for all. Each launch needs all
/// its blocks resident: the block size is lowered from 256 threads until
/// the GPU holds them, else the run is refused (\p Why).
template <typename T>
cudaError_t launchAll(const std::vector<Launch> &Ls, double &Seconds,
                      std::string &Why) {
  std::vector<unsigned> Threads(Ls.size(), 256);
  for (std::size_t I = 0; I < Ls.size(); ++I) {
    cudaSetDevice(Ls[I].Device);
    Threads[I] = cuda::residentBlockSize(cuda::interpret<T>, Ls[I].Device,
                                         Ls[I].NumBlocks, Why);
    if (Threads[I] == 0)
      return cudaErrorLaunchOutOfResources;
  }
  std::vector<cudaEvent_t> Start(Ls.size()), Stop(Ls.size());
  cudaError_t E = cudaSuccess;
  for (std::size_t I = 0; I < Ls.size() && E == cudaSuccess; ++I) {
    cudaSetDevice(Ls[I].Device);
    cudaEventCreate(&Start[I]);
    cudaEventCreate(&Stop[I]);
    cudaEventRecord(Start[I]);
    cuda::interpret<T><<<Ls[I].NumBlocks, Threads[I]>>>(Ls[I].View);
    E = cudaGetLastError();
    cudaEventRecord(Stop[I]);
  }
  Seconds = 0;
  for (std::size_t I = 0; I < Ls.size(); ++I) {
    cudaSetDevice(Ls[I].Device);
    cudaError_t Sync = cudaDeviceSynchronize();
    if (E == cudaSuccess)
      E = Sync;
    float Ms = 0;
    if (E == cudaSuccess &&
        cudaEventElapsedTime(&Ms, Start[I], Stop[I]) == cudaSuccess)
      Seconds = std::max(Seconds, Ms / 1e3);
    cudaEventDestroy(Start[I]);
    cudaEventDestroy(Stop[I]);
  }
  return E;
}

/// Each rank's memory on its GPU: its storages and the pointers to its
/// buffers, FIFO memory, connection counts and block flags.
struct RankPointers {
  std::vector<std::vector<char *>> Storage;
  std::vector<char *> In, Out, Scr, Fifo;
  std::vector<unsigned long long *> Counts, Flags;

  /// Empty pointers for \p NRanks ranks.
  explicit RankPointers(std::size_t NRanks)
      : Storage(NRanks), In(NRanks), Out(NRanks), Scr(NRanks), Fifo(NRanks),
        Counts(NRanks), Flags(NRanks) {}
};

/// Step 1b: every GPU reaches every other's memory (FIFO slots and counts);
/// false when one does not (reported).
bool enablePeerAccess(int Used, IssueSink &Sink) {
  for (int X = 0; X < Used; ++X)
    for (int Y = 0; Y < Used; ++Y) {
      int Can = 0;
      if (X == Y)
        continue;
      cudaDeviceCanAccessPeer(&Can, X, Y);
      cudaSetDevice(X);
      if (!Can || (cudaDeviceEnablePeerAccess(Y, 0) != cudaSuccess &&
                   cudaGetLastError() != cudaErrorPeerAccessAlreadyEnabled)) {
        Sink.report<MsgId::NoPeerAccess>(Where(), X, Y);
        return false;
      }
    }
  return true;
}

/// Step 3a: copies each rank's buffers to its GPU and gives it zeroed FIFO
/// memory, counts and flags; false when the GPU memory ran out.
bool copyRanks(DeviceMemory &Dm, const std::vector<CpuRankMemory> &Mem,
               const DevicePlan *D, int Used, RankPointers &Rp) {
  const std::size_t NRanks = D->Ranks.size();
  auto DeviceOf = [&](std::size_t Rank) { return int(Rank % Used); };
  std::vector<std::vector<char *>> &Storage = Rp.Storage;
  std::vector<char *> &In = Rp.In, &Out = Rp.Out, &Scr = Rp.Scr,
                      &Fifo = Rp.Fifo;
  std::vector<unsigned long long *> &Counts = Rp.Counts, &Flags = Rp.Flags;
  bool Ok = true;
  for (std::size_t Rank = 0; Rank < NRanks && Ok; ++Rank) {
    cudaSetDevice(DeviceOf(Rank));
    for (const auto &St : Mem[Rank].Storages) {
      char *Dev = reinterpret_cast<char *>(Dm.copy(St.data(), St.size()));
      Ok = Ok && Dev;
      Storage[Rank].push_back(Dev);
    }
    if (!Ok)
      break;
    auto PtrOf = [&](const CpuView &V) {
      return Storage[Rank][V.Storage] + V.Base * D->TypeSize;
    };
    In[Rank] = PtrOf(Mem[Rank].Views[0]);
    Out[Rank] = PtrOf(Mem[Rank].Views[1]);
    Scr[Rank] = PtrOf(Mem[Rank].Views[2]);
    Fifo[Rank] = static_cast<char *>(Dm.zeroed(D->Ranks[Rank].FifoBytes));
    Counts[Rank] = static_cast<unsigned long long *>(
        Dm.zeroed(2 * D->Conns.size() * sizeof(unsigned long long)));
    Flags[Rank] = static_cast<unsigned long long *>(
        Dm.zeroed(D->Blocks.size() * sizeof(unsigned long long)));
    Ok = Fifo[Rank] && Counts[Rank] && Flags[Rank];
  }
  return Ok;
}

/// Step 3b: each GPU's copy of the plan and of the per-rank pointers, and
/// its blocks; false when the GPU memory ran out.
bool makeLaunches(DeviceMemory &Dm, const DevicePlan *D, const RunOptions &O,
                  int Used, const RankPointers &Rp, int *DevError,
                  std::vector<Launch> &Ls) {
  const std::size_t NRanks = D->Ranks.size();
  auto DeviceOf = [&](std::size_t Rank) { return int(Rank % Used); };
  const std::vector<char *> &In = Rp.In, &Out = Rp.Out, &Scr = Rp.Scr,
                            &Fifo = Rp.Fifo;
  const std::vector<unsigned long long *> &Counts = Rp.Counts,
                                          &Flags = Rp.Flags;
  bool Ok = true;
  for (int G = 0; G < Used && Ok; ++G) {
    cudaSetDevice(G);
    std::vector<std::uint32_t> Mine;
    for (std::size_t Rank = 0; Rank < NRanks; ++Rank)
      if (DeviceOf(Rank) == G)
        for (std::uint32_t B = 0; B < D->Ranks[Rank].NumBlocks; ++B)
          Mine.push_back(D->Ranks[Rank].FirstBlock + B);
    Launch &L = Ls[std::size_t(G)];
    L.Device = G;
    L.NumBlocks = unsigned(Mine.size());
    DevView &V = L.View;
    V.Blocks = Dm.copy(D->Blocks.data(), D->Blocks.size());
    V.Ops = Dm.copy(D->Ops.data(), D->Ops.size());
    V.Deps = Dm.copy(D->Deps.data(), D->Deps.size());
    V.Conns = Dm.copy(D->Conns.data(), D->Conns.size());
    V.BlockList = Dm.copy(Mine.data(), Mine.size());
    V.Input = Dm.copy(In.data(), NRanks);
    V.Output = Dm.copy(Out.data(), NRanks);
    V.Scratch = Dm.copy(Scr.data(), NRanks);
    V.Fifo = Dm.copy(Fifo.data(), NRanks);
    V.Counts = Dm.copy(Counts.data(), NRanks);
    V.Flags = Dm.copy(Flags.data(), NRanks);
    V.Error = DevError;
    V.ChunkElems = D->ChunkElems;
    V.SliceElems = D->SliceElems;
    V.Iterations = D->Iterations;
    V.SlotBytes = D->SlotBytes;
    V.FifoSlots = D->FifoSlots;
    V.Proto = D->Proto;
    V.Op = cuda::opCode(D->Op);
    V.TimeoutNs = static_cast<unsigned long long>(
        (O.WatchdogSeconds > 0 ? O.WatchdogSeconds : 3600.0) * 1e9);
    Ok = V.Blocks && V.Ops && V.Deps && V.Conns && V.BlockList && V.Input &&
         V.Output && V.Scratch && V.Fifo && V.Counts && V.Flags;
  }
  return Ok;
}

/// Step 5a: copies each rank's storages back from its GPU.
void copyBack(std::vector<CpuRankMemory> &Mem, const RankPointers &Rp,
              std::size_t NRanks, int Used) {
  auto DeviceOf = [&](std::size_t Rank) { return int(Rank % Used); };
  const std::vector<std::vector<char *>> &Storage = Rp.Storage;
  for (std::size_t Rank = 0; Rank < NRanks; ++Rank) {
    cudaSetDevice(DeviceOf(Rank));
    for (std::size_t K = 0; K < Mem[Rank].Storages.size(); ++K) {
      auto &St = Mem[Rank].Storages[K];
      cudaMemcpy(St.data(), Storage[Rank][K], St.size(),
                 cudaMemcpyDeviceToHost);
    }
  }
}

} // namespace

bool cudaInterpreterBuilt() { return true; }

RunResult runOnCuda(const Algo &A, const RunOptions &O, CudaMode Mode,
                    std::string_view FileName) {
  RunResult R;
  IssueSink Sink(R.Issues, FileName);
  auto NotRun = [&] {
    R.Summary = notRunSummary(R.Issues);
    return R;
  };
  // 1. GPUs, the call, the host buffers; 2. the flat plan.
  int Devices = 0;
  cudaError_t E = cudaGetDeviceCount(&Devices);
  if (E != cudaSuccess || Devices == 0) {
    Sink.report<MsgId::NoCudaGpu>(
        Where(), E != cudaSuccess ? cudaWhy(E) : std::string("0 devices"));
    return NotRun();
  }
  std::optional<PreparedDeviceRun> Prepared =
      prepareDeviceRun(A, O, Sink, R.Issues, FileName);
  if (!Prepared)
    return NotRun();
  const std::optional<Program> &P = Prepared->Run.P;
  CallSetup &S = Prepared->Run.S;
  std::vector<CpuRankMemory> &Mem = Prepared->Run.Mem;
  DevicePlan *D = &Prepared->Plan;
  const std::size_t NRanks = D->Ranks.size();
  const int Used = Mode == CudaMode::VirtualRanks
                       ? 1
                       : static_cast<int>(std::min<std::size_t>(
                             std::size_t(Devices), NRanks));
  // Every GPU reaches every other's memory (FIFO slots and counts).
  if (!enablePeerAccess(Used, Sink))
    return NotRun();

  // 3. Memory: each rank's buffers, FIFO memory, counts and flags on its
  //    GPU; the error word in host memory every GPU maps.
  DeviceMemory Dm;
  RankPointers Rp(NRanks);
  bool Ok = copyRanks(Dm, Mem, D, Used, Rp);
  int *Error = Ok ? static_cast<int *>(Dm.mapped(5 * sizeof(int))) : nullptr;
  int *DevError = nullptr;
  Ok = Ok && Error &&
       cudaHostGetDevicePointer(reinterpret_cast<void **>(&DevError), Error,
                                0) == cudaSuccess;
  // Each GPU's copy of the plan and of the per-rank pointers, and its
  // blocks.
  std::vector<Launch> Ls(std::size_t(std::max(Used, 0)));
  Ok = Ok && makeLaunches(Dm, D, O, Used, Rp, DevError, Ls);
  if (!Ok) {
    Sink.report<MsgId::OutOfGpuMemory>(Where(), cudaWhy(cudaGetLastError()));
    return NotRun();
  }

  // 4. One launch per GPU, all at once.
  std::string Why;
  E = cuda::withElementType(D->Type, [&](auto Elem) {
    return launchAll<decltype(Elem)>(Ls, R.Seconds, Why);
  });
  if (E != cudaSuccess) {
    Sink.report(Where(), Why.empty() ? message<MsgId::CudaError>(cudaWhy(E))
                                     : message<MsgId::DeviceFailure>(Why));
    return NotRun();
  }
  if (Error[0] != cuda::NoError) {
    const DevBlock &B = D->Blocks[std::size_t(Error[1])];
    const TbProgram &T = P->Ranks[std::size_t(B.Rank)][std::size_t(B.Tb)];
    Where W = stepWhere(A, B.Rank, B.Tb, T.Ops[std::size_t(Error[2])].Pos);
    W.Iteration = Error[3];
    Sink.report<MsgId::GpuRunHung>(W, O.WatchdogSeconds,
                                   cuda::waitName(Error[4]));
    return NotRun();
  }
  // 5. Results.
  copyBack(Mem, Rp, NRanks, Used);
  S.Cfg.Tracking = false; // the GPU keeps no record of writers
  if (O.Verify)
    verifyOutputs(A, S, Mem, Sink, R);
  R.Ok = !R.Issues.hasErrors();
  R.Summary = fmt::format(
      "{} on {} ranks ({} GPU{}), {} B of {}{}: {} element(s) checked, {} "
      "wrong: {}",
      nameOf(A.Coll), NRanks, Used, Used == 1 ? "" : "s", O.Bytes,
      nameOf(O.Type),
      isReduction(A.Coll) ? fmt::format(" ({})", nameOf(O.Op)) : "",
      R.ElementsChecked, R.WrongElements, R.Ok ? "ok" : "FAILED");
  return R;
}

} // namespace tacclrt
