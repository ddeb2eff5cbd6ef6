//===- tests/unit/passes/ReadyQueueTest.cpp - The scheduler's ready jobs --===//
//
// The ready queue against a scan of every ready job: jobs join on random
// links with random own starts, links and the ports they share grow busier
// at random between pops, and each pop must return the job whose key, at
// the later of its own start and its link's, ranks first (then the lower
// chunk, then the lower link), under each shape of key the list scheduler
// uses, with ports named to the queue as groups or not.
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

/// Links with their own time (their lanes) and up to two shared ports.
struct TestLinks {
  std::vector<double> Own, Port;
  std::vector<std::vector<unsigned>> PortsOf;
  bool Groups = false;
  double start(unsigned L) const {
    double T = Own[L];
    for (unsigned P : PortsOf[L])
      T = std::max(T, Port[P]);
    return T;
  }
  ReadyQueue::LinkTime time(unsigned L) const {
    ReadyQueue::LinkTime Out{start(L)};
    for (unsigned P : PortsOf[L])
      if (Groups && Port[P] == Out.Start) {
        Out.Group = int(P);
        break;
      }
    return Out;
  }
};

/// Runs one random trial with the start at key position \p StartPos and
/// checks every pop against a scan; returns the number of pops.
unsigned trial(uint64_t Seed, unsigned StartPos, bool Groups) {
  Random Rng(Seed);
  const unsigned NumLinks = 1 + Rng.below(6), NumJobs = 1 + Rng.below(60);
  const unsigned NumPorts = Rng.below(4);
  std::vector<TestJob> Jobs;
  for (unsigned I = 0; I < NumJobs; ++I)
    // Few distinct times and ranks, so that ties are common.
    Jobs.push_back({Rng.below(NumJobs), Rng.below(NumLinks),
                    double(Rng.below(8)), double(Rng.below(3))});
  TestLinks Ls{std::vector<double>(NumLinks, 0.0),
               std::vector<double>(NumPorts, 0.0),
               std::vector<std::vector<unsigned>>(NumLinks), Groups};
  for (unsigned L = 0; L < NumLinks; ++L)
    for (unsigned Side = 0; Side < 2 && NumPorts; ++Side)
      if (Rng.below(3))
        Ls.PortsOf[L].push_back(Rng.below(NumPorts));
  auto KeyOf = [&](size_t J, double Start) {
    ReadyQueue::Key K{Jobs[J].Rest, Jobs[J].Rest, 0};
    K[StartPos] = Start;
    return K;
  };
  auto LinkStart = [&](unsigned L) { return Ls.time(L); };
  auto GroupTime = [&](unsigned P) { return Ls.Port[P]; };
  const ReadyQueue::Env E{KeyOf, LinkStart, GroupTime};
  ReadyQueue Q(NumJobs, NumLinks, NumPorts);
  unsigned Pops = 0, Joined = 0;
  while (Pops < NumJobs) {
    // Some jobs join, a link or port grows busier, then one pop.
    for (unsigned N = Rng.below(4); N > 0 && Joined < NumJobs; --N, ++Joined) {
      TestJob &J = Jobs[Joined];
      J.Ready = true;
      Q.push(Joined, J.Chunk, J.Link, J.Own, E);
    }
    if (NumPorts && Rng.below(2))
      Ls.Port[Rng.below(NumPorts)] += Rng.below(3);
    else
      Ls.Own[Rng.below(NumLinks)] += Rng.below(3);
    std::optional<size_t> Want;
    auto Rank = [&](size_t J) {
      return std::make_tuple(
          KeyOf(J, std::max(Jobs[J].Own, Ls.start(Jobs[J].Link))),
          Jobs[J].Chunk, Jobs[J].Link);
    };
    for (size_t J = 0; J < NumJobs; ++J)
      if (Jobs[J].Ready && !Jobs[J].Done && (!Want || Rank(J) < Rank(*Want)))
        Want = J;
    std::optional<size_t> Got = Q.pop(E);
    REQUIRE(Got.has_value() == Want.has_value());
    if (!Got)
      continue;
    // Jobs that tie on key, chunk and link are interchangeable.
    CHECK(Rank(*Got) == Rank(*Want));
    CHECK(!Jobs[*Got].Done);
    Jobs[*Got].Done = true;
    ++Pops;
  }
  CHECK(!Q.pop(E));
  return Pops;
}
} // namespace

TEST_CASE("the ready queue pops what a scan of every ready job would") {
  for (bool Groups : {false, true})
    for (unsigned StartPos : {0u, 1u})
      for (uint64_t Seed = 1; Seed <= 300; ++Seed) {
        CAPTURE(Seed);
        CAPTURE(StartPos);
        CAPTURE(Groups);
        CHECK(trial(Seed, StartPos, Groups) > 0);
      }
}

TEST_CASE("an empty ready queue pops nothing") {
  ReadyQueue Q(4, 2);
  auto KeyOf = [](size_t, double Start) {
    return ReadyQueue::Key{Start, 0, 0};
  };
  auto LinkStart = [](unsigned) { return ReadyQueue::LinkTime{}; };
  auto GroupTime = [](unsigned) { return 0.0; };
  const ReadyQueue::Env E{KeyOf, LinkStart, GroupTime};
  CHECK(!Q.pop(E));
  Q.push(3, 7, 1, 2.0, E);
  CHECK(Q.pop(E) == size_t(3));
  CHECK(!Q.pop(E));
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
  auto LinkStart = [&](unsigned L) {
    return ReadyQueue::LinkTime{LinkTime[L]};
  };
  auto GroupTime = [](unsigned) { return 0.0; };
  const ReadyQueue::Env E{KeyOf, LinkStart, GroupTime};
  ReadyQueue Q(NumJobs, 2);
  for (unsigned J = 0; J < NumJobs; ++J)
    Q.push(J, J, J % 2, 0.0, E);
  unsigned Pops = 0;
  double Last = -1;
  while (std::optional<size_t> J = Q.pop(E)) {
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

TEST_CASE("links that wait for one port cost the queue no work per link") {
  // A NIC's port shared by 200 links (a rail of 201 nodes), each with 5
  // jobs ready at once; every start keeps the port busy for one unit. Links
  // posted one by one would each be found stale after every start (about
  // 200 looks per pop); parked in the port's group, the port is looked at
  // again, not its links.
  const unsigned NumLinks = 200, PerLink = 5, NumJobs = NumLinks * PerLink;
  for (bool Groups : {false, true}) {
    CAPTURE(Groups);
    double Port = 0;
    auto KeyOf = [](size_t J, double Start) {
      return ReadyQueue::Key{Start, double(J % 3), 0};
    };
    auto LinkStart = [&](unsigned) {
      return ReadyQueue::LinkTime{Port, Groups ? 0 : -1};
    };
    auto GroupTime = [&](unsigned) { return Port; };
    const ReadyQueue::Env E{KeyOf, LinkStart, GroupTime};
    ReadyQueue Q(NumJobs, NumLinks, 1);
    for (unsigned J = 0; J < NumJobs; ++J)
      Q.push(J, J, J % NumLinks, 0.0, E);
    unsigned Pops = 0;
    while (std::optional<size_t> J = Q.pop(E)) {
      ++Pops;
      Port += 1;
    }
    CHECK(Pops == NumJobs);
    if (Groups)
      CHECK(Q.linksLookedAt() <= 4 * NumJobs);
    else
      CHECK(Q.linksLookedAt() >= 50 * NumJobs);
  }
}
