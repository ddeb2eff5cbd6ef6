//===- shim/GroupedAlltoall.h - Send/recv groups as alltoall ----*- C++ -*-===//
//
// PyTorch's all_to_all is not ncclAlltoAll but one NCCL group of a send to
// and a receive from every rank (itself included), block r of the send
// buffer to rank r and block r of the receive buffer from it. The shim
// holds back the sends and receives of a group, and at its end asks
// asAlltoall() whether one communicator's calls are exactly that; then an
// alltoall algorithm can serve them, and otherwise they are passed on to
// NCCL inside the same group.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SHIM_GROUPEDALLTOALL_H
#define TACCLC_SHIM_GROUPEDALLTOALL_H

#include "shim/NcclAbi.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace tacclrt::shim {

/// One ncclSend or ncclRecv held back in a group.
struct P2PCall {
  bool IsSend = true;
  const void *Buf = nullptr;
  std::size_t Count = 0;
  ncclDataType_t Type = ncclFloat32;
  int Peer = 0;
  ncclComm_t Comm = nullptr;
  cudaStream_t Stream = nullptr;
};

/// The alltoall a group's calls on one communicator make.
struct AlltoallCall {
  const void *Send = nullptr;
  void *Recv = nullptr;
  std::size_t Count = 0; ///< Per peer.
  ncclDataType_t Type = ncclFloat32;
  cudaStream_t Stream = nullptr;
};

/// The alltoall \p Calls (all on one communicator of \p NRanks ranks, with
/// elements of \p TypeSize bytes) make: one send and one receive per rank,
/// the same count, type and stream, and block r of one send and one receive
/// buffer for rank r; nothing otherwise.
std::optional<AlltoallCall> asAlltoall(const std::vector<P2PCall> &Calls,
                                       int NRanks, std::size_t TypeSize);

} // namespace tacclrt::shim

#endif // TACCLC_SHIM_GROUPEDALLTOALL_H
