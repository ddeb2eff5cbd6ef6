//===- exec/device/NcclCollectives.h - A call made by NCCL ------*- C++ -*-===//
//
// The same call a TACCL-EF plan serves, made through NCCL's own API, for the
// side-by-side column of taccl-bench: the buffer sizes each rank passes and
// the NCCL call (ncclAllGather, ncclAllReduce, ...; alltoall, gather and
// scatter as grouped ncclSend/ncclRecv, as nccl-tests does).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_NCCLCOLLECTIVES_H
#define TACCLC_EXEC_DEVICE_NCCLCOLLECTIVES_H

#include "format/Call.h"
#include "format/Plan.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace tacclrt::cuda {

/// Elements one rank sends from and receives into.
struct NcclShape {
  std::uint64_t SendElems = 0, RecvElems = 0;
};

/// The per-rank call of collective \p C on \p NRanks ranks for a call of
/// \p Bytes bytes of \p Type (RunOptions::Bytes): the element count NCCL's
/// API takes in \p Count and the buffer sizes; nothing (and \p Why) for a
/// collective NCCL has no call for.
std::optional<NcclShape> ncclShape(CollKind C, unsigned NRanks,
                                   std::uint64_t Bytes, DataType Type,
                                   std::uint64_t &Count, std::string &Why);

/// Enqueues rank \p Rank's part of collective \p C of \p Count elements
/// (ncclShape) on \p Stream.
ncclResult_t enqueueNccl(CollKind C, const void *Send, void *Recv,
                         std::uint64_t Count, DataType Type, ReduceOp Op,
                         int Root, int Rank, int NRanks, ncclComm_t Comm,
                         cudaStream_t Stream);

/// The send and receive pointers of a call on buffers \p Send and \p Recv
/// (each large enough for both sides): in place, NCCL's layout, where an
/// allgather's input is the rank's block of the output (at \p RankOffset
/// bytes) and a reducescatter's output the rank's block of the input;
/// alltoall, gather and scatter always run out of place.
std::pair<const void *, void *> callPointers(CollKind C, bool InPlace,
                                             void *Send, void *Recv,
                                             std::uint64_t RankOffset);

/// "message (code)" for an NCCL result.
std::string ncclWhy(ncclResult_t R);

} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_NCCLCOLLECTIVES_H
