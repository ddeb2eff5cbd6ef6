//===- support/Stdlib.h - Where the standard library is ---------*- C++ -*-===//
//
// Imports search the standard library (stdlib-sketches/) last. Every tool
// finds it here, in this order:
//   1. $TACCLC_STDLIB, when set and not empty (an override, taken as is);
//   2. next to the running binary, as `cmake --install` lays it out:
//      BINDIR/../share/tacclc/stdlib (the relative path is fixed at
//      configure time from GNUInstallDirs), found through /proc/self/exe, so
//      a symbolic link to the binary finds the real install;
//   3. the source tree the binary was built from, for a build that is not
//      installed.
// `tacclc --version` prints which one a binary uses and why.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_STDLIB_H
#define TACCLC_SUPPORT_STDLIB_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tacclc {

/// Where the standard library in use was found.
enum class StdlibOrigin {
  Environment, ///< $TACCLC_STDLIB.
  Installed,   ///< Beside the running binary (an installed tree).
  SourceTree,  ///< The source tree of the build.
};

/// The standard library's folder and how it was chosen.
struct StdlibLocation {
  std::string Dir;
  StdlibOrigin Origin = StdlibOrigin::SourceTree;
  bool Exists = false; ///< Whether Dir is a directory.
};

/// Chooses the standard library from explicit inputs (no process state):
/// \p Env is $TACCLC_STDLIB (unset: nothing), \p ExePath the running binary's
/// real path (empty when unknown), \p InstalledRel the stdlib relative to the
/// binary's folder, \p SourceDir the source tree's stdlib-sketches/.
StdlibLocation resolveStdlib(const std::optional<std::string> &Env,
                             llvm::StringRef ExePath,
                             llvm::StringRef InstalledRel,
                             llvm::StringRef SourceDir);

/// The standard library of this process (resolved once).
const StdlibLocation &stdlibLocation();

/// The folder imports search last: stdlibLocation().Dir.
std::string stdlibDir();

/// One line for `--version`: the folder and where it came from, e.g.
/// "standard library: /usr/share/tacclc/stdlib (installed beside the
/// binary)".
std::string describeStdlib(const StdlibLocation &L);

} // namespace tacclc

#endif // TACCLC_SUPPORT_STDLIB_H
