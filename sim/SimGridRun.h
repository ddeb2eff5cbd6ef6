//===- sim/SimGridRun.h - The SimGrid engines' entry ------------*- C++ -*-===//
//
// Internal to the engine library: what SimEngines.cpp calls for a SimGrid
// engine. SimGridRun.cpp defines it where SimGrid was found at build time,
// SimGridUnavailable.cpp (the same functions refusing with the reason)
// elsewhere.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMGRIDRUN_H
#define TACCLC_SIM_SIMGRIDRUN_H

#include "sim/SimGrid.h"

#include <string>
#include <string_view>

namespace tacclrt {

/// True when this build can run SimGrid engine \p K; else \p Why says why.
bool simgridAvailable(SimEngineKind K, std::string &Why);

/// Simulates one call of \p A on \p M with SimGrid engine \p K, in a child
/// process (SimGrid allows one simulation per process).
SimResult simulateSimGrid(SimEngineKind K, const Algo &A, const SimMachine &M,
                          const SimOptions &Opts, std::string_view FileName);

} // namespace tacclrt

#endif // TACCLC_SIM_SIMGRIDRUN_H
