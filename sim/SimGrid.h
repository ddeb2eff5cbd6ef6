//===- sim/SimGrid.h - Simulation engines -----------------------*- C++ -*-===//
//
// The engines that can time a TACCL-EF plan, and one entry point for all of
// them. The in-house engine (Simulator.h) is fast and the default; the
// SimGrid engines are the referee: the same plan semantics (threadblocks,
// FIFO steps, dependencies, the runtime's slices, the protocols' costs)
// executed on SimGrid, the established flow-level simulator of distributed
// systems, so the bandwidth sharing is SimGrid's, not ours:
//   - simgrid       SimGrid's CM02 network model with latency and bandwidth
//                   factors 1: pure max-min fair sharing;
//   - simgrid:lv08  SimGrid's default LV08 model, calibrated for TCP (a
//                   bandwidth factor of 0.97, a latency factor of 13.01 on
//                   the links' own latency, a TCP window bound);
//   - simgrid:ns3   SimGrid's ns-3 binding: packets through ns-3's
//                   point-to-point devices and TCP (slow: small plans).
// They are built only where SimGrid is found, as a module loaded on first use
// (SimGridModule.h); without it every SimGrid engine is refused with the
// reason.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMGRID_H
#define TACCLC_SIM_SIMGRID_H

#include "sim/Simulator.h"

#include <optional>
#include <string>
#include <string_view>

namespace tacclrt {

/// A simulation engine.
enum class SimEngineKind {
  InHouse,     ///< simulate() of Simulator.h.
  SimGrid,     ///< SimGrid, CM02 max-min with factors 1.
  SimGridLv08, ///< SimGrid, LV08 (TCP-calibrated flow model).
  SimGridNs3,  ///< SimGrid's ns-3 packet-level binding.
};

/// The engine named \p Name ("inhouse", "simgrid", "simgrid:cm02",
/// "simgrid:lv08", "simgrid:ns3"), or nothing.
std::optional<SimEngineKind> parseSimEngine(std::string_view Name);

/// The canonical name of \p K, as parseSimEngine accepts it.
const char *nameOf(SimEngineKind K);

/// True when this build can run \p K; otherwise \p Why says why not.
bool engineAvailable(SimEngineKind K, std::string &Why);

/// One line for `--version`: where the SimGrid engines' module is (found
/// without loading it), or why this build has none.
std::string describeSimGridEngines();

/// Simulates one call of \p A on \p M with engine \p K. \p FileName labels
/// issues. An engine this build lacks gives a result with an error.
SimResult simulateOn(SimEngineKind K, const Algo &A, const SimMachine &M,
                     const SimOptions &Opts, std::string_view FileName = {});

} // namespace tacclrt

#endif // TACCLC_SIM_SIMGRID_H
