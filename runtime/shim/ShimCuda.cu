//===- runtime/shim/ShimCuda.cu - Served calls on the CUDA interpreter ----===//
//
// The cuda backend (ShimBackend.h). Per communicator, on its GPU:
//   - an NCCL symmetric window of the real communicator (ncclMemAlloc +
//     ncclCommWindowRegister, collective, made at the first served call and
//     made again larger when a plan needs more; every rank makes the same
//     calls, so every rank gets there together) holding the connection
//     counts and then the FIFO slots; a one-thread kernel turns it into each
//     peer's address (ncclGetPeerPointer);
//   - block flags, a scratch buffer, a barrier word, and the error word in
//     mapped host memory;
//   - the flat plans (planForDevice) of the calls it served, by algorithm
//     and call, with their device copies and block size.
// A call then enqueues on the caller's stream only: clear the counts and
// flags, a one-word allreduce of the real NCCL as the barrier, and the
// interpreter kernel over the caller's own buffers (DevView::OwnBuffers).
// Nothing synchronises the host, so CUDA graph capture records the call as
// it is. A device watchdog timeout is reported by the communicator's next
// served call. Ranks driven by one thread (ncclCommInitAll) are declined:
// the window registration is collective and would block.
//
//===----------------------------------------------------------------------===//
#include "RealNccl.h"
#include "ShimBackend.h"

#include "cuda/CudaSupport.h"
#include "cuda/Interpreter.cuh"
#include "tacclrt/DevicePlan.h"

#include <nccl_device.h>

#include <fmt/format.h>

#include <map>
#include <mutex>

using namespace tacclrt;
using namespace tacclrt::shim;
using tacclrt::cuda::DevView;

namespace {

__global__ void resolveShimPeers(ncclWindow_t Win, int NRanks,
                                 std::uint64_t FifoOffset, char **Fifo,
                                 unsigned long long **Counts) {
  for (int P = int(threadIdx.x); P < NRanks; P += int(blockDim.x)) {
    Counts[P] =
        static_cast<unsigned long long *>(ncclGetPeerPointer(Win, 0, P));
    Fifo[P] = static_cast<char *>(ncclGetPeerPointer(Win, FifoOffset, P));
  }
}

std::uint64_t align4k(std::uint64_t X) { return (X + 4095) / 4096 * 4096; }

/// One plan on the device.
struct Placed {
  DevicePlan Plan;
  DevView View{};
  unsigned Threads = 0, Blocks = 0;
};

/// What the backend keeps for one communicator.
struct CommState {
  int Device = 0, Rank = 0, NRanks = 1;
  ncclComm_t Comm = nullptr;
  tacclrt::cuda::DeviceMemory Dm;
  void *WinBase = nullptr;
  ncclWindow_t Win = nullptr;
  std::uint64_t CountBytes = 0, FifoBytes = 0;
  char **Fifo = nullptr;
  unsigned long long **Counts = nullptr;
  unsigned long long *Flags = nullptr;
  std::uint64_t FlagCap = 0;
  char *Scratch = nullptr;
  std::uint64_t ScratchCap = 0;
  int *Barrier = nullptr, *Error = nullptr, *DevError = nullptr;
  std::map<std::string, std::unique_ptr<Placed>> Plans;

  ~CommState() {
    const RealNccl &R = realNccl();
    if (Win && R.ncclCommWindowDeregister)
      R.ncclCommWindowDeregister(Comm, Win);
    if (WinBase && R.ncclMemFree)
      R.ncclMemFree(WinBase);
  }
};

class CudaBackend : public ShimBackend {
public:
  const char *name() const override { return "cuda"; }

  /// One rank per thread, as PyTorch runs: the window registration of a
  /// communicator is collective and blocks, so ranks that one thread drives
  /// (ncclCommInitAll) would wait for each other; their calls go to NCCL.
  bool accepts(const CommInfo &C) const override { return !C.SharedProcess; }

  void forget(ncclComm_t Comm) override {
    std::lock_guard<std::mutex> Lock(M);
    States.erase(Comm);
  }

  ncclResult_t run(const CommInfo &C, const ServedCall &Call,
                   std::string &Why) override {
    std::lock_guard<std::mutex> Lock(M);
    cudaSetDevice(C.Device);
    CommState &S = state(C);
    if (S.Error && S.Error[0] != tacclrt::cuda::NoError) {
      Why = fmt::format("an earlier served call hung on the GPU (waiting for "
                        "{})",
                        tacclrt::cuda::waitName(S.Error[4]));
      S.Error[0] = tacclrt::cuda::NoError;
      return ncclInternalError;
    }
    RunOptions O;
    O.Type = *Call.Shape.Type;
    O.Op = Call.Shape.Op.value_or(ReduceOp::Sum);
    O.InPlace = Call.Shape.InPlace;
    O.Root = Call.Shape.Root;
    O.Bytes = AlgoRegistry::callBytes(Call.Shape, sizeOf(O.Type));
    const std::string Key =
        fmt::format("{}|{}|{}|{}|{}", Call.Algo->Path, O.Bytes, int(O.Type),
                    int(O.Op), O.InPlace);
    auto It = S.Plans.find(Key);
    if (It == S.Plans.end()) {
      std::unique_ptr<Placed> P = place(S, Call.Algo->A, O, Why);
      if (!P)
        return ncclInvalidUsage;
      It = S.Plans.emplace(Key, std::move(P)).first;
    }
    Placed &P = *It->second;
    DevView V = P.View;
    V.OwnBuffers = true;
    V.OwnInput = const_cast<char *>(static_cast<const char *>(Call.Send));
    V.OwnOutput = static_cast<char *>(Call.Recv);
    V.OwnScratch = S.Scratch;
    cudaStream_t St = Call.Stream;
    const RealNccl &R = realNccl();
    if (cudaMemsetAsync(S.WinBase, 0, S.CountBytes, St) != cudaSuccess ||
        cudaMemsetAsync(S.Flags, 0, S.FlagCap, St) != cudaSuccess ||
        !R.ncclAllReduce ||
        R.ncclAllReduce(S.Barrier, S.Barrier, 1, ncclInt32, ncclSum, S.Comm,
                        St) != ncclSuccess) {
      Why = "enqueueing the barrier before the kernel failed";
      return ncclUnhandledCudaError;
    }
    tacclrt::cuda::withElementType(O.Type, [&](auto Elem) {
      using T = decltype(Elem);
      tacclrt::cuda::interpret<T><<<P.Blocks, P.Threads, 0, St>>>(V);
      return 0;
    });
    if (cudaError_t E = cudaGetLastError(); E != cudaSuccess) {
      Why = "launching the interpreter: " + tacclrt::cuda::cudaWhy(E);
      return ncclUnhandledCudaError;
    }
    return ncclSuccess;
  }

private:
  std::mutex M;
  std::map<ncclComm_t, std::unique_ptr<CommState>> States;

  CommState &state(const CommInfo &C) {
    std::unique_ptr<CommState> &S = States[C.Comm];
    if (!S) {
      S = std::make_unique<CommState>();
      S->Device = C.Device;
      S->Rank = C.Rank;
      S->NRanks = C.NRanks;
      S->Comm = C.Comm;
    }
    return *S;
  }

  /// Flattens a call's plan, makes sure the window, flags and scratch are
  /// large enough, and copies the plan to the GPU.
  std::unique_ptr<Placed> place(CommState &S, const Algo &A,
                                const RunOptions &O, std::string &Why) {
    auto P = std::make_unique<Placed>();
    Report Issues;
    std::optional<DevicePlan> D = planForDevice(A, O, Issues);
    if (!D) {
      Why = Issues.empty() ? "the plan does not fit the call"
                           : format(*Issues.begin());
      return nullptr;
    }
    P->Plan = std::move(*D);
    const DevicePlan &Pl = P->Plan;
    const DevRank &Me = Pl.Ranks[std::size_t(S.Rank)];
    std::uint64_t MaxFifo = 0;
    for (const DevRank &Rk : Pl.Ranks)
      MaxFifo = std::max(MaxFifo, Rk.FifoBytes);
    const std::uint64_t Counts =
        align4k(std::max<std::uint64_t>(2 * Pl.Conns.size() * 8, 16));
    if (!growWindow(S, Counts, align4k(std::max<std::uint64_t>(MaxFifo, 16)),
                    Why))
      return nullptr;
    const std::uint64_t FlagBytes = Pl.Blocks.size() * 8;
    if (FlagBytes > S.FlagCap) {
      S.Flags = static_cast<unsigned long long *>(S.Dm.zeroed(FlagBytes));
      S.FlagCap = FlagBytes;
    }
    const std::uint64_t ScratchBytes = Me.ScratchElems * Pl.TypeSize;
    if (ScratchBytes > S.ScratchCap) {
      S.Scratch = static_cast<char *>(S.Dm.zeroed(ScratchBytes));
      S.ScratchCap = ScratchBytes;
    }
    if (!S.Barrier)
      S.Barrier = static_cast<int *>(S.Dm.zeroed(sizeof(int)));
    if (!S.Error) {
      S.Error = static_cast<int *>(S.Dm.mapped(5 * sizeof(int)));
      if (S.Error)
        cudaHostGetDevicePointer(reinterpret_cast<void **>(&S.DevError),
                                 S.Error, 0);
    }
    std::vector<std::uint32_t> Mine;
    for (std::uint32_t B = 0; B < Me.NumBlocks; ++B)
      Mine.push_back(Me.FirstBlock + B);
    std::vector<unsigned long long *> FlagPtrs(Pl.Ranks.size(), nullptr);
    FlagPtrs[std::size_t(S.Rank)] = S.Flags;
    DevView &V = P->View;
    V.Blocks = S.Dm.copy(Pl.Blocks.data(), Pl.Blocks.size());
    V.Ops = S.Dm.copy(Pl.Ops.data(), Pl.Ops.size());
    V.Deps = S.Dm.copy(Pl.Deps.data(), Pl.Deps.size());
    V.Conns = S.Dm.copy(Pl.Conns.data(), Pl.Conns.size());
    V.BlockList = S.Dm.copy(Mine.data(), Mine.size());
    V.Flags = S.Dm.copy(FlagPtrs.data(), FlagPtrs.size());
    V.Fifo = S.Fifo;
    V.Counts = S.Counts;
    V.Error = S.DevError;
    V.ChunkElems = Pl.ChunkElems;
    V.SliceElems = Pl.SliceElems;
    V.Iterations = Pl.Iterations;
    V.SlotBytes = Pl.SlotBytes;
    V.FifoSlots = Pl.FifoSlots;
    V.Op = tacclrt::cuda::opCode(Pl.Op);
    V.TimeoutNs = 60ull * 1000000000ull;
    if (!S.Flags || !S.Barrier || !S.DevError || !V.Blocks || !V.Ops ||
        !V.Deps || !V.Conns || !V.BlockList || !V.Flags ||
        (ScratchBytes && !S.Scratch)) {
      Why = "out of GPU memory for the plan";
      return nullptr;
    }
    P->Blocks = unsigned(Mine.size());
    P->Threads = tacclrt::cuda::withElementType(Pl.Type, [&](auto Elem) {
      return tacclrt::cuda::residentBlockSize(
          tacclrt::cuda::interpret<decltype(Elem)>, S.Device, P->Blocks, Why);
    });
    if (P->Threads == 0)
      return nullptr;
    return P;
  }

  /// Makes the window hold \p Counts bytes of counts and \p Fifo bytes of
  /// FIFO slots (collective: every rank gets here at the same call).
  bool growWindow(CommState &S, std::uint64_t Counts, std::uint64_t Fifo,
                  std::string &Why) {
    if (S.Win && Counts <= S.CountBytes && Fifo <= S.FifoBytes)
      return true;
    const RealNccl &R = realNccl();
    if (!R.ncclMemAlloc || !R.ncclCommWindowRegister) {
      Why = "the real NCCL has no symmetric windows (2.28 or later needed)";
      return false;
    }
    if (S.Win) {
      cudaDeviceSynchronize(); // the old window may still be in use
      R.ncclCommWindowDeregister(S.Comm, S.Win);
      R.ncclMemFree(S.WinBase);
      S.Win = nullptr;
      S.WinBase = nullptr;
    }
    S.CountBytes = std::max(Counts, S.CountBytes);
    S.FifoBytes = std::max(Fifo, S.FifoBytes);
    const std::uint64_t Bytes = S.CountBytes + S.FifoBytes;
    if (R.ncclMemAlloc(&S.WinBase, Bytes) != ncclSuccess ||
        cudaMemset(S.WinBase, 0, Bytes) != cudaSuccess ||
        R.ncclCommWindowRegister(S.Comm, S.WinBase, Bytes, &S.Win,
                                 /*NCCL_WIN_COLL_SYMMETRIC*/ 1) !=
            ncclSuccess) {
      Why = "cannot register an NCCL symmetric window of " +
            std::to_string(Bytes) + " B";
      return false;
    }
    if (!S.Fifo) {
      S.Fifo = static_cast<char **>(
          S.Dm.zeroed(std::size_t(S.NRanks) * sizeof(char *)));
      S.Counts = static_cast<unsigned long long **>(
          S.Dm.zeroed(std::size_t(S.NRanks) * sizeof(void *)));
    }
    if (!S.Fifo || !S.Counts) {
      Why = "out of GPU memory";
      return false;
    }
    resolveShimPeers<<<1, 32>>>(S.Win, S.NRanks, S.CountBytes, S.Fifo,
                                S.Counts);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      Why = "resolving the peers' window addresses failed";
      return false;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<ShimBackend> tacclrt::shim::makeCudaBackend() {
  return std::make_unique<CudaBackend>();
}
