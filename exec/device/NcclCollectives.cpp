//===- exec/device/NcclCollectives.cpp - A plan's call made by NCCL -------===//
//
// ncclShape / enqueueNccl (NcclCollectives.h), and ncclBaselineSeconds: the
// collective through NCCL in this process, one communicator per GPU
// (ncclCommInitAll), every rank's call in one group, timed with events on
// each GPU (a run takes as long as its slowest GPU).
//
//===----------------------------------------------------------------------===//
#include "exec/device/NcclCollectives.h"

#include "exec/device/CudaExecutor.h"
#include "format/Collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace tacclrt::cuda {

namespace {

ncclDataType_t ncclTypeOf(DataType T) {
  switch (T) {
  case DataType::Int8:
    return ncclInt8;
  case DataType::UInt8:
    return ncclUint8;
  case DataType::Int32:
    return ncclInt32;
  case DataType::UInt32:
    return ncclUint32;
  case DataType::Int64:
    return ncclInt64;
  case DataType::UInt64:
    return ncclUint64;
  case DataType::Float16:
    return ncclFloat16;
  case DataType::BFloat16:
    return ncclBfloat16;
  case DataType::Float32:
    return ncclFloat32;
  case DataType::Float64:
    break;
  }
  return ncclFloat64;
}

ncclRedOp_t ncclOpOf(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return ncclSum;
  case ReduceOp::Prod:
    return ncclProd;
  case ReduceOp::Min:
    return ncclMin;
  case ReduceOp::Max:
    return ncclMax;
  case ReduceOp::Avg:
    break;
  }
  return ncclAvg;
}

} // namespace

std::optional<NcclShape> ncclShape(CollKind C, unsigned NRanks,
                                   std::uint64_t Bytes, DataType Type,
                                   std::uint64_t &Count, std::string &Why) {
  Count = Bytes / sizeOf(Type) / sizeMultiplier(C, NRanks);
  const std::uint64_t All = Count * NRanks;
  switch (C) {
  case CollKind::AllGather:
  case CollKind::Gather:
    return NcclShape{Count, All};
  case CollKind::ReduceScatter:
  case CollKind::Scatter:
    return NcclShape{All, Count};
  case CollKind::AllReduce:
  case CollKind::Broadcast:
  case CollKind::Reduce:
    return NcclShape{Count, Count};
  case CollKind::AllToAll:
    return NcclShape{All, All};
  default:
    Why = fmt::format("NCCL has no call for {}", nameOf(C));
    return std::nullopt;
  }
}

ncclResult_t enqueueNccl(CollKind C, const void *Send, void *Recv,
                         std::uint64_t Count, DataType Type, ReduceOp Op,
                         int Root, int Rank, int NRanks, ncclComm_t Comm,
                         cudaStream_t Stream) {
  const ncclDataType_t T = ncclTypeOf(Type);
  const std::size_t Block = std::size_t(Count) * sizeOf(Type);
  auto SendAt = [&](int K) {
    return static_cast<const char *>(Send) + K * Block;
  };
  auto RecvAt = [&](int K) { return static_cast<char *>(Recv) + K * Block; };
  switch (C) {
  case CollKind::AllGather:
    return ncclAllGather(Send, Recv, Count, T, Comm, Stream);
  case CollKind::ReduceScatter:
    return ncclReduceScatter(Send, Recv, Count, T, ncclOpOf(Op), Comm, Stream);
  case CollKind::AllReduce:
    return ncclAllReduce(Send, Recv, Count, T, ncclOpOf(Op), Comm, Stream);
  case CollKind::Broadcast:
    return ncclBroadcast(Send, Recv, Count, T, Root, Comm, Stream);
  case CollKind::Reduce:
    return ncclReduce(Send, Recv, Count, T, ncclOpOf(Op), Root, Comm, Stream);
  case CollKind::AllToAll:
  case CollKind::Gather:
  case CollKind::Scatter: {
    ncclResult_t R = ncclGroupStart();
    for (int Peer = 0; Peer < NRanks && R == ncclSuccess; ++Peer) {
      const bool Sends = C == CollKind::AllToAll ||
                         (C == CollKind::Gather && Peer == Root) ||
                         (C == CollKind::Scatter && Rank == Root);
      const bool Receives = C == CollKind::AllToAll ||
                            (C == CollKind::Gather && Rank == Root) ||
                            (C == CollKind::Scatter && Peer == Root);
      if (Sends)
        R = ncclSend(C == CollKind::Gather ? Send : SendAt(Peer), Count, T,
                     Peer, Comm, Stream);
      if (Receives && R == ncclSuccess)
        R = ncclRecv(C == CollKind::Scatter ? Recv : RecvAt(Peer), Count, T,
                     Peer, Comm, Stream);
    }
    ncclResult_t End = ncclGroupEnd();
    return R != ncclSuccess ? R : End;
  }
  default:
    return ncclInvalidArgument;
  }
}

std::pair<const void *, void *> callPointers(CollKind C, bool InPlace,
                                             void *Send, void *Recv,
                                             std::uint64_t RankOffset) {
  if (!InPlace)
    return {Send, Recv};
  char *Buf = static_cast<char *>(Send);
  switch (C) {
  case CollKind::AllGather:
    return {Buf + RankOffset, Buf};
  case CollKind::ReduceScatter:
    return {Buf, Buf + RankOffset};
  case CollKind::AllReduce:
  case CollKind::Broadcast:
  case CollKind::Reduce:
    return {Buf, Buf};
  default: // point-to-point calls do not run in place
    return {Send, Recv};
  }
}

std::string ncclWhy(ncclResult_t R) {
  return fmt::format("{} (NCCL error {})", ncclGetErrorString(R), int(R));
}

} // namespace tacclrt::cuda

namespace tacclrt {

using namespace cuda;

std::optional<double> ncclBaselineSeconds(const Algo &A, const RunOptions &O,
                                          const RepeatOptions &Rep,
                                          std::string &Why) {
  const int N = A.NGpus;
  std::uint64_t Count = 0;
  std::optional<NcclShape> Shape =
      ncclShape(A.Coll, unsigned(N), O.Bytes, O.Type, Count, Why);
  if (!Shape)
    return std::nullopt;
  int Devices = 0;
  if (cudaGetDeviceCount(&Devices) != cudaSuccess || Devices < N) {
    Why = fmt::format("NCCL needs a GPU per rank: {} ranks, {} GPU(s) "
                      "visible",
                      N, Devices);
    return std::nullopt;
  }
  const int Root = O.Root >= 0 ? O.Root : std::max(A.Root, 0);
  std::vector<ncclComm_t> Comms(std::size_t(N), nullptr);
  std::vector<int> DevList(static_cast<std::size_t>(N));
  for (int R = 0; R < N; ++R)
    DevList[std::size_t(R)] = R;
  std::vector<void *> Send(std::size_t(N), nullptr),
      Recv(std::size_t(N), nullptr);
  std::vector<cudaStream_t> Streams(std::size_t(N), nullptr);
  std::vector<cudaEvent_t> Start(std::size_t(N), nullptr), Stop(Start);
  auto Cleanup = [&] {
    for (int R = 0; R < N; ++R) {
      const auto I = std::size_t(R);
      cudaSetDevice(R);
      if (Comms[I])
        ncclCommDestroy(Comms[I]);
      cudaFree(Send[I]);
      cudaFree(Recv[I]);
      if (Streams[I])
        cudaStreamDestroy(Streams[I]);
      if (Start[I])
        cudaEventDestroy(Start[I]);
      if (Stop[I])
        cudaEventDestroy(Stop[I]);
    }
  };
  ncclResult_t Nr = ncclCommInitAll(Comms.data(), N, DevList.data());
  if (Nr != ncclSuccess) {
    Why = "ncclCommInitAll: " + ncclWhy(Nr);
    Comms.assign(Comms.size(), nullptr);
    Cleanup();
    return std::nullopt;
  }
  const std::size_t Bytes = sizeOf(O.Type);
  for (int R = 0; R < N; ++R) {
    const auto I = std::size_t(R);
    cudaSetDevice(R);
    const std::uint64_t Largest =
        std::max<std::uint64_t>(Shape->SendElems, Shape->RecvElems) * Bytes;
    if (cudaMalloc(&Send[I], std::max<std::uint64_t>(Largest, 16)) !=
            cudaSuccess ||
        cudaMalloc(&Recv[I], std::max<std::uint64_t>(Largest, 16)) !=
            cudaSuccess ||
        cudaMemset(Send[I], 0, Largest) != cudaSuccess ||
        cudaStreamCreate(&Streams[I]) != cudaSuccess ||
        cudaEventCreate(&Start[I]) != cudaSuccess ||
        cudaEventCreate(&Stop[I]) != cudaSuccess) {
      Why = "out of GPU memory for NCCL's buffers";
      Cleanup();
      return std::nullopt;
    }
  }
  double Total = 0;
  for (unsigned K = 0; K < Rep.Warmup + Rep.Iters; ++K) {
    for (int R = 0; R < N; ++R) {
      cudaSetDevice(R);
      cudaEventRecord(Start[std::size_t(R)], Streams[std::size_t(R)]);
    }
    Nr = ncclGroupStart();
    for (int R = 0; R < N && Nr == ncclSuccess; ++R) {
      const auto I = std::size_t(R);
      auto [S, D] = callPointers(A.Coll, O.InPlace, Send[I], Recv[I],
                                 std::uint64_t(R) * Count * Bytes);
      Nr = enqueueNccl(A.Coll, S, D, Count, O.Type, O.Op, Root, R, N, Comms[I],
                       Streams[I]);
    }
    ncclResult_t End = ncclGroupEnd();
    if (Nr == ncclSuccess)
      Nr = End;
    if (Nr != ncclSuccess) {
      Why = "NCCL call: " + ncclWhy(Nr);
      Cleanup();
      return std::nullopt;
    }
    double Slowest = 0;
    for (int R = 0; R < N; ++R) {
      const auto I = std::size_t(R);
      cudaSetDevice(R);
      cudaEventRecord(Stop[I], Streams[I]);
      float Ms = 0;
      if (cudaStreamSynchronize(Streams[I]) != cudaSuccess ||
          cudaEventElapsedTime(&Ms, Start[I], Stop[I]) != cudaSuccess) {
        Why = "CUDA error while NCCL ran: " +
              std::string(cudaGetErrorString(cudaGetLastError()));
        Cleanup();
        return std::nullopt;
      }
      Slowest = std::max(Slowest, double(Ms) / 1e3);
    }
    if (K >= Rep.Warmup)
      Total += Slowest;
  }
  Cleanup();
  return Total / std::max(Rep.Iters, 1u);
}

} // namespace tacclrt
