//===- sim/SimSharing.cpp - How flows share links and ports ---------------===//
//
// Max-min fairness by progressive filling: repeatedly find the resource
// whose remaining capacity split among its unfixed flows is smallest (the
// bottleneck), give each of those flows that share, and take it from every
// other resource they use. A heap keyed by the share, with stale entries
// skipped, finds the bottleneck in logarithmic time, so a call costs
// O(F d log R) for F flows of d resources each. The per-resource arrays
// live across calls; a stamp per resource says whether its entries belong
// to the current call, so no call clears or sorts anything of the size of
// the machine.
//
//===----------------------------------------------------------------------===//
#include "sim/SimSharing.h"

#include <cmath>
#include <limits>
#include <queue>
#include <tuple>

namespace tacclrt {

FlowSharing::FlowSharing(std::vector<double> Capacity)
    : Capacity(std::move(Capacity)) {
  const std::size_t N = this->Capacity.size();
  Stamp.assign(N, 0);
  Left.assign(N, 0);
  Count.assign(N, 0);
  Version.assign(N, 0);
  FlowsOf.resize(N);
}

void FlowSharing::begin() {
  for (int R : Touched)
    FlowsOf[static_cast<std::size_t>(R)].clear();
  Touched.clear();
  if (++Call == 0) { // wrapped: forget every stamp
    Stamp.assign(Stamp.size(), 0);
    Call = 1;
  }
}

bool FlowSharing::touch(int R) {
  unsigned &S = Stamp[static_cast<std::size_t>(R)];
  if (S == Call)
    return true;
  S = Call;
  Touched.push_back(R);
  return false;
}

void FlowSharing::maxMin(const std::vector<const std::vector<int> *> &Uses,
                         std::vector<double> &Rate) {
  const double Inf = std::numeric_limits<double>::infinity();
  Rate.assign(Uses.size(), Inf);
  begin();
  for (std::size_t F = 0; F < Uses.size(); ++F)
    for (int Res : *Uses[F]) {
      const std::size_t R = static_cast<std::size_t>(Res);
      if (!std::isfinite(Capacity[R]))
        continue;
      if (!touch(Res)) {
        Left[R] = Capacity[R];
        Count[R] = 0;
        Version[R] = 0;
      }
      ++Count[R];
      FlowsOf[R].push_back(static_cast<int>(F));
    }
  // (share, resource, version): resources by index, so that a tie between
  // equal shares goes to the lower one.
  using Entry = std::tuple<double, int, unsigned>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> Heap;
  auto share = [&](std::size_t R) {
    return std::max(0.0, Left[R]) / double(Count[R]);
  };
  for (int Res : Touched)
    Heap.emplace(share(static_cast<std::size_t>(Res)), Res, 0);
  Fixed.assign(Uses.size(), 0);
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
      for (int Other : *Uses[Fl]) {
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
}

void FlowSharing::serial(const std::vector<const std::vector<int> *> &Uses,
                         std::vector<double> &Rate) {
  const double Inf = std::numeric_limits<double>::infinity();
  Rate.assign(Uses.size(), 0);
  // A resource touched in this call is busy (one of infinite capacity is
  // held too, as any other).
  begin();
  for (std::size_t F = 0; F < Uses.size(); ++F) {
    bool Free = true;
    double R = Inf;
    for (int Res : *Uses[F]) {
      Free = Free && Stamp[static_cast<std::size_t>(Res)] != Call;
      R = std::min(R, Capacity[static_cast<std::size_t>(Res)]);
    }
    if (!Free)
      continue;
    Rate[F] = R;
    for (int Res : *Uses[F])
      touch(Res);
  }
}

namespace {
std::vector<const std::vector<int> *>
pointers(const std::vector<std::vector<int>> &Uses) {
  std::vector<const std::vector<int> *> Out;
  Out.reserve(Uses.size());
  for (const std::vector<int> &U : Uses)
    Out.push_back(&U);
  return Out;
}
} // namespace

std::vector<double> maxMinRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses) {
  FlowSharing S(Capacity);
  std::vector<double> Rate;
  S.maxMin(pointers(Uses), Rate);
  return Rate;
}

std::vector<double> serialRates(const std::vector<double> &Capacity,
                                const std::vector<std::vector<int>> &Uses) {
  FlowSharing S(Capacity);
  std::vector<double> Rate;
  S.serial(pointers(Uses), Rate);
  return Rate;
}

} // namespace tacclrt
