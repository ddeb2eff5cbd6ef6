//===- shim/RealNccl.cpp - The NCCL the shim forwards to ------------------===//
//
// realNccl() (RealNccl.h): dlopen with RTLD_NOW | RTLD_LOCAL, so the real
// library's symbols do not interpose on the shim's, and dlsym for each entry
// point. Loaded once, thread-safely (a function-local static).
//
//===----------------------------------------------------------------------===//
#include "shim/RealNccl.h"

#include <dlfcn.h>

#include <cstdlib>

using namespace tacclrt::shim;

// The shim's own export, to recognise a library that is the shim again.
extern "C" ncclResult_t ncclGetVersion(int *version);

namespace {

RealNccl load() {
  RealNccl R;
  const char *Env = std::getenv("TACCL_NCCL_LIBRARY");
  R.Path = Env && *Env ? Env : "libnccl.so.2";
  void *H = dlopen(R.Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *E = dlerror();
    R.Why = "cannot load the real NCCL '" + R.Path +
            "': " + (E ? E : "unknown error") +
            " (set TACCL_NCCL_LIBRARY to its path)";
    return R;
  }
  void *Own = dlsym(H, "ncclGetVersion");
  if (Own == reinterpret_cast<void *>(&::ncclGetVersion)) {
    R.Why = "'" + R.Path +
            "' is libtaccl-nccl itself; set "
            "TACCL_NCCL_LIBRARY to the real libnccl";
    return R;
  }
#define NCCL_FN(Name, Params, Args)                                            \
  R.Name = reinterpret_cast<decltype(R.Name)>(dlsym(H, #Name));
#include "shim/NcclFunctions.def"
  R.ncclGetErrorString = reinterpret_cast<decltype(R.ncclGetErrorString)>(
      dlsym(H, "ncclGetErrorString"));
  R.ncclGetLastError = reinterpret_cast<decltype(R.ncclGetLastError)>(
      dlsym(H, "ncclGetLastError"));
  R.ncclTeamLsa =
      reinterpret_cast<decltype(R.ncclTeamLsa)>(dlsym(H, "ncclTeamLsa"));
  R.Loaded = true;
  return R;
}

} // namespace

const RealNccl &tacclrt::shim::realNccl() {
  static const RealNccl R = load();
  return R;
}
