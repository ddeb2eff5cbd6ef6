//===- tests/shim/FakeNccl.cpp - A stand-in for libnccl in tests ----------===//
//
// libfake-nccl: the NCCL functions libtaccl-nccl forwards to, for tests
// without GPUs. Communicators of one process form cliques (one
// ncclCommInitAll, or one unique id); collectives work on host memory in
// float32 and int32 and run when the last rank of the clique has called, as
// the shim's CPU backend does. fakeNcclCalls(NAME) says how often NAME was
// called, so a test can tell a forwarded call from a served one.
//
//===----------------------------------------------------------------------===//
#include "shim/NcclAbi.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct ncclComm {
  int Rank = 0, NRanks = 1;
  std::shared_ptr<struct Clique> Group;
};

struct Call {
  std::string Name;
  const void *Send = nullptr;
  void *Recv = nullptr;
  size_t Count = 0;
  ncclDataType_t Type = ncclFloat32;
  ncclRedOp_t Op = ncclSum;
  int Root = 0;
};

/// One collective's calls, waiting for every rank.
struct Gathering {
  std::vector<Call> Pending;
  int Arrived = 0;
};

struct Clique {
  int NRanks = 1;
  /// By collective: several may be in flight (inside a group).
  std::map<std::string, Gathering> ByName;
  /// Point-to-point messages waiting for their other side, by (src, dst).
  std::map<std::pair<int, int>, std::vector<std::pair<const void *, size_t>>>
      Sends;
  std::map<std::pair<int, int>, std::vector<std::pair<void *, size_t>>> Recvs;
};

namespace {

std::mutex M;
std::map<std::string, int> Calls;
std::map<std::string, std::shared_ptr<Clique>> ById;
int NextId = 0;

void count(const char *Name) {
  std::lock_guard<std::mutex> Lock(M);
  ++Calls[Name];
}

template <typename T> T combine(ncclRedOp_t Op, T A, T B) {
  switch (Op) {
  case ncclProd:
    return A * B;
  case ncclMin:
    return A < B ? A : B;
  case ncclMax:
    return A < B ? B : A;
  default:
    return A + B; // sum; avg divides afterwards
  }
}

template <typename T> void execute(Clique &Cl, Gathering &C) {
  const int N = Cl.NRanks;
  const Call &First = C.Pending[0];
  const size_t Cnt = First.Count;
  std::vector<std::vector<T>> In(static_cast<size_t>(N));
  for (int R = 0; R < N; ++R) {
    const Call &K = C.Pending[size_t(R)];
    size_t Elems = (K.Name == "ncclReduceScatter" || K.Name == "ncclAlltoAll")
                       ? Cnt * size_t(N)
                       : Cnt;
    const T *P = static_cast<const T *>(K.Send);
    In[size_t(R)].assign(P, P + Elems);
  }
  for (int R = 0; R < N; ++R) {
    const Call &K = C.Pending[size_t(R)];
    T *Out = static_cast<T *>(K.Recv);
    if (K.Name == "ncclAllGather") {
      for (int S = 0; S < N; ++S)
        std::memcpy(Out + size_t(S) * Cnt, In[size_t(S)].data(),
                    Cnt * sizeof(T));
    } else if (K.Name == "ncclAllReduce" || K.Name == "ncclReduceScatter") {
      const size_t Base = K.Name == "ncclAllReduce" ? 0 : size_t(R) * Cnt;
      for (size_t E = 0; E < Cnt; ++E) {
        T Acc = In[0][Base + E];
        for (int S = 1; S < N; ++S)
          Acc = combine(K.Op, Acc, In[size_t(S)][Base + E]);
        if (K.Op == ncclAvg)
          Acc = Acc / T(N);
        Out[E] = Acc;
      }
    } else if (K.Name == "ncclBroadcast") {
      std::memcpy(Out, In[size_t(K.Root)].data(), Cnt * sizeof(T));
    } else if (K.Name == "ncclAlltoAll") {
      for (int S = 0; S < N; ++S)
        std::memcpy(Out + size_t(S) * Cnt,
                    In[size_t(S)].data() + size_t(R) * Cnt, Cnt * sizeof(T));
    }
  }
}

ncclResult_t collective(Call K, ncclComm_t Comm) {
  count(K.Name.c_str());
  if (!Comm || (K.Type != ncclFloat32 && K.Type != ncclInt32))
    return ncclInvalidArgument;
  std::lock_guard<std::mutex> Lock(M);
  Clique &Cl = *Comm->Group;
  Gathering &C = Cl.ByName[K.Name];
  if (C.Arrived == 0)
    C.Pending.assign(size_t(Cl.NRanks), Call());
  C.Pending[size_t(Comm->Rank)] = K;
  if (++C.Arrived < Cl.NRanks)
    return ncclSuccess;
  if (K.Type == ncclFloat32)
    execute<float>(Cl, C);
  else
    execute<int>(Cl, C);
  C.Arrived = 0;
  return ncclSuccess;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) int fakeNcclCalls(const char *Name) {
  std::lock_guard<std::mutex> Lock(M);
  return Calls[Name];
}

ncclResult_t ncclGetVersion(int *V) {
  count("ncclGetVersion");
  *V = 22809;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *Id) {
  count("ncclGetUniqueId");
  std::memset(Id->internal, 0, sizeof(Id->internal));
  std::lock_guard<std::mutex> Lock(M);
  std::snprintf(Id->internal, sizeof(Id->internal), "fake-%d", NextId++);
  return ncclSuccess;
}

ncclResult_t ncclCommInitAll(ncclComm_t *Comms, int N, const int *) {
  count("ncclCommInitAll");
  auto C = std::make_shared<Clique>();
  C->NRanks = N;
  for (int R = 0; R < N; ++R)
    Comms[R] = new ncclComm{R, N, C};
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *Comm, int N, ncclUniqueId Id,
                              int Rank) {
  count("ncclCommInitRank");
  std::lock_guard<std::mutex> Lock(M);
  std::shared_ptr<Clique> &C = ById[std::string(Id.internal)];
  if (!C) {
    C = std::make_shared<Clique>();
    C->NRanks = N;
  }
  *Comm = new ncclComm{Rank, N, C};
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t Comm) {
  count("ncclCommDestroy");
  delete Comm;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t Comm, int *N) {
  *N = Comm->NRanks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t Comm, int *Rank) {
  *Rank = Comm->Rank;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t Comm, int *Dev) {
  *Dev = Comm->Rank;
  return ncclSuccess;
}

ncclResult_t ncclGroupStart() {
  count("ncclGroupStart");
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  count("ncclGroupEnd");
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *S, void *R, size_t Count,
                           ncclDataType_t T, ncclComm_t Comm, cudaStream_t) {
  return collective({"ncclAllGather", S, R, Count, T, ncclSum, 0}, Comm);
}

ncclResult_t ncclAllReduce(const void *S, void *R, size_t Count,
                           ncclDataType_t T, ncclRedOp_t Op, ncclComm_t Comm,
                           cudaStream_t) {
  return collective({"ncclAllReduce", S, R, Count, T, Op, 0}, Comm);
}

ncclResult_t ncclReduceScatter(const void *S, void *R, size_t Count,
                               ncclDataType_t T, ncclRedOp_t Op,
                               ncclComm_t Comm, cudaStream_t) {
  return collective({"ncclReduceScatter", S, R, Count, T, Op, 0}, Comm);
}

ncclResult_t ncclBroadcast(const void *S, void *R, size_t Count,
                           ncclDataType_t T, int Root, ncclComm_t Comm,
                           cudaStream_t) {
  return collective({"ncclBroadcast", S, R, Count, T, ncclSum, Root}, Comm);
}

ncclResult_t ncclAlltoAll(const void *S, void *R, size_t Count,
                          ncclDataType_t T, ncclComm_t Comm, cudaStream_t) {
  return collective({"ncclAlltoAll", S, R, Count, T, ncclSum, 0}, Comm);
}

static size_t bytesOf(ncclDataType_t T) {
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

/// Delivers what can be delivered between \p Src and \p Dst.
static void match(Clique &C, int Src, int Dst) {
  auto &S = C.Sends[{Src, Dst}];
  auto &R = C.Recvs[{Src, Dst}];
  while (!S.empty() && !R.empty()) {
    std::memcpy(R.front().first, S.front().first,
                std::min(S.front().second, R.front().second));
    S.erase(S.begin());
    R.erase(R.begin());
  }
}

ncclResult_t ncclSend(const void *Buf, size_t Count, ncclDataType_t T, int Peer,
                      ncclComm_t Comm, cudaStream_t) {
  count("ncclSend");
  std::lock_guard<std::mutex> Lock(M);
  Clique &C = *Comm->Group;
  C.Sends[{Comm->Rank, Peer}].push_back({Buf, Count * bytesOf(T)});
  match(C, Comm->Rank, Peer);
  return ncclSuccess;
}

ncclResult_t ncclRecv(void *Buf, size_t Count, ncclDataType_t T, int Peer,
                      ncclComm_t Comm, cudaStream_t) {
  count("ncclRecv");
  std::lock_guard<std::mutex> Lock(M);
  Clique &C = *Comm->Group;
  C.Recvs[{Peer, Comm->Rank}].push_back({Buf, Count * bytesOf(T)});
  match(C, Peer, Comm->Rank);
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t R) {
  return R == ncclSuccess ? "no error (fake)" : "an error (fake)";
}

} // extern "C"
