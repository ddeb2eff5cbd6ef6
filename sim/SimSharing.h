//===- sim/SimSharing.h - How flows share links and ports -------*- C++ -*-===//
//
// Internal to the runtime: the rates of flows that cross shared resources
// (links and ports, each of some capacity), under max-min fair sharing (the
// flow-level model of SimGrid's CM02 and of most network simulators) or
// with every resource serving one flow at a time. FlowSharing keeps its
// scratch space between calls, indexed by resource, so that the engine can
// ask for rates at every event at a cost in proportion to the flows and
// the resources they use, never to every link and port of the machine;
// the two functions are the same computations for one call.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMSHARING_H
#define TACCLC_SIM_SIMSHARING_H

#include <vector>

namespace tacclrt {

/// Rates of flows over resources of fixed capacities, call after call.
class FlowSharing {
public:
  /// \p Capacity is each resource's bandwidth (bytes per microsecond,
  /// infinity for unlimited).
  explicit FlowSharing(std::vector<double> Capacity);

  /// Max-min fair rates: no flow's rate can grow without lowering that of
  /// a flow of no greater rate. Uses[F] lists the resources of flow F; a
  /// flow that uses no limited resource gets infinity. Ties between equal
  /// shares go to the resource of lower index.
  void maxMin(const std::vector<const std::vector<int> *> &Uses,
              std::vector<double> &Rate);

  /// Rates when every resource serves one flow at a time: flows are served
  /// in the order given, a flow whose resources are all free takes them at
  /// the smallest of their capacities, the others wait (rate 0).
  void serial(const std::vector<const std::vector<int> *> &Uses,
              std::vector<double> &Rate);

private:
  std::vector<double> Capacity;
  // Per resource, valid where Stamp equals the call's: what is left of it,
  // its flows not yet fixed, its heap version, its flows.
  std::vector<unsigned> Stamp;
  unsigned Call = 0;
  std::vector<double> Left;
  std::vector<unsigned> Count, Version;
  std::vector<std::vector<int>> FlowsOf;
  std::vector<int> Touched;
  std::vector<char> Fixed;

  /// Starts a call: every resource's entries become stale.
  void begin();
  /// Whether resource \p R was seen in this call; marks it seen.
  bool touch(int R);
};

/// One call of FlowSharing::maxMin, for tests and one-off use.
std::vector<double> maxMinRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses);

/// One call of FlowSharing::serial.
std::vector<double> serialRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses);

} // namespace tacclrt

#endif // TACCLC_SIM_SIMSHARING_H
