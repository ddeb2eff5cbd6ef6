//===- sim/SimGridModule.h - The SimGrid engines' loadable module -*- C++
//-*-===//
//
// SimGrid (with the ns-3 libraries Debian links it to) costs every process
// that links it about 55 ms of dynamic loading and static construction, more
// than `tacclc check` of a small plan takes in all. So the code that calls
// SimGrid (SimGridEngine.cpp) is built as a module of its own,
// tacclc-simgrid.so, and loaded with dlopen() the first time a SimGrid
// engine is asked for; the other commands never load SimGrid.
//
// The module exports one C symbol, tacclcSimGridModule, returning the table
// below. Both sides are built from the same headers; the table carries the
// interface's version and the sizes of the types that cross it, so a module
// left over from other sources is refused instead of misread.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMGRIDMODULE_H
#define TACCLC_SIM_SIMGRIDMODULE_H

#include "sim/SimGridEngine.h"

#include <cstddef>
#include <string>

namespace tacclrt {

/// Bumped whenever the table or runOnSimGrid's signature changes.
inline constexpr unsigned SimGridModuleVersion = 1;

/// The C symbol the module exports: `const SimGridModule *NAME()`.
inline constexpr const char SimGridModuleEntry[] = "tacclcSimGridModule";

/// What the module offers, and the layout it was built with.
struct SimGridModule {
  unsigned Version = 0;
  /// Sizes of the types passed across, in the module's build.
  std::size_t Layout[6] = {};
  /// runOnSimGrid() of SimGridEngine.h.
  SgOutcome (*Run)(const Algo &A, const Program &P, const SimCallShape &Shape,
                   const SimMachine &M, const SimOptions &O,
                   SimEngineKind K) = nullptr;
};

/// The sizes a module must have been built with to be used by this build.
constexpr SimGridModule layoutOfThisBuild() {
  SimGridModule T;
  T.Version = SimGridModuleVersion;
  T.Layout[0] = sizeof(Algo);
  T.Layout[1] = sizeof(Program);
  T.Layout[2] = sizeof(SimCallShape);
  T.Layout[3] = sizeof(SimMachine);
  T.Layout[4] = sizeof(SimOptions);
  T.Layout[5] = sizeof(SgOutcome);
  return T;
}

/// The module, loaded on the first call (thread-safe); null when it cannot be
/// found, loaded or trusted, with \p Why saying which and where it looked.
const SimGridModule *loadSimGridModule(std::string &Why);

/// Where the module is: next to the binary as installed, else the build
/// tree's copy; empty when neither exists. \p Origin names which.
std::string simgridModulePath(std::string &Origin);

} // namespace tacclrt

#endif // TACCLC_SIM_SIMGRIDMODULE_H
