//===- runtime/cuda/CudaExecutor.cu - Run a plan on a GPU -----*- CUDA -*-===//
//
// runOnCuda() in the virtual-ranks mode:
//   1. a GPU must be there; the call is prepared and the host buffers filled
//      exactly as for the CPU executor (CallSetup, HostBuffers);
//   2. the plan is flattened (planForDevice: every range proven inside its
//      buffer) and copied to the device with the buffers, every rank's FIFO
//      memory, the connection counts, the block flags and the error word;
//   3. the kernel needs every block resident at once (blocks wait for each
//      other): the block size is lowered from 256 threads until the GPU can
//      hold them all, else the run is refused;
//   4. one launch, timed with events; a device-side timeout names the
//      blocked rank, threadblock, step and iteration;
//   5. the outputs come back and are checked element by element by the
//      CPU executor's own check.
// Device memory is released on every path (a guard owns it).
//
//===----------------------------------------------------------------------===//
#include "tacclrt/CudaExecutor.h"

#include "CallSetup.h"
#include "HostBuffers.h"
#include "IssueSink.h"
#include "Program.h"
#include "cuda/Interpreter.cuh"
#include "tacclrt/DevicePlan.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdint>
#include <vector>

namespace tacclrt {

namespace {

using cuda::DevView;

/// Owns device allocations; frees them all when it goes.
class DeviceMemory {
public:
  ~DeviceMemory() {
    for (void *P : Blocks)
      cudaFree(P);
  }
  /// Allocates \p Bytes (at least 16) zeroed bytes; nullptr on failure.
  void *zeroed(std::uint64_t Bytes) {
    void *P = nullptr;
    Bytes = std::max<std::uint64_t>(Bytes, 16);
    if (cudaMalloc(&P, Bytes) != cudaSuccess)
      return nullptr;
    Blocks.push_back(P);
    if (cudaMemset(P, 0, Bytes) != cudaSuccess)
      return nullptr;
    return P;
  }
  /// A device copy of \p N elements at \p Host; nullptr on failure.
  template <typename T> T *copy(const T *Host, std::size_t N) {
    T *P = static_cast<T *>(zeroed(N * sizeof(T)));
    if (P && N &&
        cudaMemcpy(P, Host, N * sizeof(T), cudaMemcpyHostToDevice) !=
            cudaSuccess)
      return nullptr;
    return P;
  }

private:
  std::vector<void *> Blocks;
};

std::string cudaWhy(cudaError_t E) {
  return fmt::format("{} ({})", cudaGetErrorString(E), cudaGetErrorName(E));
}

/// Launches the kernel for element type T; the error of the launch or run.
template <typename T>
cudaError_t launch(const DevView &V, unsigned Blocks, unsigned MinThreads,
                   double &Seconds, std::string &Why) {
  int Sms = 0, Dev = 0;
  cudaGetDevice(&Dev);
  cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, Dev);
  unsigned Threads = 256;
  for (;; Threads /= 2) {
    int PerSm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, cuda::interpret<T>,
                                                  int(Threads), 0);
    if (std::uint64_t(PerSm) * std::uint64_t(Sms) >= Blocks)
      break;
    if (Threads / 2 < MinThreads) {
      Why = fmt::format("the plan needs {} blocks resident at once; this GPU "
                        "holds {} x {} of {} threads",
                        Blocks, PerSm, Sms, Threads);
      return cudaErrorLaunchOutOfResources;
    }
  }
  cudaEvent_t Start, Stop;
  cudaEventCreate(&Start);
  cudaEventCreate(&Stop);
  cudaEventRecord(Start);
  cuda::interpret<T><<<Blocks, Threads>>>(V);
  cudaError_t E = cudaGetLastError();
  cudaEventRecord(Stop);
  if (E == cudaSuccess)
    E = cudaDeviceSynchronize();
  float Ms = 0;
  if (E == cudaSuccess)
    cudaEventElapsedTime(&Ms, Start, Stop);
  cudaEventDestroy(Start);
  cudaEventDestroy(Stop);
  Seconds = Ms / 1e3;
  return E;
}

cudaError_t launchFor(DataType Type, const DevView &V, unsigned Blocks,
                      double &Seconds, std::string &Why) {
  const unsigned Min = 32;
  switch (Type) {
  case DataType::Int8:
    return launch<std::int8_t>(V, Blocks, Min, Seconds, Why);
  case DataType::UInt8:
    return launch<std::uint8_t>(V, Blocks, Min, Seconds, Why);
  case DataType::Int32:
    return launch<std::int32_t>(V, Blocks, Min, Seconds, Why);
  case DataType::UInt32:
    return launch<std::uint32_t>(V, Blocks, Min, Seconds, Why);
  case DataType::Int64:
    return launch<std::int64_t>(V, Blocks, Min, Seconds, Why);
  case DataType::UInt64:
    return launch<std::uint64_t>(V, Blocks, Min, Seconds, Why);
  case DataType::Float16:
    return launch<__half>(V, Blocks, Min, Seconds, Why);
  case DataType::BFloat16:
    return launch<__nv_bfloat16>(V, Blocks, Min, Seconds, Why);
  case DataType::Float32:
    return launch<float>(V, Blocks, Min, Seconds, Why);
  case DataType::Float64:
    return launch<double>(V, Blocks, Min, Seconds, Why);
  }
  return cudaErrorInvalidValue;
}

int opCode(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return 0;
  case ReduceOp::Prod:
    return 1;
  case ReduceOp::Min:
    return 2;
  default:
    return 3;
  }
}

} // namespace

bool cudaInterpreterBuilt() { return true; }

RunResult runOnCuda(const Algo &A, const RunOptions &O, CudaMode,
                    std::string_view FileName) {
  RunResult R;
  IssueSink Sink(R.Issues, FileName);
  auto NotRun = [&] {
    R.Summary = "not run: " + firstError(R.Issues);
    return R;
  };
  // 1. A GPU, the call, the host buffers.
  int Devices = 0;
  cudaError_t E = cudaGetDeviceCount(&Devices);
  if (E != cudaSuccess || Devices == 0) {
    Sink.error(Where(),
               "no CUDA GPU is available (" +
                   (E != cudaSuccess ? cudaWhy(E) : std::string("0 devices")) +
                   ")");
    return NotRun();
  }
  std::optional<Program> P = buildProgram(A, Sink);
  CallSetup S;
  std::vector<CpuRankMemory> Mem;
  if (!P || !prepareCall(A, O, Sink, R.Issues, FileName, S) ||
      !allocateHostBuffers(A, S, Mem, Sink))
    return NotRun();
  // 2. The flat plan (its warnings were reported by prepareCall already).
  Report PlanIssues;
  std::optional<DevicePlan> D = planForDevice(A, O, PlanIssues, FileName);
  if (!D) {
    for (const Issue &I : PlanIssues)
      if (I.Sev == Issue::Error)
        R.Issues.add(I);
    return NotRun();
  }
  DeviceMemory Dm;
  const std::size_t NRanks = D->Ranks.size();
  std::vector<std::vector<char *>> Storage(NRanks);
  std::vector<char *> In(NRanks), Out(NRanks), Scr(NRanks), Fifo(NRanks);
  bool Ok = true;
  for (std::size_t Rank = 0; Rank < NRanks && Ok; ++Rank) {
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
    Ok = Fifo[Rank] != nullptr;
  }
  DevView V{};
  if (Ok) {
    V.Blocks = Dm.copy(D->Blocks.data(), D->Blocks.size());
    V.Ops = Dm.copy(D->Ops.data(), D->Ops.size());
    V.Deps = Dm.copy(D->Deps.data(), D->Deps.size());
    V.Conns = Dm.copy(D->Conns.data(), D->Conns.size());
    V.Input = Dm.copy(In.data(), NRanks);
    V.Output = Dm.copy(Out.data(), NRanks);
    V.Scratch = Dm.copy(Scr.data(), NRanks);
    V.Fifo = Dm.copy(Fifo.data(), NRanks);
    V.Posted = static_cast<unsigned long long *>(
        Dm.zeroed(D->Conns.size() * sizeof(unsigned long long)));
    V.Consumed = static_cast<unsigned long long *>(
        Dm.zeroed(D->Conns.size() * sizeof(unsigned long long)));
    V.Flags = static_cast<unsigned long long *>(
        Dm.zeroed(D->Blocks.size() * sizeof(unsigned long long)));
    V.Error = static_cast<int *>(Dm.zeroed(5 * sizeof(int)));
    Ok = V.Blocks && V.Ops && V.Deps && V.Conns && V.Input && V.Output &&
         V.Scratch && V.Fifo && V.Posted && V.Consumed && V.Flags && V.Error;
  }
  if (!Ok) {
    Sink.error(Where(), fmt::format("out of GPU memory placing the call "
                                    "({})",
                                    cudaWhy(cudaGetLastError())));
    return NotRun();
  }
  V.ChunkElems = D->ChunkElems;
  V.SliceElems = D->SliceElems;
  V.Iterations = D->Iterations;
  V.SlotBytes = D->SlotBytes;
  V.FifoSlots = D->FifoSlots;
  V.BlockBase = 0;
  V.Op = opCode(D->Op);
  V.TimeoutNs = static_cast<unsigned long long>(
      (O.WatchdogSeconds > 0 ? O.WatchdogSeconds : 3600.0) * 1e9);

  // 3, 4. One launch.
  std::string Why;
  E = launchFor(D->Type, V, unsigned(D->Blocks.size()), R.Seconds, Why);
  if (E != cudaSuccess) {
    Sink.error(Where(), Why.empty() ? "CUDA error: " + cudaWhy(E) : Why);
    return NotRun();
  }
  int Err[5] = {0, 0, 0, 0, 0};
  cudaMemcpy(Err, V.Error, sizeof(Err), cudaMemcpyDeviceToHost);
  if (Err[0] != cuda::NoError) {
    const DevBlock &B = D->Blocks[std::size_t(Err[1])];
    const TbProgram &T = P->Ranks[std::size_t(B.Rank)][std::size_t(B.Tb)];
    int Pos = T.Ops[std::size_t(Err[2])].Pos;
    Where W = stepWhere(A, B.Rank, B.Tb, Pos);
    W.Iteration = Err[3];
    const char *What = Err[4] == cuda::WaitDependency ? "a dependency"
                       : Err[4] == cuda::WaitMessage  ? "a message"
                                                      : "room to send";
    Sink.error(W, fmt::format("the GPU run hung: no progress for {} s while "
                              "waiting for {}",
                              O.WatchdogSeconds, What));
    return NotRun();
  }
  // 5. Results.
  for (std::size_t Rank = 0; Rank < NRanks; ++Rank)
    for (std::size_t K = 0; K < Mem[Rank].Storages.size(); ++K) {
      auto &St = Mem[Rank].Storages[K];
      cudaMemcpy(St.data(), Storage[Rank][K], St.size(),
                 cudaMemcpyDeviceToHost);
    }
  S.Cfg.Tracking = false; // the GPU keeps no record of writers
  verifyOutputs(A, S, Mem, Sink, R);
  R.Ok = !R.Issues.hasErrors();
  R.Summary = fmt::format(
      "{} on {} ranks (virtual, one GPU), {} B of {}{}: {} element(s) "
      "checked, {} wrong: {}",
      nameOf(A.Coll), NRanks, O.Bytes, nameOf(O.Type),
      isReduction(A.Coll) ? fmt::format(" ({})", nameOf(O.Op)) : "",
      R.ElementsChecked, R.WrongElements, R.Ok ? "ok" : "FAILED");
  return R;
}

} // namespace tacclrt
