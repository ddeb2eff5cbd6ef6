//===- support/Stdlib.cpp - Where the standard library is -----------------===//
//
// resolveStdlib() is the rule of Stdlib.h on explicit inputs, so that tests
// can give it any environment and binary path; stdlibLocation() feeds it the
// process's own: $TACCLC_STDLIB, the real path of /proc/self/exe, and the two
// paths the build compiles in (TACCLC_STDLIB_INSTALLED_REL and
// TACCLC_STDLIB_SOURCE_DIR, support/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "support/Stdlib.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace tacclc;

StdlibLocation tacclc::resolveStdlib(const std::optional<std::string> &Env,
                                     llvm::StringRef ExePath,
                                     llvm::StringRef InstalledRel,
                                     llvm::StringRef SourceDir) {
  StdlibLocation L;
  if (Env && !Env->empty()) {
    L.Dir = *Env;
    L.Origin = StdlibOrigin::Environment;
    L.Exists = llvm::sys::fs::is_directory(L.Dir);
    return L;
  }
  if (!ExePath.empty()) {
    llvm::SmallString<256> Installed(llvm::sys::path::parent_path(ExePath));
    llvm::sys::path::append(Installed, InstalledRel);
    llvm::sys::path::remove_dots(Installed, /*remove_dot_dot=*/true);
    if (llvm::sys::fs::is_directory(Installed)) {
      L.Dir = Installed.str().str();
      L.Origin = StdlibOrigin::Installed;
      L.Exists = true;
      return L;
    }
  }
  L.Dir = SourceDir.str();
  L.Origin = StdlibOrigin::SourceTree;
  L.Exists = llvm::sys::fs::is_directory(L.Dir);
  return L;
}

const StdlibLocation &tacclc::stdlibLocation() {
  static const StdlibLocation L = [] {
    llvm::SmallString<256> Exe;
    if (llvm::sys::fs::real_path("/proc/self/exe", Exe))
      Exe.clear();
    std::optional<std::string> Env;
    if (llvm::Optional<std::string> E =
            llvm::sys::Process::GetEnv("TACCLC_STDLIB"))
      Env = *E;
    return resolveStdlib(Env, Exe, TACCLC_STDLIB_INSTALLED_REL,
                         TACCLC_STDLIB_SOURCE_DIR);
  }();
  return L;
}

std::string tacclc::stdlibDir() { return stdlibLocation().Dir; }

std::string tacclc::describeStdlib(const StdlibLocation &L) {
  const char *From = "";
  switch (L.Origin) {
  case StdlibOrigin::Environment:
    From = "from TACCLC_STDLIB";
    break;
  case StdlibOrigin::Installed:
    From = "installed beside the binary";
    break;
  case StdlibOrigin::SourceTree:
    From = "the source tree of this build";
    break;
  }
  return "standard library: " + L.Dir + " (" + From +
         (L.Exists ? "" : "; not a directory") + ")";
}
