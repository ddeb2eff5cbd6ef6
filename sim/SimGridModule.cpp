//===- sim/SimGridModule.cpp - Finding and loading tacclc-simgrid.so ------===//
//
// The module is looked for where an install puts it, relative to the real
// path of the running binary (TACCLC_SIMGRID_MODULE_INSTALLED_REL, so an
// install tree can move), then at the path the build wrote it to
// (TACCLC_SIMGRID_MODULE_BUILT, for binaries run from the build tree: the
// compiler and the unit tests). It is loaded once per process, with its
// symbols private to it, and checked against this build's layout.
//
//===----------------------------------------------------------------------===//
#include "sim/SimGridModule.h"

#include <dlfcn.h>
#include <limits.h>
#include <mutex>
#include <stdlib.h>
#include <sys/stat.h>

namespace tacclrt {

namespace {

bool isFile(const std::string &Path) {
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode);
}

/// The installed location: the directory of the real path of
/// /proc/self/exe, then the relative path the build computed.
std::string installedPath() {
  char Buf[PATH_MAX];
  if (!::realpath("/proc/self/exe", Buf))
    return {};
  std::string Exe(Buf);
  std::size_t Slash = Exe.rfind('/');
  if (Slash == std::string::npos)
    return {};
  std::string Path =
      Exe.substr(0, Slash + 1) + TACCLC_SIMGRID_MODULE_INSTALLED_REL;
  // Without its "..", for the messages.
  return ::realpath(Path.c_str(), Buf) ? std::string(Buf) : Path;
}

struct Loaded {
  const SimGridModule *Module = nullptr;
  std::string Why;
};

Loaded load() {
  Loaded L;
  std::string Origin;
  std::string Path = simgridModulePath(Origin);
  if (Path.empty()) {
    L.Why = "the SimGrid engine module tacclc-simgrid.so is missing (looked "
            "for " +
            installedPath() + " and " + TACCLC_SIMGRID_MODULE_BUILT +
            "); reinstall tacclc or rebuild it";
    return L;
  }
  void *Handle = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *Err = ::dlerror();
    L.Why = "cannot load the SimGrid engine module " + Path + ": " +
            (Err ? Err : "unknown error");
    return L;
  }
  using Entry = const SimGridModule *();
  auto *Fn = reinterpret_cast<Entry *>(::dlsym(Handle, SimGridModuleEntry));
  const SimGridModule *M = Fn ? Fn() : nullptr;
  constexpr SimGridModule Want = layoutOfThisBuild();
  bool Match = M && M->Run && M->Version == Want.Version;
  for (std::size_t I = 0; Match && I < std::size(Want.Layout); ++I)
    Match = M->Layout[I] == Want.Layout[I];
  if (!Match) {
    // Left loaded: unloading a library that constructed SimGrid's statics
    // is not safe, and the process asks once.
    L.Why = "the SimGrid engine module " + Path +
            " was built from other sources than this binary; reinstall "
            "tacclc or rebuild it";
    return L;
  }
  L.Module = M;
  return L;
}

} // namespace

std::string simgridModulePath(std::string &Origin) {
  std::string Installed = installedPath();
  if (!Installed.empty() && isFile(Installed)) {
    Origin = "beside the binary";
    return Installed;
  }
  if (isFile(TACCLC_SIMGRID_MODULE_BUILT)) {
    Origin = "the build tree";
    return TACCLC_SIMGRID_MODULE_BUILT;
  }
  Origin.clear();
  return {};
}

const SimGridModule *loadSimGridModule(std::string &Why) {
  static std::once_flag Once;
  static Loaded L;
  std::call_once(Once, [] { L = load(); });
  Why = L.Why;
  return L.Module;
}

} // namespace tacclrt
