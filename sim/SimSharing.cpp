//===- sim/SimSharing.cpp - How flows share links and ports ---------------===//
//
// Max-min fairness by progressive filling: repeatedly find the resource
// whose remaining capacity split among its unfixed flows is smallest (the
// bottleneck), give each of those flows that share, and take it from every
// other resource they use. A heap keyed by the share, with stale entries
// skipped, finds the bottleneck in logarithmic time, so a step costs
// O(F d log R) for F flows of d resources each. Both functions work on the
// resources the flows use, never on every link and port of the machine:
// the simulator calls them at every event.
//
//===----------------------------------------------------------------------===//
#include "sim/SimSharing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <tuple>

namespace tacclrt {

namespace {
/// The resources of finite capacity that some flow of \p Uses uses, in
/// increasing order, and each flow's uses as positions in that list (-1
/// for a resource of infinite capacity). Working on these alone keeps a
/// call proportional to the flows, not to every link and port.
struct UsedResources {
  std::vector<int> Ids;
  std::vector<std::vector<int>> Uses;
};

UsedResources usedResources(const std::vector<double> &Capacity,
                            const std::vector<std::vector<int>> &Uses) {
  UsedResources U;
  for (const std::vector<int> &Us : Uses)
    for (int R : Us)
      if (std::isfinite(Capacity[static_cast<std::size_t>(R)]))
        U.Ids.push_back(R);
  std::sort(U.Ids.begin(), U.Ids.end());
  U.Ids.erase(std::unique(U.Ids.begin(), U.Ids.end()), U.Ids.end());
  U.Uses.reserve(Uses.size());
  for (const std::vector<int> &Us : Uses) {
    std::vector<int> Local;
    Local.reserve(Us.size());
    for (int R : Us) {
      auto It = std::lower_bound(U.Ids.begin(), U.Ids.end(), R);
      Local.push_back(It != U.Ids.end() && *It == R
                          ? static_cast<int>(It - U.Ids.begin())
                          : -1);
    }
    U.Uses.push_back(std::move(Local));
  }
  return U;
}
} // namespace

std::vector<double> maxMinRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses) {
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Rate(Uses.size(), Inf);
  // Resources by their position in U.Ids, which keeps their order: a tie
  // between equal shares still goes to the lower resource.
  const UsedResources U = usedResources(Capacity, Uses);
  const std::size_t NR = U.Ids.size();
  std::vector<double> Left(NR);
  for (std::size_t R = 0; R < NR; ++R)
    Left[R] = Capacity[static_cast<std::size_t>(U.Ids[R])];
  std::vector<unsigned> Count(NR, 0);
  std::vector<std::vector<int>> FlowsOf(NR);
  std::vector<unsigned> Version(NR, 0);
  for (std::size_t F = 0; F < U.Uses.size(); ++F)
    for (int R : U.Uses[F])
      if (R >= 0) {
        ++Count[static_cast<std::size_t>(R)];
        FlowsOf[static_cast<std::size_t>(R)].push_back(static_cast<int>(F));
      }
  using Entry = std::tuple<double, int, unsigned>; // share, resource, version
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> Heap;
  auto share = [&](std::size_t R) {
    return std::max(0.0, Left[R]) / double(Count[R]);
  };
  for (std::size_t R = 0; R < NR; ++R)
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
      for (int Other : U.Uses[Fl]) {
        if (Other < 0)
          continue;
        const std::size_t O = static_cast<std::size_t>(Other);
        if (Count[O] == 0)
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
  // Busy resources, by position among those some flow uses (a resource
  // of infinite capacity is held too, as any other).
  std::vector<int> Ids;
  for (const std::vector<int> &Us : Uses)
    Ids.insert(Ids.end(), Us.begin(), Us.end());
  std::sort(Ids.begin(), Ids.end());
  Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
  auto pos = [&](int Res) {
    return static_cast<std::size_t>(
        std::lower_bound(Ids.begin(), Ids.end(), Res) - Ids.begin());
  };
  std::vector<char> Busy(Ids.size(), 0);
  for (std::size_t F = 0; F < Uses.size(); ++F) {
    bool Free = true;
    double R = Inf;
    for (int Res : Uses[F]) {
      Free = Free && !Busy[pos(Res)];
      R = std::min(R, Capacity[static_cast<std::size_t>(Res)]);
    }
    if (!Free)
      continue;
    Rate[F] = R;
    for (int Res : Uses[F])
      Busy[pos(Res)] = 1;
  }
  return Rate;
}

} // namespace tacclrt
