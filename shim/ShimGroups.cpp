//===- shim/ShimGroups.cpp - Groups and point-to-point calls --------------===//
//
// ncclGroupStart/End, ncclGroupSimulateEnd, ncclSend and ncclRecv of
// libtaccl-nccl. Calls made inside a group (collectives and sends and
// receives) are held back until the outermost ncclGroupEnd. When all of
// them are on one communicator and they are
//   - a single collective that an algorithm serves (PyTorch may wrap even
//     single collectives in a group), or
//   - with TACCL_GROUPED_ALLTOALL=1, sends and receives that form an
//     alltoall (GroupedAlltoall.h) that an algorithm serves,
// they are left out of NCCL's group and served once the group has ended (a
// served call must not run inside a group: NCCL would defer its barrier to
// the group's end). Everything else is passed to NCCL inside the group, in
// its original order; if NCCL then fails the group, nothing is served.
// Outside a group, sends and receives go straight to NCCL.
//
//===----------------------------------------------------------------------===//
#include "shim/GroupedAlltoall.h"
#include "shim/ShimInternal.h"

#include "format/Call.h"

#include <map>
#include <optional>
#include <vector>

using namespace tacclrt;
using namespace tacclrt::shim;

namespace {

/// A call held in a group: a send or receive, or a collective.
struct Held {
  ncclComm_t Comm = nullptr;
  std::optional<P2PCall> P2P;
  std::optional<HeldCollective> Coll;
};

thread_local std::vector<Held> HeldCalls;

ncclResult_t pass(const Held &H);

/// Holds a send or receive made inside a group; passes it on outside one.
ncclResult_t holdOrPass(const P2PCall &C) {
  Held H;
  H.Comm = C.Comm;
  H.P2P = C;
  if (groupDepth() == 0)
    return pass(H);
  HeldCalls.push_back(std::move(H));
  return ncclSuccess;
}

ncclResult_t pass(const Held &H) {
  if (H.Coll)
    return H.Coll->Forward();
  const P2PCall &C = *H.P2P;
  return C.IsSend ? forward_ncclSend(C.Buf, C.Count, C.Type, C.Peer, C.Comm,
                                     C.Stream)
                  : forward_ncclRecv(const_cast<void *>(C.Buf), C.Count, C.Type,
                                     C.Peer, C.Comm, C.Stream);
}

/// Whether a communicator's held calls make one call the shim serves.
bool matchHeld(ncclComm_t Comm, const std::vector<Held> &Hs, CommInfo &I,
               ServedCall &Call) {
  if (!shimServes())
    return false;
  if (Hs.size() == 1 && Hs[0].Coll) {
    const HeldCollective &C = *Hs[0].Coll;
    return matchCall(C.Coll, C.Send, C.Recv, C.Count, C.Type, C.Op, C.Root,
                     C.Comm, C.Stream, I, Call);
  }
  if (!groupedAlltoallEnabled())
    return false;
  std::vector<P2PCall> Ps;
  for (const Held &H : Hs) {
    if (!H.P2P)
      return false;
    Ps.push_back(*H.P2P);
  }
  int Ranks = 0;
  if (Ps.empty() || forward_ncclCommCount(Comm, &Ranks) != ncclSuccess)
    return false;
  std::optional<DataType> T = typeOf(Ps.front().Type);
  std::optional<AlltoallCall> A =
      T ? asAlltoall(Ps, Ranks, sizeOf(*T)) : std::nullopt;
  return A && matchCall(CollKind::AllToAll, A->Send, A->Recv, A->Count, A->Type,
                        ncclSum, 0, Comm, A->Stream, I, Call);
}

/// A communicator's held calls that make one served call.
struct Planned {
  ncclComm_t Comm = nullptr;
  CommInfo Info;
  ServedCall Call;
};

} // namespace

void tacclrt::shim::holdCollective(HeldCollective C) {
  Held H;
  H.Comm = C.Comm;
  H.Coll = std::move(C);
  HeldCalls.push_back(std::move(H));
}

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
  return holdOrPass({true, Buf, Count, Type, Peer, Comm, Stream});
}

__attribute__((visibility("default"))) ncclResult_t
ncclRecv(void *Buf, size_t Count, ncclDataType_t Type, int Peer,
         ncclComm_t Comm, cudaStream_t Stream) {
  return holdOrPass({false, Buf, Count, Type, Peer, Comm, Stream});
}

__attribute__((visibility("default"))) ncclResult_t ncclGroupEnd() {
  if (groupDepth() > 1) {
    --groupDepth();
    return forward_ncclGroupEnd();
  }
  groupDepth() = 0;
  std::vector<Held> Calls;
  Calls.swap(HeldCalls);
  // Per communicator, in order of first appearance.
  std::vector<ncclComm_t> Order;
  std::map<ncclComm_t, std::vector<Held>> ByComm;
  for (const Held &H : Calls) {
    if (!ByComm.count(H.Comm))
      Order.push_back(H.Comm);
    ByComm[H.Comm].push_back(H);
  }
  std::vector<Planned> Serve;
  std::map<ncclComm_t, bool> Taken;
  // A group over several communicators is NCCL's to fuse: serving some of
  // them one by one could order their barriers differently on different
  // ranks.
  for (ncclComm_t Comm :
       Order.size() == 1 ? Order : std::vector<ncclComm_t>()) {
    Planned P;
    P.Comm = Comm;
    if (matchHeld(Comm, ByComm[Comm], P.Info, P.Call)) {
      Serve.push_back(P);
      Taken[Comm] = true;
    }
  }
  auto Ok = [](ncclResult_t X) {
    return X == ncclSuccess || X == ncclInProgress;
  };
  ncclResult_t R = ncclSuccess;
  for (const Held &H : Calls)
    if (!Taken[H.Comm] && Ok(R)) {
      ncclResult_t X = pass(H);
      if (!Ok(X) || R == ncclSuccess)
        R = X;
    }
  ncclResult_t End = forward_ncclGroupEnd();
  if (Ok(R) && (!Ok(End) || R == ncclSuccess))
    R = End;
  if (!Ok(R))
    return R; // NCCL aborted the group: nothing more runs
  for (const Planned &P : Serve) {
    ncclResult_t S = runMatched(P.Info, P.Call);
    if (R == ncclSuccess)
      R = S;
  }
  return R;
}

__attribute__((visibility("default"))) ncclResult_t
ncclGroupSimulateEnd(ncclSimInfo_t *Info) {
  // Simulation ends the group: what was held goes to NCCL as it is.
  if (groupDepth() > 0)
    --groupDepth();
  if (groupDepth() == 0) {
    std::vector<Held> Calls;
    Calls.swap(HeldCalls);
    for (const Held &H : Calls)
      pass(H);
  }
  return forward_ncclGroupSimulateEnd(Info);
}

} // extern "C"
