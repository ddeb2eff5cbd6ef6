//===- sim/SimSharing.h - How flows share links and ports -------*- C++ -*-===//
//
// Internal to the runtime: the rates of flows that cross shared resources
// (links and ports, each of some capacity), under max-min fair sharing (the
// flow-level model of SimGrid's CM02 and of most network simulators) or
// with every resource serving one flow at a time. Both functions are pure,
// so the engine can call them whenever the set of flows changes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMSHARING_H
#define TACCLC_SIM_SIMSHARING_H

#include <vector>

namespace tacclrt {

/// Max-min fair rates: no flow's rate can grow without lowering that of a
/// flow of no greater rate. \p Capacity is each resource's bandwidth (bytes
/// per microsecond, infinity for unlimited); \p Uses lists the resources of
/// every flow. A flow that uses no limited resource gets infinity.
std::vector<double> maxMinRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses);

/// Rates when every resource serves one flow at a time: flows are served in
/// the order given, a flow whose resources are all free takes them at the
/// smallest of their capacities, the others wait (rate 0).
std::vector<double> serialRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses);

} // namespace tacclrt

#endif // TACCLC_SIM_SIMSHARING_H
