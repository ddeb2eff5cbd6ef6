//===- sim/SimLinkRates.cpp - Max-min rates, recomputed where changed -----===//
//
// A call: count the flows per link; join every link's limited resources
// in a union-find (stamped per call, so nothing of the machine's size is
// cleared), which puts links that share a limited resource, directly or
// through others, in one component; a component is as last computed when
// each of its links was last computed in the same component, of the same
// number of links, with the same count of flows. Those keep their links'
// rates; the flows of the others go to FlowSharing::maxMin together, and
// their links remember the new component, size, counts and rates. A link
// not moving now keeps what it remembered: a component that later holds
// it again matches only if none of its old component's links was
// recomputed in between (each would have got a new id). The cost is the
// flows and resources of the call plus the max-min filling of the changed
// components only.
//
//===----------------------------------------------------------------------===//
#include "sim/SimLinkRates.h"

#include <cmath>
#include <limits>

namespace tacclrt {

LinkRates::LinkRates(std::vector<double> Capacity,
                     std::vector<std::vector<int>> LinkUses)
    : LinkUses(std::move(LinkUses)), Sharing(Capacity) {
  for (double C : Capacity)
    Limited.push_back(std::isfinite(C) ? 1 : 0);
  const std::size_t NR = Capacity.size(), NL = this->LinkUses.size();
  Stamp.assign(NR, 0);
  Parent.assign(NR, 0);
  RootLinks.assign(NR, 0);
  RootSame.assign(NR, 0);
  RootId.assign(NR, 0);
  Count.assign(NL, 0);
  LastCount.assign(NL, 0);
  LastSize.assign(NL, 0);
  Root.assign(NL, -1);
  LastComp.assign(NL, 0);
  LastRate.assign(NL, 0);
}

int LinkRates::find(int R) {
  std::size_t X = static_cast<std::size_t>(R);
  if (Stamp[X] != Call) {
    Stamp[X] = Call;
    Parent[X] = R;
    return R;
  }
  while (Parent[X] != static_cast<int>(X)) {
    std::size_t Up = static_cast<std::size_t>(Parent[X]);
    Parent[X] = Parent[Up]; // path halving
    X = static_cast<std::size_t>(Parent[X]);
  }
  return static_cast<int>(X);
}

void LinkRates::unite(int A, int B) {
  A = find(A);
  B = find(B);
  if (A == B)
    return;
  // The lower index becomes the root: the same input, the same roots.
  if (B < A)
    std::swap(A, B);
  Parent[static_cast<std::size_t>(B)] = A;
}

void LinkRates::maxMin(const std::vector<int> &FlowLinks,
                       std::vector<double> &Rate) {
  const double Inf = std::numeric_limits<double>::infinity();
  ++Call;
  for (int L : Links)
    Count[static_cast<std::size_t>(L)] = 0;
  Links.clear();
  for (int L : FlowLinks)
    if (Count[static_cast<std::size_t>(L)]++ == 0)
      Links.push_back(L);
  // Components: a link's limited resources joined.
  for (int L : Links) {
    int First = -1;
    for (int Res : LinkUses[static_cast<std::size_t>(L)]) {
      if (!Limited[static_cast<std::size_t>(Res)])
        continue;
      if (First < 0)
        First = find(Res);
      else
        unite(First, Res);
    }
    Root[static_cast<std::size_t>(L)] = First;
  }
  // Per component: its links, and whether each was last computed in one
  // component of as many links with as many flows.
  Components = Recomputed = 0;
  for (int L : Links) {
    std::size_t I = static_cast<std::size_t>(L);
    if (Root[I] < 0)
      continue;
    Root[I] = find(Root[I]);
    std::size_t R = static_cast<std::size_t>(Root[I]);
    RootLinks[R] = 0;
    RootSame[R] = LastComp[I] != 0;
    RootId[R] = LastComp[I];
  }
  for (int L : Links) {
    std::size_t I = static_cast<std::size_t>(L);
    if (Root[I] < 0)
      continue;
    std::size_t R = static_cast<std::size_t>(Root[I]);
    Components += RootLinks[R]++ == 0;
    if (LastComp[I] != RootId[R] || LastCount[I] != Count[I])
      RootSame[R] = 0;
  }
  for (int L : Links) {
    std::size_t I = static_cast<std::size_t>(L);
    if (Root[I] < 0)
      continue;
    std::size_t R = static_cast<std::size_t>(Root[I]);
    if (LastSize[I] != RootLinks[R])
      RootSame[R] = 0;
  }
  // The changed components' flows, computed together.
  Rate.assign(FlowLinks.size(), Inf);
  SubUses.clear();
  SubFlows.clear();
  for (std::size_t F = 0; F < FlowLinks.size(); ++F) {
    std::size_t I = static_cast<std::size_t>(FlowLinks[F]);
    if (Root[I] < 0)
      continue; // no limited resource: unlimited
    if (RootSame[static_cast<std::size_t>(Root[I])]) {
      Rate[F] = LastRate[I];
      continue;
    }
    SubUses.push_back(&LinkUses[I]);
    SubFlows.push_back(F);
  }
  if (!SubFlows.empty())
    Sharing.maxMin(SubUses, SubRates);
  for (std::size_t K = 0; K < SubFlows.size(); ++K) {
    Rate[SubFlows[K]] = SubRates[K];
    LastRate[static_cast<std::size_t>(FlowLinks[SubFlows[K]])] = SubRates[K];
  }
  // The recomputed components' links remember them (RootSame 2: has its
  // new id).
  for (int L : Links) {
    std::size_t I = static_cast<std::size_t>(L);
    if (Root[I] < 0)
      continue;
    std::size_t R = static_cast<std::size_t>(Root[I]);
    if (RootSame[R] == 1)
      continue;
    if (RootSame[R] == 0) {
      RootSame[R] = 2;
      RootId[R] = ++NextComp;
      ++Recomputed;
    }
    LastComp[I] = RootId[R];
    LastSize[I] = RootLinks[R];
    LastCount[I] = Count[I];
  }
}

} // namespace tacclrt
