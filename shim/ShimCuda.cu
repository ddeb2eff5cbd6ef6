//===- shim/ShimCuda.cu - Served calls on the CUDA interpreter ------------===//
//
// The cuda backend (ShimBackend.h). Per communicator, on its GPU:
//   - an NCCL symmetric window of the real communicator (ncclMemAlloc +
//     ncclCommWindowRegister, collective), made once at the first served
//     call, large enough for every loaded algorithm of the communicator's
//     size, so it never has to grow (a captured graph keeps its addresses);
//     it holds the connection counts, then the FIFO slots; a one-thread
//     kernel on a private stream turns it into each peer's address
//     (ncclGetPeerPointer). Only communicators whose ranks all reach each
//     other by loads and stores (ncclTeamLsa) are accepted;
//   - a barrier word, the error word in mapped host memory, a scratch
//     buffer, and per plan (algorithm and call) its flat form on the
//     device with block flags of its own.
// A call then enqueues on the caller's stream only: wait for the
// communicator's previous served call (an event; not while capturing),
// clear the counts and the plan's flags, a one-word allreduce of the real
// NCCL as the barrier, the interpreter kernel over the caller's own buffers
// (DevView::OwnBuffers), and the event. Setting up a plan allocates, so a
// call whose plan is new is forwarded while its stream is being captured
// (every rank decides the same way); warm it up once before capturing. A
// device watchdog timeout is reported by the communicator's next served
// call, which still takes part in the barrier. Ranks driven by one thread
// (ncclCommInitAll) are declined: the window registration is collective and
// would block that thread.
//
//===----------------------------------------------------------------------===//
#include "shim/RealNccl.h"
#include "shim/ShimBackend.h"

#include "exec/device/CudaSupport.h"
#include "exec/device/DevicePlan.h"
#include "exec/device/Interpreter.cuh"
#include "exec/device/PeerWindow.cuh"
#include "format/Collective.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

using namespace tacclrt;
using namespace tacclrt::shim;
using tacclrt::cuda::DevView;

namespace {

std::uint64_t align4k(std::uint64_t X) { return (X + 4095) / 4096 * 4096; }

/// Restores the calling thread's current device when it goes.
struct DeviceGuard {
  int Saved = 0;
  explicit DeviceGuard(int Device) {
    cudaGetDevice(&Saved);
    cudaSetDevice(Device);
  }
  ~DeviceGuard() { cudaSetDevice(Saved); }
};

/// One plan on the device, with block flags of its own.
struct Placed {
  DevicePlan Plan;
  DevView View{};
  unsigned long long *Flags = nullptr;
  std::uint64_t FlagBytes = 0;
  /// Bytes of the window cleared before each call: the counts, and under
  /// LL and LL128 also this rank's FIFO lines (an old line's flag would
  /// match a new call's step).
  std::uint64_t ResetBytes = 0;
  unsigned Threads = 0, Blocks = 0;
};

/// What the backend keeps for one communicator.
struct CommState {
  int Device = 0, Rank = 0, NRanks = 1;
  ncclComm_t Comm = nullptr;
  bool Aborting = false;
  tacclrt::cuda::DeviceMemory Dm;
  void *WinBase = nullptr;
  ncclWindow_t Win = nullptr;
  std::uint64_t CountBytes = 0, FifoBytes = 0;
  char **Fifo = nullptr;
  unsigned long long **Counts = nullptr;
  char *Scratch = nullptr;
  std::uint64_t ScratchCap = 0;
  int *Barrier = nullptr, *Error = nullptr, *DevError = nullptr;
  cudaEvent_t Last = nullptr; ///< After the latest served kernel.
  std::map<std::string, std::unique_ptr<Placed>> Plans;

  ~CommState() {
    DeviceGuard G(Device);
    if (Last) {
      cudaEventSynchronize(Last); // kernels may still use the memory
      cudaEventDestroy(Last);
    }
    const RealNccl &R = realNccl();
    if (Win && !Aborting && R.ncclCommWindowDeregister)
      R.ncclCommWindowDeregister(Comm, Win);
    if (WinBase && !Aborting && R.ncclMemFree)
      R.ncclMemFree(WinBase);
  }
};

bool capturing(cudaStream_t St) {
  cudaStreamCaptureStatus Status = cudaStreamCaptureStatusNone;
  cudaStreamIsCapturing(St, &Status);
  return Status != cudaStreamCaptureStatusNone;
}

/// The call's run options.
RunOptions optionsOf(const CallShape &C) {
  RunOptions O;
  O.Type = *C.Type;
  O.Op = C.Op.value_or(ReduceOp::Sum);
  O.InPlace = C.InPlace;
  O.Root = C.Root;
  O.Bytes = AlgoRegistry::callBytes(C, sizeOf(O.Type));
  return O;
}

/// What tells one call's flat plan from another's.
std::string planKey(const ServedCall &Call) {
  const RunOptions O = optionsOf(Call.Shape);
  return fmt::format("{}|{}|{}|{}|{}|{}", Call.Algo->Path, O.Bytes, int(O.Type),
                     int(O.Op), O.InPlace, O.Root);
}

class CudaBackend : public ShimBackend {
public:
  const char *name() const override { return "cuda"; }
  const char *scope() const override {
    return "on one node (one NVLink domain)";
  }

  Decline declines(const CommInfo &C) const override {
    if (C.SharedProcess)
      return Decline::SharedProcess;
    if (C.Rank < 0)
      return Decline::Unknown;
    const RealNccl &R = realNccl();
    // Peers by loads and stores only (one NVLink domain).
    if (!R.ncclTeamLsa)
      return Decline::NoLsaTeam;
    return R.ncclTeamLsa(C.Comm).nRanks == C.NRanks ? Decline::None
                                                    : Decline::SpansNodes;
  }

  void forget(ncclComm_t Comm, bool Aborting) override {
    std::lock_guard<std::mutex> Lock(M);
    auto It = States.find(Comm);
    if (It == States.end())
      return;
    It->second->Aborting = Aborting;
    States.erase(It);
  }

  /// Setting up a plan allocates, which a stream being captured must not
  /// see: a call whose plan is new waits for an uncaptured call.
  bool ready(const CommInfo &C, const ServedCall &Call) override {
    std::lock_guard<std::mutex> Lock(M);
    if (!capturing(Call.Stream))
      return true;
    auto S = States.find(C.Comm);
    return S != States.end() && S->second->Plans.count(planKey(Call));
  }

  ncclResult_t run(const CommInfo &C, const ServedCall &Call,
                   std::string &Why) override {
    std::lock_guard<std::mutex> Lock(M);
    DeviceGuard G(C.Device);
    CommState &S = state(C);
    const RunOptions O = optionsOf(Call.Shape);
    const bool Captured = capturing(Call.Stream);
    auto It = S.Plans.find(planKey(Call));
    if (It == S.Plans.end()) {
      if (!S.Win && !makeWindow(S, C, *Call.All, Why))
        return ncclInternalError;
      std::unique_ptr<Placed> P = place(S, Call.Algo->A, O, Why);
      if (!P)
        return ncclInvalidUsage;
      It = S.Plans.emplace(planKey(Call), std::move(P)).first;
    }
    // A hang of an earlier call: reported now, after this call's part of
    // the barrier is enqueued like every rank's.
    const bool Hung = S.Error[0] != tacclrt::cuda::NoError;
    const int WaitedFor = S.Error[4];
    S.Error[0] = tacclrt::cuda::NoError;
    Placed &P = *It->second;
    DevView V = P.View;
    V.OwnBuffers = true;
    V.OwnInput = const_cast<char *>(static_cast<const char *>(Call.Send));
    V.OwnOutput = static_cast<char *>(Call.Recv);
    V.OwnScratch = S.Scratch;
    cudaStream_t St = Call.Stream;
    const RealNccl &R = realNccl();
    if (!Captured && S.Last)
      cudaStreamWaitEvent(St, S.Last, 0);
    if (cudaMemsetAsync(S.WinBase, 0, P.ResetBytes, St) != cudaSuccess ||
        cudaMemsetAsync(P.Flags, 0, P.FlagBytes, St) != cudaSuccess ||
        !R.ncclAllReduce ||
        R.ncclAllReduce(S.Barrier, S.Barrier, 1, ncclInt32, ncclSum, S.Comm,
                        St) != ncclSuccess) {
      Why = "enqueueing the barrier before the kernel failed";
      return ncclUnhandledCudaError;
    }
    tacclrt::cuda::withElementType(O.Type, [&](auto Elem) {
      tacclrt::cuda::interpret<decltype(Elem)>
          <<<P.Blocks, P.Threads, 0, St>>>(V);
      return 0;
    });
    if (cudaError_t E = cudaGetLastError(); E != cudaSuccess) {
      Why = "launching the interpreter: " + tacclrt::cuda::cudaWhy(E);
      return ncclUnhandledCudaError;
    }
    if (!Captured)
      cudaEventRecord(S.Last, St);
    if (Hung) {
      Why = fmt::format("an earlier served call hung on the GPU (waiting "
                        "for {})",
                        tacclrt::cuda::waitName(WaitedFor));
      return ncclInternalError;
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

  /// The window, once: sized for every algorithm of this many ranks at
  /// its largest call (FIFO slots grow with the slice, up to the protocol's
  /// slice); plus the barrier, error word and event.
  bool makeWindow(CommState &S, const CommInfo &C,
                  const std::vector<LoadedAlgo> &All, std::string &Why) {
    std::uint64_t Counts = 16, Fifo = 16;
    for (const LoadedAlgo &L : All) {
      if (L.A.NGpus != C.NRanks)
        continue;
      RunOptions O;
      O.Type = DataType::Float64;
      O.InPlace = !L.A.OutOfPlace;
      const std::uint64_t Unit =
          std::uint64_t(std::max(L.A.NChunksPerLoop, 1)) *
          std::uint64_t(C.NRanks) * 8;
      O.Bytes =
          std::max<std::uint64_t>(Unit, (std::uint64_t(1) << 30) / Unit * Unit);
      Report Ignored;
      if (std::optional<DevicePlan> D = planForDevice(L.A, O, Ignored)) {
        Counts = std::max<std::uint64_t>(Counts, 2 * D->Conns.size() * 8);
        for (const DevRank &Rk : D->Ranks)
          Fifo = std::max(Fifo, Rk.FifoBytes);
      }
    }
    S.CountBytes = align4k(Counts);
    S.FifoBytes = align4k(Fifo);
    const std::uint64_t Bytes = S.CountBytes + S.FifoBytes;
    const RealNccl &R = realNccl();
    cudaStream_t Private = nullptr;
    bool Ok = R.ncclMemAlloc && R.ncclCommWindowRegister &&
              R.ncclMemAlloc(&S.WinBase, Bytes) == ncclSuccess &&
              cudaMemset(S.WinBase, 0, Bytes) == cudaSuccess &&
              R.ncclCommWindowRegister(S.Comm, S.WinBase, Bytes, &S.Win,
                                       /*NCCL_WIN_COLL_SYMMETRIC*/ 1) ==
                  ncclSuccess &&
              S.Win != nullptr;
    if (!Ok) {
      Why = "cannot register an NCCL symmetric window of " +
            std::to_string(Bytes) + " B (NCCL 2.28 or later, cuMem)";
      return false;
    }
    S.Fifo = static_cast<char **>(
        S.Dm.zeroed(std::size_t(S.NRanks) * sizeof(char *)));
    S.Counts = static_cast<unsigned long long **>(
        S.Dm.zeroed(std::size_t(S.NRanks) * sizeof(void *)));
    S.Barrier = static_cast<int *>(S.Dm.zeroed(sizeof(int)));
    S.Error = static_cast<int *>(S.Dm.mapped(5 * sizeof(int)));
    if (!S.Fifo || !S.Counts || !S.Barrier || !S.Error ||
        cudaHostGetDevicePointer(reinterpret_cast<void **>(&S.DevError),
                                 S.Error, 0) != cudaSuccess ||
        cudaEventCreateWithFlags(&S.Last, cudaEventDisableTiming) !=
            cudaSuccess ||
        cudaStreamCreateWithFlags(&Private, cudaStreamNonBlocking) !=
            cudaSuccess) {
      Why = "out of GPU memory";
      return false;
    }
    tacclrt::cuda::resolvePeerWindow<<<1, 32, 0, Private>>>(
        S.Win, S.NRanks, S.CountBytes, S.Fifo, S.Counts);
    Ok = cudaStreamSynchronize(Private) == cudaSuccess;
    cudaStreamDestroy(Private);
    if (!Ok)
      Why = "resolving the peers' window addresses failed";
    return Ok;
  }

  /// Flattens a call's plan and copies it to the GPU with its own flags.
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
    if (2 * Pl.Conns.size() * 8 > S.CountBytes || MaxFifo > S.FifoBytes) {
      Why = "the call needs a larger window than was sized";
      return nullptr;
    }
    P->FlagBytes = std::max<std::uint64_t>(Pl.Blocks.size() * 8, 8);
    P->ResetBytes = S.CountBytes + (usesLines(Pl.Proto) ? Me.FifoBytes : 0);
    P->Flags = static_cast<unsigned long long *>(S.Dm.zeroed(P->FlagBytes));
    const std::uint64_t ScratchBytes = Me.ScratchElems * Pl.TypeSize;
    if (ScratchBytes > S.ScratchCap) {
      // Kernels queued earlier may still use the old scratch: it stays.
      S.Scratch = static_cast<char *>(S.Dm.zeroed(ScratchBytes));
      S.ScratchCap = ScratchBytes;
    }
    std::vector<std::uint32_t> Mine;
    for (std::uint32_t B = 0; B < Me.NumBlocks; ++B)
      Mine.push_back(Me.FirstBlock + B);
    std::vector<unsigned long long *> FlagPtrs(Pl.Ranks.size(), nullptr);
    FlagPtrs[std::size_t(S.Rank)] = P->Flags;
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
    V.Proto = Pl.Proto;
    V.Op = tacclrt::cuda::opCode(Pl.Op);
    V.TimeoutNs = 60ull * 1000000000ull;
    if (!P->Flags || !V.Blocks || !V.Ops || !V.Deps || !V.Conns ||
        !V.BlockList || !V.Flags || (ScratchBytes && !S.Scratch)) {
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
};

} // namespace

std::unique_ptr<ShimBackend> tacclrt::shim::makeCudaBackend() {
  return std::make_unique<CudaBackend>();
}
