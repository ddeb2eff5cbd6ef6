//===- exec/device/NcclRank.cu - One rank process of the NCCL backend -----===//
//
// runNcclRank(): what each forked rank process of runOnNcclRanks does.
//   1. Bootstrap: rank 0 asks NCCL for a unique id and hands it to the others
//      through a pipe; rank r takes GPU r and joins the communicator
//      (ncclCommInitRank). All ranks must be in one LSA (NVLink / P2P) team,
//      since the interpreter loads and stores into its peers' memory.
//   2. Memory: the rank's buffers with cudaMalloc (only it touches them);
//      the memory its peers write (the connection counts, then the FIFO
//      slots) in one NCCL symmetric window (ncclMemAlloc +
//      ncclCommWindowRegister, the same size on every rank); a one-thread
//      kernel turns the window into each peer's address with
//      ncclGetPeerPointer, so the interpreter kernel (Interpreter.cuh) runs
//      unchanged: its per-rank pointer arrays now point into other
//      processes' windows.
//   3. Runs, on one stream: restore the buffers, clear the counts and flags,
//      an NCCL allreduce of one word as a barrier (no rank starts before
//      every rank has cleared, and finished its previous run), the kernel
//      between two events. The first run's buffers go to the parent; every
//      later run is compared with them byte for byte.
//   4. Optionally NCCL's own collective on the same communicator, timed the
//      same way.
//   5. Teardown (deregistration and ncclCommDestroy are collective; after a
//      failure the communicator is aborted instead).
//
//===----------------------------------------------------------------------===//
#include "exec/device/NcclRank.h"

#include "exec/device/CudaSupport.h"
#include "exec/device/Interpreter.cuh"
#include "exec/device/NcclCollectives.h"
#include "exec/device/PeerWindow.cuh"

#include <nccl.h>
#include <nccl_device.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace tacclrt::cuda {

namespace {

constexpr std::uint64_t WindowAlign = 4096;

std::uint64_t alignUp(std::uint64_t X, std::uint64_t A) {
  return (X + A - 1) / A * A;
}

bool readAll(int Fd, void *P, std::size_t N) {
  auto *C = static_cast<char *>(P);
  while (N > 0) {
    ssize_t Got = ::read(Fd, C, N);
    if (Got <= 0)
      return false;
    C += Got;
    N -= std::size_t(Got);
  }
  return true;
}

bool writeAll(int Fd, const void *P, std::size_t N) {
  const auto *C = static_cast<const char *>(P);
  while (N > 0) {
    ssize_t Put = ::write(Fd, C, N);
    if (Put <= 0)
      return false;
    C += Put;
    N -= std::size_t(Put);
  }
  return true;
}

void copyText(char *Dst, std::size_t Cap, const std::string &S) {
  std::size_t N = std::min(Cap - 1, S.size());
  std::memcpy(Dst, S.data(), N);
  Dst[N] = '\0';
}

/// One rank's run; state that the destructor releases in the right order.
class RankRun {
public:
  explicit RankRun(const NcclRankJob &J) : J(J), Rp(*J.Report) {}
  ~RankRun() {
    if (Comm) {
      if (Failed) {
        ncclCommAbort(Comm);
      } else {
        if (Win)
          ncclCommWindowDeregister(Comm, Win);
        ncclCommDestroy(Comm);
      }
    }
    if (WinBase)
      ncclMemFree(WinBase);
    if (Stream)
      cudaStreamDestroy(Stream);
    if (Start)
      cudaEventDestroy(Start);
    if (Stop)
      cudaEventDestroy(Stop);
  }

  int run() {
    if (!bootstrap() || !placeMemory() || !runAll())
      return 1;
    if (J.Rep->NcclBaseline)
      baseline();
    Rp.Finished = 1;
    return 0;
  }

private:
  const NcclRankJob &J;
  RankReport &Rp;
  bool Failed = false;
  ncclComm_t Comm = nullptr;
  void *WinBase = nullptr;
  ncclWindow_t Win = nullptr;
  cudaStream_t Stream = nullptr;
  cudaEvent_t Start = nullptr, Stop = nullptr;
  DeviceMemory Dm;
  std::vector<char *> Storage; ///< The rank's storages on its GPU.
  std::uint64_t CountBytes = 0;
  /// Bytes cleared before every run: the counts, and under LL and LL128
  /// also this rank's FIFO lines (an old line's flag would match a new
  /// run's step).
  std::uint64_t ResetBytes = 0;
  unsigned long long *Flags = nullptr;
  int *Barrier = nullptr;
  int *Error = nullptr;
  DevView View{};
  unsigned NumBlocks = 0;

  bool fail(const std::string &Why) {
    Failed = true;
    Rp.Failed = 1;
    copyText(Rp.Message, sizeof(Rp.Message), Why);
    return false;
  }
  bool cudaOk(cudaError_t E, const char *What) {
    return E == cudaSuccess || fail(std::string(What) + ": " + cudaWhy(E));
  }
  bool ncclOk(ncclResult_t R, const char *What) {
    return R == ncclSuccess || fail(std::string(What) + ": " + ncclWhy(R));
  }

  // 1.
  bool bootstrap() {
    ncclUniqueId Id;
    if (J.Rank == 0) {
      if (!ncclOk(ncclGetUniqueId(&Id), "ncclGetUniqueId"))
        return false;
      for (int K = 1; K < J.NRanks; ++K)
        if (!writeAll(J.IdWrite, &Id, sizeof(Id)))
          return fail("could not hand NCCL's id to the other ranks");
    } else if (!readAll(J.IdRead, &Id, sizeof(Id))) {
      return fail("rank 0 failed before it handed out NCCL's id");
    }
    int Devices = 0;
    cudaError_t E = cudaGetDeviceCount(&Devices);
    if (E != cudaSuccess || Devices < J.NRanks)
      return fail(fmt::format("the NCCL backend needs a GPU per rank: {} "
                              "ranks, {} GPU(s) visible{}",
                              J.NRanks, E == cudaSuccess ? Devices : 0,
                              E == cudaSuccess ? "" : " (" + cudaWhy(E) + ")"));
    if (!cudaOk(cudaSetDevice(J.Rank), "cudaSetDevice") ||
        !ncclOk(ncclCommInitRank(&Comm, J.NRanks, Id, J.Rank),
                "ncclCommInitRank"))
      return false;
    ncclTeam_t Lsa = ncclTeamLsa(Comm);
    if (Lsa.nRanks != J.NRanks)
      return fail(fmt::format("the ranks span several NVLink domains (the "
                              "LSA team has {} of {} ranks); the NCCL "
                              "backend runs within one",
                              Lsa.nRanks, J.NRanks));
    return true;
  }

  // 2.
  bool placeMemory() {
    const DevicePlan &D = *J.Plan;
    const std::size_t N = std::size_t(J.NRanks);
    std::uint64_t MaxFifo = 0;
    for (const DevRank &R : D.Ranks)
      MaxFifo = std::max(MaxFifo, R.FifoBytes);
    CountBytes =
        alignUp(std::max<std::uint64_t>(
                    2 * D.Conns.size() * sizeof(unsigned long long), 16),
                WindowAlign);
    const std::uint64_t WinBytes =
        CountBytes + alignUp(std::max<std::uint64_t>(MaxFifo, 16), WindowAlign);
    ResetBytes =
        CountBytes +
        (usesLines(D.Proto) ? D.Ranks[std::size_t(J.Rank)].FifoBytes : 0);
    if (!ncclOk(ncclMemAlloc(&WinBase, WinBytes), "ncclMemAlloc") ||
        !cudaOk(cudaMemset(WinBase, 0, WinBytes), "cudaMemset") ||
        !cudaOk(cudaDeviceSynchronize(), "cudaDeviceSynchronize") ||
        !ncclOk(ncclCommWindowRegister(Comm, WinBase, WinBytes, &Win,
                                       NCCL_WIN_COLL_SYMMETRIC),
                "ncclCommWindowRegister"))
      return false;
    if (!Win)
      return fail("NCCL registered no symmetric window (is NCCL_CUMEM_ENABLE "
                  "off?)");
    // The rank's buffers.
    for (const auto &St : J.Initial->Storages) {
      char *P = static_cast<char *>(Dm.zeroed(St.size()));
      if (!P)
        return fail("out of GPU memory for the buffers");
      Storage.push_back(P);
    }
    auto PtrOf = [&](const CpuView &V) {
      return Storage[V.Storage] + V.Base * D.TypeSize;
    };
    std::vector<char *> In(N, nullptr), Out(N, nullptr), Scr(N, nullptr);
    const auto Me = std::size_t(J.Rank);
    In[Me] = PtrOf(J.Initial->Views[0]);
    Out[Me] = PtrOf(J.Initial->Views[1]);
    Scr[Me] = PtrOf(J.Initial->Views[2]);
    std::vector<unsigned long long *> FlagPtrs(N, nullptr);
    Flags = static_cast<unsigned long long *>(
        Dm.zeroed(D.Blocks.size() * sizeof(unsigned long long)));
    FlagPtrs[Me] = Flags;
    std::vector<std::uint32_t> Mine;
    const DevRank &R = D.Ranks[Me];
    for (std::uint32_t B = 0; B < R.NumBlocks; ++B)
      Mine.push_back(R.FirstBlock + B);
    NumBlocks = unsigned(Mine.size());
    Error = static_cast<int *>(Dm.mapped(5 * sizeof(int)));
    Barrier = static_cast<int *>(Dm.zeroed(sizeof(int)));
    int *DevError = nullptr;
    DevView &V = View;
    V.Blocks = Dm.copy(D.Blocks.data(), D.Blocks.size());
    V.Ops = Dm.copy(D.Ops.data(), D.Ops.size());
    V.Deps = Dm.copy(D.Deps.data(), D.Deps.size());
    V.Conns = Dm.copy(D.Conns.data(), D.Conns.size());
    V.BlockList = Dm.copy(Mine.data(), Mine.size());
    V.Input = Dm.copy(In.data(), N);
    V.Output = Dm.copy(Out.data(), N);
    V.Scratch = Dm.copy(Scr.data(), N);
    V.Flags = Dm.copy(FlagPtrs.data(), N);
    auto **Fifo = static_cast<char **>(Dm.zeroed(N * sizeof(char *)));
    auto **Counts = static_cast<unsigned long long **>(
        Dm.zeroed(N * sizeof(unsigned long long *)));
    V.Fifo = Fifo;
    V.Counts = Counts;
    if (!Flags || !Error || !Barrier || !V.Blocks || !V.Ops || !V.Deps ||
        !V.Conns || !V.BlockList || !V.Input || !V.Output || !V.Scratch ||
        !V.Flags || !Fifo || !Counts ||
        cudaHostGetDevicePointer(reinterpret_cast<void **>(&DevError), Error,
                                 0) != cudaSuccess)
      return fail("out of GPU memory placing the call");
    V.Error = DevError;
    V.ChunkElems = D.ChunkElems;
    V.SliceElems = D.SliceElems;
    V.Iterations = D.Iterations;
    V.SlotBytes = D.SlotBytes;
    V.FifoSlots = D.FifoSlots;
    V.Proto = D.Proto;
    V.Op = opCode(D.Op);
    V.TimeoutNs = static_cast<unsigned long long>(
        (J.Opts->WatchdogSeconds > 0 ? J.Opts->WatchdogSeconds : 3600.0) * 1e9);
    resolvePeerWindow<<<1, 32>>>(Win, J.NRanks, CountBytes, Fifo, Counts);
    return cudaOk(cudaGetLastError(), "resolving peer pointers") &&
           cudaOk(cudaDeviceSynchronize(), "resolving peer pointers") &&
           cudaOk(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking),
                  "cudaStreamCreate") &&
           cudaOk(cudaEventCreate(&Start), "cudaEventCreate") &&
           cudaOk(cudaEventCreate(&Stop), "cudaEventCreate");
  }

  // 3.
  bool runAll() {
    return withElementType(
        J.Plan->Type, [&](auto Elem) { return runAllAs<decltype(Elem)>(); });
  }

  template <typename T> bool runAllAs() {
    std::string Why;
    const unsigned Threads =
        residentBlockSize(interpret<T>, J.Rank, NumBlocks, Why);
    if (Threads == 0)
      return fail(Why);
    const auto &Init = J.Initial->Storages;
    std::vector<std::byte> Host;
    const unsigned Runs = J.Rep->Warmup + J.Rep->Iters;
    for (unsigned K = 0; K < Runs; ++K) {
      for (std::size_t S = 0; S < Init.size(); ++S)
        if (!cudaOk(cudaMemcpyAsync(Storage[S], Init[S].data(), Init[S].size(),
                                    cudaMemcpyHostToDevice, Stream),
                    "restoring the buffers"))
          return false;
      if (!cudaOk(cudaMemsetAsync(WinBase, 0, ResetBytes, Stream),
                  "clearing the counts") ||
          !cudaOk(cudaMemsetAsync(Flags, 0,
                                  J.Plan->Blocks.size() *
                                      sizeof(unsigned long long),
                                  Stream),
                  "clearing the flags") ||
          !ncclOk(ncclAllReduce(Barrier, Barrier, 1, ncclInt32, ncclSum, Comm,
                                Stream),
                  "the barrier before a run"))
        return false;
      cudaEventRecord(Start, Stream);
      interpret<T><<<NumBlocks, Threads, 0, Stream>>>(View);
      cudaError_t E = cudaGetLastError();
      cudaEventRecord(Stop, Stream);
      if (E == cudaSuccess)
        E = cudaStreamSynchronize(Stream);
      if (!cudaOk(E, "the interpreter kernel"))
        return false;
      if (Error[0] != NoError) {
        std::memcpy(Rp.Error, Error, sizeof(Rp.Error));
        Rp.ErrorRun = int(K);
        return fail("the run hung");
      }
      float Ms = 0;
      cudaEventElapsedTime(&Ms, Start, Stop);
      J.Seconds[K] = double(Ms) / 1e3;
      // The buffers: the first run's to the parent, later ones compared.
      std::byte *Dst = J.Output;
      for (std::size_t S = 0; S < Init.size(); ++S) {
        const std::size_t Len = Init[S].size();
        std::byte *Into = Dst;
        if (K > 0) {
          Host.resize(Len);
          Into = Host.data();
        }
        if (!cudaOk(cudaMemcpy(Into, Storage[S], Len, cudaMemcpyDeviceToHost),
                    "copying the buffers back"))
          return false;
        if (K > 0)
          for (std::size_t B = 0; B < Len; ++B)
            if (Host[B] != Dst[B]) {
              ++Rp.DifferingBytes;
              if (Rp.FirstDifferingRun < 0)
                Rp.FirstDifferingRun = int(K);
            }
        Dst += Len;
      }
    }
    return true;
  }

  // 4.
  void baseline() {
    const Algo &A = *J.A;
    const RunOptions &O = *J.Opts;
    std::uint64_t Count = 0;
    std::string Why;
    std::optional<NcclShape> Shape =
        ncclShape(A.Coll, unsigned(J.NRanks), O.Bytes, O.Type, Count, Why);
    const std::uint64_t Largest =
        Shape ? std::max(Shape->SendElems, Shape->RecvElems) * sizeOf(O.Type)
              : 0;
    void *Send = Shape ? Dm.zeroed(Largest) : nullptr;
    void *Recv = Shape ? Dm.zeroed(Largest) : nullptr;
    if (Shape && (!Send || !Recv))
      Why = "out of GPU memory for NCCL's buffers";
    const int Root = O.Root >= 0 ? O.Root : std::max(A.Root, 0);
    auto [S, D] = callPointers(A.Coll, O.InPlace, Send, Recv,
                               std::uint64_t(J.Rank) * Count * sizeOf(O.Type));
    double Total = 0;
    for (unsigned K = 0; Why.empty() && K < J.Rep->Warmup + J.Rep->Iters; ++K) {
      cudaEventRecord(Start, Stream);
      ncclResult_t R = enqueueNccl(A.Coll, S, D, Count, O.Type, O.Op, Root,
                                   J.Rank, J.NRanks, Comm, Stream);
      cudaEventRecord(Stop, Stream);
      float Ms = 0;
      if (R != ncclSuccess)
        Why = ncclWhy(R);
      else if (cudaStreamSynchronize(Stream) != cudaSuccess ||
               cudaEventElapsedTime(&Ms, Start, Stop) != cudaSuccess)
        Why = cudaWhy(cudaGetLastError());
      else if (K >= J.Rep->Warmup)
        Total += double(Ms) / 1e3;
    }
    if (!Why.empty()) {
      copyText(Rp.NcclWhy, sizeof(Rp.NcclWhy), Why);
      return;
    }
    Rp.NcclRan = 1;
    Rp.NcclSeconds = Total / std::max(J.Rep->Iters, 1u);
  }
};

} // namespace

int runNcclRank(const NcclRankJob &Job) {
  RankRun R(Job);
  return R.run();
}

} // namespace tacclrt::cuda
