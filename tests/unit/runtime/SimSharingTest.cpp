//===- tests/unit/runtime/SimSharingTest.cpp - Rates of shared flows ------===//
//
// Max-min fair rates on the textbook cases (one bottleneck, a flow held
// back elsewhere, unlimited resources) and serial service in order.
//
//===----------------------------------------------------------------------===//
#include "sim/SimSharing.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

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
