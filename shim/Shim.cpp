//===- shim/Shim.cpp - libtaccl-nccl's exported NCCL API ------------------===//
//
// The library PyTorch loads in place of libnccl (LD_PRELOAD, or first on the
// library path). Every NCCL function is exported. Those that create and
// destroy communicators are forwarded and followed (rank, size, device, and
// which communicators were made together); the collectives are served by a
// TACCL-EF algorithm when one matches the call (AlgoRegistry) and a backend
// runs (ShimBackend), else forwarded; everything else is forwarded as it is.
// This file holds the shared state, the communicator hooks and the match and
// run of a collective; the collectives' entry points are ShimCollectives.cpp.
// Calls made inside ncclGroupStart/ncclGroupEnd are held until the group
// ends (ShimGroups.cpp): a single collective an algorithm serves is then
// served after NCCL's group, everything else goes to NCCL inside it.
// On first use the shim loads the algorithm directories (TACCL_ALGO_DIR,
// then MSCCL_ALGO_DIR; colon-separated lists) and reports every file that
// does not load, once, with the reason. TACCL_DEBUG=INFO logs, as
// NCCL_DEBUG=INFO does for NCCL, what the library serves (ShimInfo.h: one
// node; across nodes the MSCCL executor), whether each new communicator's
// calls may be served and why not, and what served each call.
//
//===----------------------------------------------------------------------===//
#include "shim/AlgoRegistry.h"
#include "shim/NcclAbi.h"
#include "shim/RealNccl.h"
#include "shim/ShimBackend.h"
#include "shim/ShimInfo.h"
#include "shim/ShimInternal.h"

#include "format/Collective.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

using namespace tacclrt;
using namespace tacclrt::shim;

namespace {

struct ShimState {
  AlgoRegistry Registry;
  std::unique_ptr<ShimBackend> Backend;
  bool Info = false;
  std::mutex M;
  std::map<ncclComm_t, CommInfo> Comms;
  std::uint64_t NextClique = 1;
};

void split(const char *List, std::vector<std::string> &Out) {
  if (!List)
    return;
  std::string S(List);
  for (size_t At = 0; At <= S.size();) {
    size_t End = S.find(':', At);
    if (End == std::string::npos)
      End = S.size();
    if (End > At)
      Out.push_back(S.substr(At, End - At));
    At = End + 1;
  }
}

/// TACCL_DEBUG=INFO at start: what was loaded, the backend, the real NCCL
/// (its version) and what the library serves.
void reportStart(const ShimState &St) {
  const RealNccl &R = realNccl();
  int Code = 0;
  std::string Nccl = R.Why;
  if (R.Loaded)
    Nccl = R.Path + " (version " +
           (R.ncclGetVersion && R.ncclGetVersion(&Code) == ncclSuccess
                ? ncclVersionText(Code)
                : std::string("unknown")) +
           ")";
  std::fprintf(stderr,
               "TACCL INFO %zu algorithm(s) loaded, %zu not; backend %s; "
               "NCCL %s\n%s\n",
               St.Registry.algorithms().size(), St.Registry.failures().size(),
               St.Backend ? St.Backend->name() : "off", Nccl.c_str(),
               scopeLine().c_str());
}

ShimState &state() {
  static ShimState *S = [] {
    auto *St = new ShimState();
    const char *Debug = std::getenv("TACCL_DEBUG");
    St->Info = Debug && (std::strcmp(Debug, "INFO") == 0 ||
                         std::strcmp(Debug, "info") == 0);
    std::vector<std::string> Dirs;
    split(std::getenv("TACCL_ALGO_DIR"), Dirs);
    split(std::getenv("MSCCL_ALGO_DIR"), Dirs);
    for (const std::string &D : Dirs)
      St->Registry.loadDirectory(D);
    St->Registry.finish();
    for (const LoadFailure &F : St->Registry.failures())
      std::fprintf(stderr, "TACCL WARN %s not loaded: %s\n", F.Path.c_str(),
                   F.Why.c_str());
    const char *B = std::getenv("TACCL_BACKEND");
    std::string Backend = B && *B ? B : "cuda";
    if (Backend == "cpu")
      St->Backend = makeCpuBackend();
    else if (Backend == "cuda")
      St->Backend = makeCudaBackend();
    if (!St->Backend && Backend != "off")
      std::fprintf(stderr,
                   "TACCL WARN backend '%s' is not available in this build; "
                   "every call goes to NCCL\n",
                   Backend.c_str());
    if (St->Info)
      reportStart(*St);
    return St;
  }();
  return *S;
}

ncclResult_t missing(const char *Name) {
  const RealNccl &R = realNccl();
  std::fprintf(stderr, "TACCL WARN %s: %s\n", Name,
               R.Loaded ? "the real NCCL does not have it" : R.Why.c_str());
  return R.Loaded ? ncclInvalidUsage : ncclSystemError;
}

/// Records communicators the real library made together.
void follow(ncclComm_t *Comms, int N, std::uint64_t Clique, bool SharedProcess,
            bool NonBlocking = false) {
  ShimState &S = state();
  std::lock_guard<std::mutex> Lock(S.M);
  for (int K = 0; K < N; ++K) {
    CommInfo I;
    I.Comm = Comms[K];
    I.Clique = Clique;
    I.Rank = -1; // asked of the real library on first use
    // Made inside a group: one thread drives several ranks.
    I.SharedProcess = SharedProcess || groupDepth() > 0;
    I.NonBlocking = NonBlocking;
    S.Comms[Comms[K]] = I;
  }
}

/// Whether \p Config asks for a non-blocking communicator. The fields read
/// are the first of every ncclConfig_t version: size, magic, version,
/// blocking (unset: blocking).
bool nonBlocking(const ncclConfig_t *Config) {
  struct Prefix {
    size_t Size;
    unsigned Magic, Version;
    int Blocking;
  };
  if (!Config)
    return false;
  const auto *P = reinterpret_cast<const Prefix *>(Config);
  return P->Magic == 0xcafebeef && P->Blocking == 0;
}

std::uint64_t cliqueOf(const ncclUniqueId &Id) {
  std::uint64_t H = 1469598103934665603ull; // FNV-1a
  for (char C : Id.internal)
    H = (H ^ static_cast<unsigned char>(C)) * 1099511628211ull;
  return H | (1ull << 63);
}

/// The shim's view of \p Comm; false when the real library cannot say.
bool infoOf(ncclComm_t Comm, CommInfo &Out) {
  ShimState &S = state();
  std::lock_guard<std::mutex> Lock(S.M);
  auto It = S.Comms.find(Comm);
  if (It == S.Comms.end()) {
    CommInfo I;
    I.Comm = Comm;
    I.Clique = S.NextClique++;
    I.Rank = -1;
    It = S.Comms.emplace(Comm, I).first;
  }
  CommInfo &I = It->second;
  if (I.Rank < 0) {
    const RealNccl &R = realNccl();
    if (!R.ncclCommUserRank || !R.ncclCommCount ||
        R.ncclCommUserRank(Comm, &I.Rank) != ncclSuccess ||
        R.ncclCommCount(Comm, &I.NRanks) != ncclSuccess) {
      I.Rank = -1;
      return false;
    }
    if (R.ncclCommCuDevice)
      R.ncclCommCuDevice(Comm, &I.Device);
  }
  Out = I;
  return true;
}

/// Why the calls of \p I are not served, or Decline::None (calls an
/// algorithm matches are). \p I.Rank < 0: not known yet.
Decline declineOf(const CommInfo &I) {
  ShimState &S = state();
  if (!S.Backend)
    return Decline::NoBackend;
  if (I.NonBlocking)
    return Decline::NonBlocking;
  return S.Backend->declines(I);
}

/// TACCL_DEBUG=INFO: which calls of the new communicator \p Comm may be
/// served. Its rank and size are asked of the real NCCL unless it may still
/// be initializing (non-blocking, or created inside a group).
void announce(ncclComm_t Comm) {
  ShimState &S = state();
  if (!S.Info)
    return;
  CommInfo I;
  {
    std::lock_guard<std::mutex> Lock(S.M);
    auto It = S.Comms.find(Comm);
    if (It == S.Comms.end())
      return;
    I = It->second;
  }
  if (I.NonBlocking || groupDepth() > 0 || !infoOf(Comm, I))
    I.Rank = -1;
  CommFacts F;
  F.Rank = I.Rank;
  F.NRanks = I.Rank >= 0 ? I.NRanks : 0;
  F.Backend = S.Backend ? S.Backend->name() : nullptr;
  F.Scope = S.Backend ? S.Backend->scope() : "";
  for (const LoadedAlgo &A : S.Registry.algorithms())
    F.Algorithms += A.A.NGpus == F.NRanks;
  F.Why = declineOf(I);
  if (F.Why == Decline::None && F.NRanks == 0)
    F.Why = Decline::Unknown;
  else if (F.Why == Decline::None && F.Algorithms == 0)
    F.Why = Decline::NoAlgorithm;
  std::fprintf(stderr, "%s\n", commInitLine(F).c_str());
}

std::optional<ReduceOp> opOf(ncclRedOp_t Op) {
  switch (Op) {
  case ncclSum:
    return ReduceOp::Sum;
  case ncclProd:
    return ReduceOp::Prod;
  case ncclMin:
    return ReduceOp::Min;
  case ncclMax:
    return ReduceOp::Max;
  default:
    return std::nullopt; // avg and PreMulSum: NCCL's
  }
}

} // namespace

bool tacclrt::shim::matchCall(CollKind Coll, const void *Send, void *Recv,
                              size_t Count, ncclDataType_t Type, ncclRedOp_t Op,
                              int Root, ncclComm_t Comm, cudaStream_t Stream,
                              CommInfo &I, ServedCall &C) {
  ShimState &S = state();
  if (!shimServes() || !infoOf(Comm, I) || declineOf(I) != Decline::None)
    return false;
  C.Shape.Coll = Coll;
  C.Shape.NRanks = unsigned(I.NRanks);
  C.Shape.Count = Count;
  C.Shape.Type = typeOf(Type);
  C.Shape.Op = isReduction(Coll) ? opOf(Op) : std::optional<ReduceOp>();
  C.Shape.Root = Root;
  if (!C.Shape.Type)
    return false;
  // NCCL's in-place layouts: an allgather's input is the rank's block of
  // its output and a reducescatter's output the rank's block of its input;
  // for gather and scatter the block is the root's (nccl.h).
  const bool Rooted = Coll == CollKind::Gather || Coll == CollKind::Scatter;
  const size_t Block =
      Count * sizeOf(*C.Shape.Type) * size_t(Rooted ? Root : I.Rank);
  const char *SendC = static_cast<const char *>(Send);
  const char *RecvC = static_cast<const char *>(Recv);
  const bool Gathers = Coll == CollKind::AllGather || Coll == CollKind::Gather;
  const bool Scatters =
      Coll == CollKind::ReduceScatter || Coll == CollKind::Scatter;
  C.Shape.InPlace = Gathers    ? SendC == RecvC + Block
                    : Scatters ? RecvC == SendC + Block
                               : SendC == RecvC;
  C.Algo = S.Registry.select(C.Shape);
  if (!C.Algo)
    return false;
  C.Send = Send;
  C.Recv = Recv;
  C.Stream = Stream;
  C.All = &S.Registry.algorithms();
  return S.Backend->ready(I, C);
}

ncclResult_t tacclrt::shim::runMatched(const CommInfo &I, const ServedCall &C) {
  ShimState &S = state();
  std::string Why;
  auto T0 = std::chrono::steady_clock::now();
  ncclResult_t R = S.Backend->run(I, C, Why);
  const double Us = std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - T0)
                        .count();
  const CollKind Coll = C.Shape.Coll;
  const std::uint64_t Bytes =
      AlgoRegistry::callBytes(C.Shape, sizeOf(*C.Shape.Type));
  if (R != ncclSuccess)
    std::fprintf(stderr, "TACCL WARN rank %d: %s of %llu B by %s failed: %s\n",
                 I.Rank, std::string(nameOf(Coll)).c_str(),
                 static_cast<unsigned long long>(Bytes), C.Algo->Path.c_str(),
                 Why.c_str());
  else if (S.Info)
    std::fprintf(stderr,
                 "TACCL INFO rank %d: %s of %llu B (%s) served by %s on %s "
                 "in %.1f us\n",
                 I.Rank, std::string(nameOf(Coll)).c_str(),
                 static_cast<unsigned long long>(Bytes),
                 C.Shape.InPlace ? "in place" : "out of place",
                 C.Algo->Path.c_str(), S.Backend->name(), Us);
  return R;
}

namespace {

void forget(ncclComm_t Comm, bool Aborting) {
  ShimState &S = state();
  if (S.Backend)
    S.Backend->forget(Comm, Aborting);
  std::lock_guard<std::mutex> Lock(S.M);
  S.Comms.erase(Comm);
}

} // namespace

// forward_NAME: the real library's NAME.
#define NCCL_FN(Name, Params, Args)                                            \
  ncclResult_t tacclrt::shim::forward_##Name Params {                          \
    const RealNccl &R = realNccl();                                            \
    return R.Name ? R.Name Args : missing(#Name);                              \
  }
#include "shim/NcclFunctions.def"

bool tacclrt::shim::shimServes() {
  ShimState &S = state();
  return S.Backend && !S.Registry.algorithms().empty();
}

bool tacclrt::shim::groupedAlltoallEnabled() {
  static const bool On = [] {
    const char *E = std::getenv("TACCL_GROUPED_ALLTOALL");
    return E && std::strcmp(E, "1") == 0;
  }();
  return On;
}

std::optional<DataType> tacclrt::shim::typeOf(ncclDataType_t T) {
  switch (T) {
  case ncclInt8:
    return DataType::Int8;
  case ncclUint8:
    return DataType::UInt8;
  case ncclInt32:
    return DataType::Int32;
  case ncclUint32:
    return DataType::UInt32;
  case ncclInt64:
    return DataType::Int64;
  case ncclUint64:
    return DataType::UInt64;
  case ncclFloat16:
    return DataType::Float16;
  case ncclFloat32:
    return DataType::Float32;
  case ncclFloat64:
    return DataType::Float64;
  case ncclBfloat16:
    return DataType::BFloat16;
  default:
    return std::nullopt;
  }
}

int &tacclrt::shim::groupDepth() {
  thread_local int Depth = 0;
  return Depth;
}

extern "C" {

// Forwarded as they are.
#define NCCL_HOOKED_FN(Name, Params, Args)
#define NCCL_FN(Name, Params, Args)                                            \
  __attribute__((visibility("default"))) ncclResult_t Name Params {            \
    return forward_##Name Args;                                                \
  }
#include "shim/NcclFunctions.def"

#define TACCL_EXPORT __attribute__((visibility("default")))

TACCL_EXPORT const char *ncclGetErrorString(ncclResult_t Result) {
  const RealNccl &R = realNccl();
  return R.ncclGetErrorString ? R.ncclGetErrorString(Result)
                              : "unknown (the real NCCL is not loaded)";
}

TACCL_EXPORT const char *ncclGetLastError(ncclComm_t Comm) {
  const RealNccl &R = realNccl();
  return R.ncclGetLastError ? R.ncclGetLastError(Comm) : R.Why.c_str();
}

TACCL_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *Comm, int NRanks,
                                           ncclUniqueId Id, int Rank) {
  state();
  ncclResult_t R = forward_ncclCommInitRank(Comm, NRanks, Id, Rank);
  if (R == ncclSuccess) {
    follow(Comm, 1, cliqueOf(Id), false);
    announce(*Comm);
  }
  return R;
}

TACCL_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *Comm, int NRanks,
                                                 ncclUniqueId Id, int Rank,
                                                 ncclConfig_t *Config) {
  state();
  ncclResult_t R =
      forward_ncclCommInitRankConfig(Comm, NRanks, Id, Rank, Config);
  if (R == ncclSuccess || R == ncclInProgress) {
    follow(Comm, 1, cliqueOf(Id), false, nonBlocking(Config));
    announce(*Comm);
  }
  return R;
}

TACCL_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *Comms, int N,
                                          const int *Devs) {
  ShimState &S = state();
  ncclResult_t R = forward_ncclCommInitAll(Comms, N, Devs);
  if (R == ncclSuccess) {
    std::uint64_t Clique;
    {
      std::lock_guard<std::mutex> Lock(S.M);
      Clique = S.NextClique++;
    }
    follow(Comms, N, Clique, N > 1);
    for (int K = 0; K < N; ++K)
      announce(Comms[K]);
  }
  return R;
}

TACCL_EXPORT ncclResult_t ncclCommSplit(ncclComm_t Comm, int Color, int Key,
                                        ncclComm_t *New, ncclConfig_t *Config) {
  // The new communicator is learnt on first use (its own clique).
  ncclResult_t R = forward_ncclCommSplit(Comm, Color, Key, New, Config);
  if ((R == ncclSuccess || R == ncclInProgress) && New && *New) {
    ShimState &S = state();
    std::uint64_t Clique;
    {
      std::lock_guard<std::mutex> Lock(S.M);
      Clique = S.NextClique++;
    }
    follow(New, 1, Clique, false, nonBlocking(Config));
    announce(*New);
  }
  return R;
}

TACCL_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t Comm) {
  forget(Comm, false);
  return forward_ncclCommDestroy(Comm);
}

TACCL_EXPORT ncclResult_t ncclCommAbort(ncclComm_t Comm) {
  forget(Comm, true);
  return forward_ncclCommAbort(Comm);
}

} // extern "C"
