//===- shim/ShimCollectives.cpp - The collectives of libtaccl-nccl --------===//
//
// NCCL's collective entry points as libtaccl-nccl exports them: ncclAllGather,
// ncclAllReduce, ncclReduceScatter, ncclBroadcast, ncclBcast, ncclReduce,
// ncclAlltoAll, ncclGather and ncclScatter. Inside a group each call is held
// for ShimGroups.cpp to decide at the group's end; outside, it is served by
// a TACCL-EF algorithm when one matches (matchCall, runMatched in Shim.cpp),
// else forwarded to the real NCCL.
//
//===----------------------------------------------------------------------===//
#include "shim/NcclAbi.h"
#include "shim/ShimInternal.h"

using namespace tacclrt;
using namespace tacclrt::shim;

namespace {

/// Serves a collective when an algorithm matches; \p Served says whether
/// it did (else the caller forwards).
ncclResult_t serve(CollKind Coll, const void *Send, void *Recv, size_t Count,
                   ncclDataType_t Type, ncclRedOp_t Op, int Root,
                   ncclComm_t Comm, cudaStream_t Stream, bool &Served) {
  CommInfo I;
  ServedCall C;
  Served =
      matchCall(Coll, Send, Recv, Count, Type, Op, Root, Comm, Stream, I, C);
  return Served ? runMatched(I, C) : ncclSuccess;
}

} // namespace

extern "C" {

#define TACCL_EXPORT __attribute__((visibility("default")))

// Inside a group the call is held (ShimGroups.cpp decides at the group's
// end); outside, it is served when an algorithm matches, else forwarded.
#define TACCL_SERVE(Coll, Send, Recv, Count, Type, Op, Root, Comm, Stream,     \
                    Forward)                                                   \
  do {                                                                         \
    if (groupDepth() > 0) {                                                    \
      holdCollective({Coll, Send, Recv, Count, Type, Op, Root, Comm, Stream,   \
                      [=] { return Forward; }});                               \
      return ncclSuccess;                                                      \
    }                                                                          \
    bool Served = false;                                                       \
    ncclResult_t R =                                                           \
        serve(Coll, Send, Recv, Count, Type, Op, Root, Comm, Stream, Served);  \
    return Served ? R : Forward;                                               \
  } while (false)

TACCL_EXPORT ncclResult_t ncclAllGather(const void *Send, void *Recv,
                                        size_t Count, ncclDataType_t Type,
                                        ncclComm_t Comm, cudaStream_t Stream) {
  TACCL_SERVE(CollKind::AllGather, Send, Recv, Count, Type, ncclSum, 0, Comm,
              Stream,
              forward_ncclAllGather(Send, Recv, Count, Type, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclAllReduce(const void *Send, void *Recv,
                                        size_t Count, ncclDataType_t Type,
                                        ncclRedOp_t Op, ncclComm_t Comm,
                                        cudaStream_t Stream) {
  TACCL_SERVE(CollKind::AllReduce, Send, Recv, Count, Type, Op, 0, Comm, Stream,
              forward_ncclAllReduce(Send, Recv, Count, Type, Op, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclReduceScatter(const void *Send, void *Recv,
                                            size_t Count, ncclDataType_t Type,
                                            ncclRedOp_t Op, ncclComm_t Comm,
                                            cudaStream_t Stream) {
  TACCL_SERVE(
      CollKind::ReduceScatter, Send, Recv, Count, Type, Op, 0, Comm, Stream,
      forward_ncclReduceScatter(Send, Recv, Count, Type, Op, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclBroadcast(const void *Send, void *Recv,
                                        size_t Count, ncclDataType_t Type,
                                        int Root, ncclComm_t Comm,
                                        cudaStream_t Stream) {
  TACCL_SERVE(
      CollKind::Broadcast, Send, Recv, Count, Type, ncclSum, Root, Comm, Stream,
      forward_ncclBroadcast(Send, Recv, Count, Type, Root, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclBcast(void *Buff, size_t Count,
                                    ncclDataType_t Type, int Root,
                                    ncclComm_t Comm, cudaStream_t Stream) {
  TACCL_SERVE(CollKind::Broadcast, Buff, Buff, Count, Type, ncclSum, Root, Comm,
              Stream, forward_ncclBcast(Buff, Count, Type, Root, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclReduce(const void *Send, void *Recv, size_t Count,
                                     ncclDataType_t Type, ncclRedOp_t Op,
                                     int Root, ncclComm_t Comm,
                                     cudaStream_t Stream) {
  TACCL_SERVE(
      CollKind::Reduce, Send, Recv, Count, Type, Op, Root, Comm, Stream,
      forward_ncclReduce(Send, Recv, Count, Type, Op, Root, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclAlltoAll(const void *Send, void *Recv,
                                       size_t Count, ncclDataType_t Type,
                                       ncclComm_t Comm, cudaStream_t Stream) {
  TACCL_SERVE(CollKind::AllToAll, Send, Recv, Count, Type, ncclSum, 0, Comm,
              Stream,
              forward_ncclAlltoAll(Send, Recv, Count, Type, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclGather(const void *Send, void *Recv, size_t Count,
                                     ncclDataType_t Type, int Root,
                                     ncclComm_t Comm, cudaStream_t Stream) {
  TACCL_SERVE(CollKind::Gather, Send, Recv, Count, Type, ncclSum, Root, Comm,
              Stream,
              forward_ncclGather(Send, Recv, Count, Type, Root, Comm, Stream));
}

TACCL_EXPORT ncclResult_t ncclScatter(const void *Send, void *Recv,
                                      size_t Count, ncclDataType_t Type,
                                      int Root, ncclComm_t Comm,
                                      cudaStream_t Stream) {
  TACCL_SERVE(CollKind::Scatter, Send, Recv, Count, Type, ncclSum, Root, Comm,
              Stream,
              forward_ncclScatter(Send, Recv, Count, Type, Root, Comm, Stream));
}

} // extern "C"
