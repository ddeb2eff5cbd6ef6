//===- shim/RealNccl.h - The NCCL the shim forwards to ----------*- C++ -*-===//
//
// The real libnccl, loaded with dlopen when the shim is first used: the
// library named by TACCL_NCCL_LIBRARY, else "libnccl.so.2" as the dynamic
// linker finds it. Every function of NcclFunctions.def (and the two that
// return strings) is looked up once; one the library lacks stays null, and a
// call to it fails with ncclInvalidUsage. A library that turns out to be the
// shim itself (found first on the path) is refused.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SHIM_REALNCCL_H
#define TACCLC_SHIM_REALNCCL_H

#include "shim/NcclAbi.h"

#include <string>

namespace tacclrt::shim {

/// The real library's entry points.
struct RealNccl {
#define NCCL_FN(Name, Params, Args) ncclResult_t(*Name) Params = nullptr;
#include "shim/NcclFunctions.def"
  const char *(*ncclGetErrorString)(ncclResult_t) = nullptr;
  const char *(*ncclGetLastError)(ncclComm_t) = nullptr;
  /// ncclTeamLsa: the ranks reachable by loads and stores (2.28+).
  TacclNcclTeam (*ncclTeamLsa)(ncclComm_t) = nullptr;
  /// Where it was loaded from, or why it was not.
  std::string Path, Why;
  bool Loaded = false;
};

/// The real library (loaded on first use, once).
const RealNccl &realNccl();

} // namespace tacclrt::shim

#endif // TACCLC_SHIM_REALNCCL_H
