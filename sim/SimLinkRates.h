//===- sim/SimLinkRates.h - Max-min rates where flows changed ---*- C++ -*-===//
//
// Internal to the runtime: max-min fair rates of flows that each move over
// one link of the machine, asked for at every event of a simulation. A
// flow on a link uses that link's resources (the link and its ports), so
// flows on one link get the same rate, and the rates of a set of links
// joined by shared limited resources (a component) depend only on how many
// flows each of its links carries. Between two events most components are
// as they were (a message lands and the next on its connection takes
// over), so LinkRates recomputes only the components whose links or counts
// changed since their rates were last computed, and gives the others the
// rates they had. Components share no limited resource, so the rates are
// exactly those of one computation over all flows (FlowSharing::maxMin).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMLINKRATES_H
#define TACCLC_SIM_SIMLINKRATES_H

#include "sim/SimSharing.h"

#include <vector>

namespace tacclrt {

/// Max-min fair rates of flows over links, call after call.
class LinkRates {
public:
  /// \p Capacity is each resource's bandwidth (infinity: unlimited);
  /// \p LinkUses[L] lists the resources a flow on link L uses.
  LinkRates(std::vector<double> Capacity,
            std::vector<std::vector<int>> LinkUses);

  /// Rate[K] is the max-min fair rate of a flow on link FlowLinks[K], with
  /// one flow per entry of \p FlowLinks.
  void maxMin(const std::vector<int> &FlowLinks, std::vector<double> &Rate);

  /// Components computed by the last call (for tests): how many of the
  /// call's components were recomputed, and how many there were.
  unsigned recomputed() const { return Recomputed; }
  unsigned components() const { return Components; }

private:
  std::vector<char> Limited;
  std::vector<std::vector<int>> LinkUses;
  FlowSharing Sharing;

  // Union-find over resources, valid where Stamp is the call's.
  std::vector<unsigned long> Stamp;
  unsigned long Call = 0;
  std::vector<int> Parent;
  int find(int R);
  void unite(int A, int B);

  // Per link: flows now, the component's root now; and when its rates were
  // last computed: its flows, its component's id and size, its rate.
  std::vector<unsigned> Count, LastCount, LastSize;
  std::vector<int> Root, Links;
  std::vector<unsigned long> LastComp;
  std::vector<double> LastRate;
  unsigned long NextComp = 0;

  // Per root resource during a call: links, whether the component is as
  // last computed, and its new id when recomputed.
  std::vector<unsigned> RootLinks;
  std::vector<char> RootSame;
  std::vector<unsigned long> RootId;

  // Scratch of the recomputation.
  std::vector<const std::vector<int> *> SubUses;
  std::vector<std::size_t> SubFlows;
  std::vector<double> SubRates;
  unsigned Recomputed = 0, Components = 0;
};

} // namespace tacclrt

#endif // TACCLC_SIM_SIMLINKRATES_H
