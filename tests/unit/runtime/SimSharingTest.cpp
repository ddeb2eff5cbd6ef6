//===- tests/unit/runtime/SimSharingTest.cpp - Rates of shared flows ------===//
//
// Max-min fair rates on the textbook cases (one bottleneck, a flow held
// back elsewhere, unlimited resources), serial service in order, and the
// per-link rates that recompute only changed components (LinkRates)
// against one computation over all flows.
//
//===----------------------------------------------------------------------===//
#include "sim/SimSharing.h"
#include "sim/SimLinkRates.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace tacclrt;

TEST_CASE("sharing: max-min fair rates") {
  const double Inf = std::numeric_limits<double>::infinity();
  // Two flows through one resource of 10 split it.
  auto R = maxMinRates({10}, {{0}, {0}});
  CHECK(R[0] == doctest::Approx(5));
  CHECK(R[1] == doctest::Approx(5));
  // Flow 1 is held to 2 by resource 1: flow 0 takes the other 8.
  R = maxMinRates({10, 2}, {{0}, {0, 1}});
  CHECK(R[0] == doctest::Approx(8));
  CHECK(R[1] == doctest::Approx(2));
  // The parking lot: a long flow over two links of 1, a short flow on each.
  R = maxMinRates({1, 1}, {{0, 1}, {0}, {1}});
  for (double X : R)
    CHECK(X == doctest::Approx(0.5));
  // Unlimited resources and flows that use none.
  R = maxMinRates({Inf, 4}, {{0}, {0, 1}, {}});
  CHECK(std::isinf(R[0]));
  CHECK(R[1] == doctest::Approx(4));
  CHECK(std::isinf(R[2]));
}

TEST_CASE("sharing: serial service in order") {
  // Flow 0 takes resource 0; flow 1 waits for it; flow 2 uses resource 1
  // alone and runs at its capacity.
  auto R = serialRates({10, 3}, {{0}, {0, 1}, {1}});
  CHECK(R[0] == doctest::Approx(10));
  CHECK(R[1] == 0);
  CHECK(R[2] == doctest::Approx(3));
}

TEST_CASE("sharing: rates recomputed only where flows changed") {
  // Five links (resources 0-3 and 6); 0 and 1 share port 4, 2 and 3 share
  // port 5, link 3 is unlimited but for its port, and link 4 uses both
  // ports, joining the two components while it has flows. Random sets of
  // flows, call after call: every call gives exactly the rates of one
  // computation over all flows.
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Capacity{10, 4, 7, Inf, 6, 9, 5};
  std::vector<std::vector<int>> Uses{{0, 4}, {1, 4}, {2, 5}, {3, 5}, {6, 4, 5}};
  LinkRates Rates(Capacity, Uses);
  std::mt19937 Gen(7);
  unsigned Reused = 0;
  std::vector<double> Got;
  for (int Call = 0; Call < 400; ++Call) {
    std::vector<int> Links;
    std::vector<std::vector<int>> FlowUses;
    for (int L = 0; L < 5; ++L)
      for (unsigned N = Gen() % (L == 4 ? 2 : 3); N > 0; --N) {
        Links.push_back(L);
        FlowUses.push_back(Uses[static_cast<std::size_t>(L)]);
      }
    Rates.maxMin(Links, Got);
    CHECK(Got == maxMinRates(Capacity, FlowUses));
    Reused += Rates.components() - Rates.recomputed();
  }
  // Components of few states: many calls reuse one.
  CHECK(Reused > 20);
}
