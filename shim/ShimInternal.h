//===- shim/ShimInternal.h - Shared by the shim's files ---------*- C++ -*-===//
//
// What Shim.cpp (communicators and matching), ShimCollectives.cpp (the
// collectives) and ShimGroups.cpp (groups and point-to-point calls) share: the
// forwarders to the real NCCL, the match of a call against the algorithms,
// running a matched call, and the calling thread's group depth.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SHIM_SHIMINTERNAL_H
#define TACCLC_SHIM_SHIMINTERNAL_H

#include "shim/NcclAbi.h"
#include "shim/ShimBackend.h"

#include <functional>
#include <optional>

namespace tacclrt::shim {

// forward_NAME: NAME of the real library (or an error when it lacks it).
#define NCCL_FN(Name, Params, Args) ncclResult_t forward_##Name Params;
#include "shim/NcclFunctions.def"

/// Whether an algorithm serves the call and the backend takes it now;
/// then \p I and \p C describe it.
bool matchCall(CollKind Coll, const void *Send, void *Recv, size_t Count,
               ncclDataType_t Type, ncclRedOp_t Op, int Root, ncclComm_t Comm,
               cudaStream_t Stream, CommInfo &I, ServedCall &C);

/// Runs a matched call on the backend and logs it.
ncclResult_t runMatched(const CommInfo &I, const ServedCall &C);

/// The runtime's element type for \p T, when the interpreter has it.
std::optional<DataType> typeOf(ncclDataType_t T);

/// Open ncclGroupStart calls of this thread.
int &groupDepth();

/// Whether the shim can serve anything (a backend and algorithms).
bool shimServes();

/// Whether a group of sends and receives may be served as an alltoall
/// (TACCL_GROUPED_ALLTOALL=1). Off by default: each rank sees only its own
/// calls, and an uneven all_to_all can look even on one rank and not on
/// another, which would hang the job.
bool groupedAlltoallEnabled();

/// A collective called inside a group, held until the group's end.
struct HeldCollective {
  CollKind Coll;
  const void *Send;
  void *Recv;
  size_t Count;
  ncclDataType_t Type;
  ncclRedOp_t Op;
  int Root;
  ncclComm_t Comm;
  cudaStream_t Stream;
  /// Passes the call to the real NCCL.
  std::function<ncclResult_t()> Forward;
};

/// Holds \p C until the outermost ncclGroupEnd of this thread.
void holdCollective(HeldCollective C);

} // namespace tacclrt::shim

#endif // TACCLC_SHIM_SHIMINTERNAL_H
