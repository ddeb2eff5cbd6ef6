//===- sim/SimSharing.cpp - How flows share links and ports ---------------===//
//
// Max-min fairness by progressive filling: repeatedly find the resource
// whose remaining capacity split among its unfixed flows is smallest (the
// bottleneck), give each of those flows that share, and take it from every
// other resource they use. A heap keyed by the share, with stale entries
// skipped, finds the bottleneck in logarithmic time, so a step costs
// O(F d log R) for F flows of d resources each.
//
//===----------------------------------------------------------------------===//
#include "sim/SimSharing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <tuple>

namespace tacclrt {

std::vector<double> maxMinRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses) {
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Rate(Uses.size(), Inf);
  std::vector<double> Left(Capacity);
  std::vector<unsigned> Count(Capacity.size(), 0);
  std::vector<std::vector<int>> FlowsOf(Capacity.size());
  std::vector<unsigned> Version(Capacity.size(), 0);
  for (std::size_t F = 0; F < Uses.size(); ++F)
    for (int R : Uses[F])
      if (std::isfinite(Capacity[static_cast<std::size_t>(R)])) {
        ++Count[static_cast<std::size_t>(R)];
        FlowsOf[static_cast<std::size_t>(R)].push_back(static_cast<int>(F));
      }
  using Entry = std::tuple<double, int, unsigned>; // share, resource, version
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> Heap;
  auto share = [&](std::size_t R) {
    return std::max(0.0, Left[R]) / double(Count[R]);
  };
  for (std::size_t R = 0; R < Capacity.size(); ++R)
    if (Count[R] > 0)
      Heap.emplace(share(R), static_cast<int>(R), 0);
  std::vector<char> Fixed(Uses.size(), 0);
  while (!Heap.empty()) {
    auto [Share, Res, Ver] = Heap.top();
    Heap.pop();
    const std::size_t R = static_cast<std::size_t>(Res);
    if (Ver != Version[R] || Count[R] == 0)
      continue;
    for (int F : FlowsOf[R]) {
      const std::size_t Fl = static_cast<std::size_t>(F);
      if (Fixed[Fl])
        continue;
      Fixed[Fl] = 1;
      Rate[Fl] = Share;
      for (int Other : Uses[Fl]) {
        const std::size_t O = static_cast<std::size_t>(Other);
        if (!std::isfinite(Capacity[O]) || Count[O] == 0)
          continue;
        Left[O] -= Share;
        --Count[O];
        ++Version[O];
        if (Count[O] > 0 && O != R)
          Heap.emplace(share(O), Other, Version[O]);
      }
    }
  }
  return Rate;
}

std::vector<double> serialRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses) {
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Rate(Uses.size(), 0);
  std::vector<char> Busy(Capacity.size(), 0);
  for (std::size_t F = 0; F < Uses.size(); ++F) {
    bool Free = true;
    double R = Inf;
    for (int Res : Uses[F]) {
      Free = Free && !Busy[static_cast<std::size_t>(Res)];
      R = std::min(R, Capacity[static_cast<std::size_t>(Res)]);
    }
    if (!Free)
      continue;
    Rate[F] = R;
    for (int Res : Uses[F])
      Busy[static_cast<std::size_t>(Res)] = 1;
  }
  return Rate;
}

} // namespace tacclrt
