//===- tests/unit/passes/BaselinesTest.cpp - NCCL's algorithms as routes --===//
//
// The ring through a machine (a cycle on one node, node paths joined over
// NICs on several, nothing where a node has no Hamiltonian path), ring and
// direct routes, and their closed-form schedules.
//
//===----------------------------------------------------------------------===//
#include "passes/Baselines.h"
#include "passes/ListSchedule.h"

#include "sim/Simulator.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// \p Nodes nodes of \p G GPUs; inside a node a bidirectional line
/// 0 - 1 - ... - G-1 (plus G-1 - 0 with \p Close); every GPU pair on
/// different nodes joined (as `relay all` joins them).
Topology machine(unsigned Nodes, unsigned G, bool Close) {
  Topology T("m", Nodes, G);
  for (unsigned N = 0; N < Nodes; ++N)
    for (unsigned A = 0; A < G; ++A) {
      unsigned B = A + 1;
      if (B == G && !(Close && G > 2))
        continue;
      B %= G;
      T.addLink({RankId(N * G + A), RankId(N * G + B), 1.0, 1e-6});
      T.addLink({RankId(N * G + B), RankId(N * G + A), 1.0, 1e-6});
    }
  for (unsigned R = 0; R < Nodes * G; ++R)
    for (unsigned D = 0; D < Nodes * G; ++D)
      if (R / G != D / G)
        T.addLink({RankId(R), RankId(D), 2.0, 2e-6});
  return T;
}
} // namespace

TEST_CASE("baselines: a ring through one node is a Hamiltonian cycle") {
  auto Ring = findRing(machine(1, 4, true));
  REQUIRE(Ring);
  CHECK(*Ring ==
        std::vector<RankId>{RankId(0), RankId(1), RankId(2), RankId(3)});
  // A line has a Hamiltonian path but no cycle.
  CHECK_FALSE(findRing(machine(1, 4, false)));
}

TEST_CASE("baselines: nodes are joined over their NICs") {
  auto Ring = findRing(machine(2, 3, false));
  REQUIRE(Ring);
  CHECK(*Ring == std::vector<RankId>{RankId(0), RankId(1), RankId(2), RankId(3),
                                     RankId(4), RankId(5)});
}

TEST_CASE("baselines: ring allgather routes and their closed form") {
  Sketch S;
  S.Name = "ring";
  S.Topo = machine(1, 4, true);
  S.Coll = Collective::allGather(4, 1);
  S.SizeBytes = 4000;
  auto Ring = findRing(S.Topo);
  REQUIRE(Ring);
  auto R = ringRoutes(S, {*Ring}, true);
  REQUIRE(R);
  for (const ChunkRoute &CR : R->Chunks)
    CHECK(CR.Links.size() == 3);
  Schedule Sch = scheduleTransfers(S, *R);
  // Three hops of latency + beta * 1000 B, every link busy at once; the
  // latency is Simple's per-hop latency inside a node, above alpha (1 us).
  const double Hop = tacclrt::protocolCosts(tacclrt::Protocol::Simple).HopUs[0];
  CHECK(Sch.MakespanUs == doctest::Approx(3 * (Hop + 1e-6 * 1000)));
  // Backwards, the chunk of rank 0 goes 0 -> 3 -> 2 -> 1.
  auto Back = ringRoutes(S, {*Ring}, false);
  REQUIRE(Back);
  CHECK(S.Topo.link(Back->Chunks[0].Links[0]).Dst == RankId(3));
}

TEST_CASE("baselines: direct routes need a link per pair") {
  Sketch S;
  S.Name = "direct";
  S.Topo = machine(1, 4, true);
  S.Coll = Collective::make(CollectiveKind::AllToAll, 4, 1);
  std::string Missing;
  CHECK_FALSE(directRoutes(S, Missing)); // 0 and 2 are not neighbours
  CHECK(Missing == "0 -> 2");
  S.Topo = machine(4, 1, false); // one GPU per node: all pairs joined
  auto R = directRoutes(S, Missing);
  REQUIRE(R);
  // One hop over the network: Simple's per-hop latency there (above the
  // links' alpha, 2 us).
  const double Hop = tacclrt::protocolCosts(tacclrt::Protocol::Simple).HopUs[1];
  CHECK(scheduleTransfers(S, *R).MakespanUs ==
        doctest::Approx(Hop + 2e-6 * S.Coll.chunkBytes(double(S.SizeBytes))));
}

TEST_CASE("baselines: rings leave each node from different GPUs") {
  Topology T = machine(2, 3, true);
  auto A = findRing(T, 0), B = findRing(T, 1);
  REQUIRE(A);
  REQUIRE(B);
  CHECK((*A)[0] == RankId(0));
  CHECK((*B)[0] == RankId(1)); // node 0 entered at its GPU 1
  CHECK((*B)[3] == RankId(4)); // node 1 entered at its GPU 1
  CHECK(defaultRingCount(machine(1, 4, true)) == 1);
}
