//===- tests/unit/passes/ReadyQueueTest.cpp - The scheduler's ready jobs --===//
//
// The ready queue against a scan of every ready job: jobs join on random
// links with random own starts, links grow busier at random between pops,
// and each pop must return the job whose key, at the later of its own start
// and its link's, ranks first (then the lower chunk, then the lower link),
// under each shape of key the list scheduler uses.
//
//===----------------------------------------------------------------------===//
#include "passes/ReadyQueue.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

using namespace tacclc;

namespace {
/// A fixed pseudo-random sequence (splitmix64), so that runs repeat.
class Random {
public:
  explicit Random(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t X = (State += 0x9E3779B97F4A7C15ull);
    X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ull;
    X = (X ^ (X >> 27)) * 0x94D049BB133111EBull;
    return X ^ (X >> 31);
  }
  /// A number below \p N.
  unsigned below(unsigned N) { return unsigned(next() % N); }

private:
  uint64_t State;
};

struct TestJob {
  unsigned Chunk, Link;
  double Own, Rest;
  bool Ready = false, Done = false;
};

/// Runs one random trial with the start at key position \p StartPos and
/// checks every pop against a scan; returns the number of pops.
unsigned trial(uint64_t Seed, unsigned StartPos) {
  Random Rng(Seed);
  const unsigned NumLinks = 1 + Rng.below(6), NumJobs = 1 + Rng.below(60);
  std::vector<TestJob> Jobs;
  for (unsigned I = 0; I < NumJobs; ++I)
    // Few distinct times and ranks, so that ties are common.
    Jobs.push_back({Rng.below(NumJobs), Rng.below(NumLinks),
                    double(Rng.below(8)), double(Rng.below(3))});
  std::vector<double> LinkTime(NumLinks, 0.0);
  auto KeyOf = [&](size_t J, double Start) {
    ReadyQueue::Key K{Jobs[J].Rest, Jobs[J].Rest, 0};
    K[StartPos] = Start;
    return K;
  };
  auto LinkStart = [&](unsigned L) { return LinkTime[L]; };
  ReadyQueue Q(NumJobs, NumLinks);
  unsigned Pops = 0, Joined = 0;
  while (Pops < NumJobs) {
    // Some jobs join, a link grows busier, then one pop.
    for (unsigned N = Rng.below(4); N > 0 && Joined < NumJobs; --N, ++Joined) {
      TestJob &J = Jobs[Joined];
      J.Ready = true;
      Q.push(Joined, J.Chunk, J.Link, J.Own, KeyOf, LinkStart);
    }
    LinkTime[Rng.below(NumLinks)] += Rng.below(3);
    std::optional<size_t> Want;
    auto Rank = [&](size_t J) {
      return std::make_tuple(
          KeyOf(J, std::max(Jobs[J].Own, LinkTime[Jobs[J].Link])),
          Jobs[J].Chunk, Jobs[J].Link);
    };
    for (size_t J = 0; J < NumJobs; ++J)
      if (Jobs[J].Ready && !Jobs[J].Done && (!Want || Rank(J) < Rank(*Want)))
        Want = J;
    std::optional<size_t> Got = Q.pop(KeyOf, LinkStart);
    REQUIRE(Got.has_value() == Want.has_value());
    if (!Got)
      continue;
    // Jobs that tie on key, chunk and link are interchangeable.
    CHECK(Rank(*Got) == Rank(*Want));
    CHECK(!Jobs[*Got].Done);
    Jobs[*Got].Done = true;
    ++Pops;
  }
  CHECK(!Q.pop(KeyOf, LinkStart));
  return Pops;
}
} // namespace

TEST_CASE("the ready queue pops what a scan of every ready job would") {
  for (unsigned StartPos : {0u, 1u})
    for (uint64_t Seed = 1; Seed <= 300; ++Seed) {
      CAPTURE(Seed);
      CAPTURE(StartPos);
      CHECK(trial(Seed, StartPos) > 0);
    }
}

TEST_CASE("an empty ready queue pops nothing") {
  ReadyQueue Q(4, 2);
  auto KeyOf = [](size_t, double Start) {
    return ReadyQueue::Key{Start, 0, 0};
  };
  auto LinkStart = [](unsigned) { return 0.0; };
  CHECK(!Q.pop(KeyOf, LinkStart));
  Q.push(3, 7, 1, 2.0, KeyOf, LinkStart);
  CHECK(Q.pop(KeyOf, LinkStart) == size_t(3));
  CHECK(!Q.pop(KeyOf, LinkStart));
}

TEST_CASE("jobs behind a busy link cost the queue no work") {
  // A thousand jobs ready at once on one link, and a link beside it that
  // shares its port: every start makes both links later. A queue of jobs
  // would find every waiting job stale after each start (a million looks
  // in all); by link, each pop looks at a bounded number of links.
  const unsigned NumJobs = 1000;
  std::vector<double> LinkTime(2, 0.0);
  auto KeyOf = [](size_t J, double Start) {
    return ReadyQueue::Key{Start, -double(J % 7), 0};
  };
  auto LinkStart = [&](unsigned L) { return LinkTime[L]; };
  ReadyQueue Q(NumJobs, 2);
  for (unsigned J = 0; J < NumJobs; ++J)
    Q.push(J, J, J % 2, 0.0, KeyOf, LinkStart);
  unsigned Pops = 0;
  double Last = -1;
  while (std::optional<size_t> J = Q.pop(KeyOf, LinkStart)) {
    ++Pops;
    double Start = std::max(0.0, LinkTime[*J % 2]);
    CHECK(Start >= Last);
    Last = Start;
    // The port is busy until this job's end, for both links.
    LinkTime[0] = LinkTime[1] = Start + 1;
  }
  CHECK(Pops == NumJobs);
  CHECK(Q.linksLookedAt() <= 4 * NumJobs);
}
