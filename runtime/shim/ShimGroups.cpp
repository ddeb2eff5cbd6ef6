//===- runtime/shim/ShimGroups.cpp - Groups and point-to-point calls ------===//
//
// ncclGroupStart/End, ncclSend and ncclRecv of libtaccl-nccl. Collectives
// inside a group are forwarded (NCCL defers grouped work to the group's end,
// and a served call must not run ahead of its barrier). Sends and receives
// inside a group are held back until the outermost ncclGroupEnd; there, for
// each communicator whose calls form an alltoall (GroupedAlltoall.h) that
// an algorithm serves, the calls are left out of NCCL's group and the
// alltoall is served once the group has ended; every other call is passed
// to NCCL inside the group, in its original order. Outside a group, sends
// and receives go straight to NCCL.
//
//===----------------------------------------------------------------------===//
#include "GroupedAlltoall.h"
#include "ShimInternal.h"

#include "tacclrt/CpuExecutor.h"

#include <map>
#include <vector>

using namespace tacclrt;
using namespace tacclrt::shim;

namespace {

thread_local std::vector<P2PCall> Held;

std::size_t typeSize(ncclDataType_t T) {
  switch (T) {
  case ncclInt8:
  case ncclUint8:
  case ncclFloat8e4m3:
  case ncclFloat8e5m2:
    return 1;
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32:
    return 4;
  default:
    return 8;
  }
}

ncclResult_t pass(const P2PCall &C) {
  return C.IsSend ? forward_ncclSend(C.Buf, C.Count, C.Type, C.Peer, C.Comm,
                                     C.Stream)
                  : forward_ncclRecv(const_cast<void *>(C.Buf), C.Count, C.Type,
                                     C.Peer, C.Comm, C.Stream);
}

/// A communicator's calls that make a served alltoall.
struct Planned {
  ncclComm_t Comm = nullptr;
  CommInfo Info;
  ServedCall Call;
};

} // namespace

extern "C" {

__attribute__((visibility("default"))) ncclResult_t ncclGroupStart() {
  ncclResult_t R = forward_ncclGroupStart();
  if (R == ncclSuccess)
    ++groupDepth();
  return R;
}

__attribute__((visibility("default"))) ncclResult_t
ncclSend(const void *Buf, size_t Count, ncclDataType_t Type, int Peer,
         ncclComm_t Comm, cudaStream_t Stream) {
  if (groupDepth() == 0)
    return forward_ncclSend(Buf, Count, Type, Peer, Comm, Stream);
  Held.push_back({true, Buf, Count, Type, Peer, Comm, Stream});
  return ncclSuccess;
}

__attribute__((visibility("default"))) ncclResult_t
ncclRecv(void *Buf, size_t Count, ncclDataType_t Type, int Peer,
         ncclComm_t Comm, cudaStream_t Stream) {
  if (groupDepth() == 0)
    return forward_ncclRecv(Buf, Count, Type, Peer, Comm, Stream);
  Held.push_back({false, Buf, Count, Type, Peer, Comm, Stream});
  return ncclSuccess;
}

__attribute__((visibility("default"))) ncclResult_t ncclGroupEnd() {
  if (groupDepth() > 1) {
    --groupDepth();
    return forward_ncclGroupEnd();
  }
  groupDepth() = 0;
  std::vector<P2PCall> Calls;
  Calls.swap(Held);
  // Per communicator, in order of first appearance.
  std::vector<ncclComm_t> Order;
  std::map<ncclComm_t, std::vector<P2PCall>> ByComm;
  for (const P2PCall &C : Calls) {
    if (!ByComm.count(C.Comm))
      Order.push_back(C.Comm);
    ByComm[C.Comm].push_back(C);
  }
  std::vector<Planned> Serve;
  std::map<ncclComm_t, bool> Taken;
  for (ncclComm_t Comm : Order) {
    const std::vector<P2PCall> &Cs = ByComm[Comm];
    int Ranks = 0;
    if (!Cs.empty() && forward_ncclCommCount(Comm, &Ranks) == ncclSuccess)
      if (std::optional<AlltoallCall> A =
              asAlltoall(Cs, Ranks, typeSize(Cs.front().Type))) {
        Planned P;
        P.Comm = Comm;
        if (matchCall(CollKind::AllToAll, A->Send, A->Recv, A->Count, A->Type,
                      ncclSum, 0, Comm, A->Stream, P.Info, P.Call)) {
          Serve.push_back(P);
          Taken[Comm] = true;
        }
      }
  }
  ncclResult_t R = ncclSuccess;
  for (const P2PCall &C : Calls)
    if (!Taken[C.Comm] && R == ncclSuccess)
      R = pass(C);
  ncclResult_t End = forward_ncclGroupEnd();
  if (R == ncclSuccess)
    R = End;
  for (const Planned &P : Serve) {
    bool Served = false;
    ncclResult_t S = runMatched(P.Info, P.Call, Served);
    if (!Served) {
      // Handed back: the calls go to NCCL after all, as a group of their own.
      forward_ncclGroupStart();
      for (const P2PCall &C : ByComm[P.Comm])
        if (S == ncclSuccess)
          S = pass(C);
      ncclResult_t E = forward_ncclGroupEnd();
      if (S == ncclSuccess)
        S = E;
    }
    if (R == ncclSuccess)
      R = S;
  }
  return R;
}

} // extern "C"
