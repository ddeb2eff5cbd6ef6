//===- tests/unit/tune/StitchTest.cpp - Winners and ranges ----------------===//
//
// tune/Stitch.h: the fastest program per size (NCCL's on ties), runs of one
// winner merged, and ranges that tile the sweep with no gap or overlap under
// both runtimes' selection rules, for many sweeps and winner patterns.
//
//===----------------------------------------------------------------------===//
#include "tune/Stitch.h"

#include <doctest/doctest.h>

#include <random>

using namespace tacclc::tune;
using tacclrt::Algo;
using tacclrt::Dialect;

namespace {
std::vector<std::uint64_t> doubling(std::uint64_t Lo, std::uint64_t Hi) {
  std::vector<std::uint64_t> S;
  for (std::uint64_t B = Lo; B <= Hi; B *= 2)
    S.push_back(B);
  return S;
}

/// How many ranges with a file select \p Bytes in dialect \p D.
unsigned selecting(const std::vector<ServedRange> &Ranges, std::uint64_t Bytes,
                   Dialect D, int *Program = nullptr) {
  unsigned N = 0;
  for (const ServedRange &R : Ranges) {
    Algo A;
    std::tie(A.MinBytes, A.MaxBytes) = xmlBounds(R, D);
    if (selectsSize(A, Bytes, D)) {
      ++N;
      if (Program)
        *Program = R.Forward ? -2 : R.Program;
    }
  }
  return N;
}
} // namespace

TEST_CASE("the fastest program wins each size; NCCL wins ties") {
  std::vector<std::uint64_t> Sizes{1024, 2048, 4096};
  std::vector<ProgramTimes> P(3);
  P[0].TimesUs = {10.0, 20.0, 40.0};
  P[1].TimesUs = {10.0, 15.0, std::nullopt};
  P[1].Nccl = true;
  P[2].TimesUs = {9.0, 15.0, 50.0};
  auto W = pickWinners(Sizes, P);
  REQUIRE(W.size() == 3);
  CHECK(W[0].Program == 2);
  CHECK_FALSE(W[0].Forward);
  CHECK(W[1].Program == 1); // tie with program 2: NCCL's
  CHECK(W[1].Forward);
  CHECK(W[2].Program == 0); // program 1 has no time there
  CHECK(W[2].TimeUs == 40.0);
  // A margin hands near-ties to NCCL too.
  auto W2 = pickWinners(Sizes, P, 0.2);
  CHECK(W2[0].Program == 1);
}

TEST_CASE("a size nobody timed is served by nothing") {
  std::vector<ProgramTimes> P(1);
  P[0].TimesUs = {std::nullopt, 3.0};
  auto W = pickWinners({64, 128}, P);
  CHECK(W[0].Program == -1);
  auto R = stitchRanges(W);
  REQUIRE(R.size() == 2);
  CHECK(R[0].Program == -1);
  CHECK_FALSE(R[0].Forward);
  CHECK(R[0].MaxBytes == 127);
  CHECK(R[1].Program == 0);
}

TEST_CASE("runs merge, and forwarded sizes merge whichever NCCL algorithm "
          "wins them") {
  std::vector<SizeWinner> W{{1, 0, false, 1},  {2, 0, false, 1},
                            {4, 3, true, 1},   {8, 4, true, 1},
                            {16, 0, false, 1}, {32, 1, false, 1}};
  auto R = stitchRanges(W);
  REQUIRE(R.size() == 4);
  CHECK(R[0].Program == 0);
  CHECK(R[0].MinBytes == 1);
  CHECK(R[0].MaxBytes == 3);
  CHECK(R[1].Forward);
  CHECK(R[1].Program == -1);
  CHECK(R[1].MinBytes == 4);
  CHECK(R[1].MaxBytes == 15);
  CHECK(R[2].Program == 0); // the same program again: a range of its own
  CHECK(R[2].FirstSize == 4);
  CHECK(R[3].MinBytes == 32);
  CHECK(R[3].MaxBytes == 32);
}

TEST_CASE("xmlBounds follows each runtime's rule") {
  ServedRange R;
  R.Program = 0;
  R.MinBytes = 1024;
  R.MaxBytes = 4095;
  using Bounds = std::pair<std::uint64_t, std::uint64_t>;
  CHECK(xmlBounds(R, Dialect::Executor) == Bounds(1024, 4095));
  CHECK(xmlBounds(R, Dialect::Legacy) == Bounds(1024, 4096));
}

TEST_CASE("ranges tile every sweep with no gap or overlap in both dialects") {
  std::mt19937 Rng(7);
  const std::vector<std::vector<std::uint64_t>> Sweeps{
      doubling(1024, 4ull << 30),
      doubling(1000, 4000000000ull),
      {1, 2, 3, 5, 8, 13, 21},
      {4096}};
  for (const auto &Sizes : Sweeps)
    for (int Trial = 0; Trial < 200; ++Trial) {
      std::vector<SizeWinner> W;
      for (std::uint64_t B : Sizes) {
        int P = int(Rng() % 4) - 1; // -1: nobody
        W.push_back({B, P, P == 2, 1.0});
      }
      auto Ranges = stitchRanges(W);
      // Consecutive, starting at the first size, ending at the last.
      CHECK(Ranges.front().MinBytes == Sizes.front());
      CHECK(Ranges.back().MaxBytes == Sizes.back());
      for (size_t K = 0; K + 1 < Ranges.size(); ++K) {
        CHECK(Ranges[K].MaxBytes + 1 == Ranges[K + 1].MinBytes);
        // Neighbours differ (else they would have merged).
        bool Same = Ranges[K].Forward == Ranges[K + 1].Forward &&
                    Ranges[K].Program == Ranges[K + 1].Program;
        CHECK_FALSE(Same);
      }
      for (Dialect D : {Dialect::Executor, Dialect::Legacy})
        for (size_t I = 0; I < Sizes.size(); ++I) {
          // Each sweep size and the bytes around each boundary: exactly one
          // range, and the one of that size's winner.
          for (std::uint64_t B : {Sizes[I], Sizes[I] - 1, Sizes[I] + 1}) {
            if (B < Sizes.front() || B > Sizes.back())
              continue;
            CHECK(selecting(Ranges, B, D) == 1);
          }
          int Got = -3;
          selecting(Ranges, Sizes[I], D, &Got);
          int Want = W[I].Forward ? -2 : W[I].Program;
          CHECK(Got == Want);
        }
      // Outside the sweep nothing is selected.
      for (Dialect D : {Dialect::Executor, Dialect::Legacy}) {
        if (Sizes.front() > 1)
          CHECK(selecting(Ranges, Sizes.front() - 1, D) == 0);
        CHECK(selecting(Ranges, Sizes.back() + 1, D) == 0);
      }
    }
}
