//===- ir/Topology.cpp - Topology queries ---------------------------------===//
//
// Link storage with adjacency lists and a shortest-path query used by the
// routing stage (warm starts, valid inequalities) and by diagnostics.
//
//===----------------------------------------------------------------------===//
#include "ir/Topology.h"

#include <functional>
#include <limits>
#include <queue>

using namespace tacclc::ir;

LinkId Topology::addLink(const Link &L) {
  LinkId Id(static_cast<uint32_t>(Links.size()));
  Links.push_back(L);
  Out[L.Src.index()].push_back(Id);
  In[L.Dst.index()].push_back(Id);
  return Id;
}

std::optional<LinkId> Topology::findLink(RankId Src, RankId Dst) const {
  for (LinkId Id : outLinks(Src))
    if (link(Id).Dst == Dst)
      return Id;
  return std::nullopt;
}

std::vector<double> Topology::distancesFrom(RankId From, double Bytes) const {
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Dist(NumRanks, Inf);
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> Queue;
  Dist[From.index()] = 0;
  Queue.push({0, From.index()});
  while (!Queue.empty()) {
    auto [D, R] = Queue.top();
    Queue.pop();
    if (D > Dist[R])
      continue;
    for (LinkId Id : Out[R]) {
      const Link &L = link(Id);
      double ND = D + L.costUs(Bytes);
      if (ND < Dist[L.Dst.index()]) {
        Dist[L.Dst.index()] = ND;
        Queue.push({ND, L.Dst.index()});
      }
    }
  }
  return Dist;
}
