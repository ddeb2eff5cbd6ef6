//===- tests/unit/passes/ReduceScheduleTest.cpp - Reversed schedules ------===//
//
// Reductions from their duals on hand-made schedules: which collective is
// the dual, how transfers turn around in time and direction, that only a
// chunk's first arrival at a rank is reversed, the transposed topology of
// one-way links, and allreduce's second half.
//
//===----------------------------------------------------------------------===//
#include "passes/ReduceSchedule.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Ranks 0 - 1 - 2 on a line, links both ways (symmetric).
Sketch line3(Collective Coll) {
  Sketch S;
  S.Name = "line";
  S.Topo = Topology("line", 3);
  for (unsigned R = 0; R + 1 < 3; ++R) {
    S.Topo.addLink({RankId(R), RankId(R + 1), 1.0, 1e-6});
    S.Topo.addLink({RankId(R + 1), RankId(R), 1.0, 1e-6});
  }
  S.Coll = std::move(Coll);
  S.SizeBytes = 3000;
  return S;
}

Transfer transfer(const Topology &T, unsigned Chunk, unsigned From, unsigned To,
                  double Start, double End) {
  Transfer X;
  X.Chunk = ChunkId(Chunk);
  X.Link = *T.findLink(RankId(From), RankId(To));
  X.StartUs = Start;
  X.EndUs = End;
  return X;
}
} // namespace

TEST_CASE("duals: allgather for reducescatter and allreduce, broadcast for "
          "reduce") {
  CHECK(dualCollective(Collective::make(CollectiveKind::ReduceScatter, 4, 2))
            .getKind() == CollectiveKind::AllGather);
  CHECK(dualCollective(Collective::make(CollectiveKind::AllReduce, 4, 2))
            .getKind() == CollectiveKind::AllGather);
  Collective B =
      dualCollective(Collective::make(CollectiveKind::Reduce, 4, 2, RankId(3)));
  CHECK(B.getKind() == CollectiveKind::Broadcast);
  CHECK(B.getRoot() == RankId(3));
  CHECK(B.getNumChunks() == 2);
}

TEST_CASE("a broadcast chain reversed is a reduce chain") {
  Sketch S = line3(Collective::make(CollectiveKind::Reduce, 3, 1, RankId(0)));
  Sketch D = dualSketch(S, false);
  Schedule Down;
  Down.Transfers = {transfer(D.Topo, 0, 0, 1, 0, 2),
                    transfer(D.Topo, 0, 1, 2, 2, 4),
                    // A second copy into rank 2 arrives later: not reversed.
                    transfer(D.Topo, 0, 1, 2, 4, 6)};
  Down.MakespanUs = 6;
  Schedule Up = reverseForReduction(S, Down, false, nullptr);
  REQUIRE(Up.Transfers.size() == 2);
  const Transfer &A = Up.Transfers[0], &B = Up.Transfers[1];
  CHECK(A.Reduce);
  CHECK(B.Reduce);
  // 1 -> 2 over [2, 4] becomes 2 -> 1 over [2, 4]; 0 -> 1 over [0, 2]
  // becomes 1 -> 0 over [4, 6].
  CHECK(S.Topo.link(A.Link).Src == RankId(2));
  CHECK(S.Topo.link(A.Link).Dst == RankId(1));
  CHECK(A.StartUs == doctest::Approx(2));
  CHECK(A.EndUs == doctest::Approx(4));
  CHECK(S.Topo.link(B.Link).Src == RankId(1));
  CHECK(S.Topo.link(B.Link).Dst == RankId(0));
  CHECK(B.StartUs == doctest::Approx(4));
  CHECK(Up.MakespanUs == doctest::Approx(6));
}

TEST_CASE("allreduce appends the spreading schedule") {
  Sketch S = line3(Collective::make(CollectiveKind::AllReduce, 3, 1));
  Sketch D = dualSketch(S, false);
  Schedule Down;
  // Chunk 1 (rank 1's) goes both ways; chunks 0 and 2 along the line.
  Down.Transfers = {
      transfer(D.Topo, 0, 0, 1, 0, 2), transfer(D.Topo, 1, 1, 0, 0, 2),
      transfer(D.Topo, 1, 1, 2, 0, 2), transfer(D.Topo, 2, 2, 1, 0, 2),
      transfer(D.Topo, 0, 1, 2, 2, 4), transfer(D.Topo, 2, 1, 0, 2, 4)};
  Down.MakespanUs = 4;
  Schedule All = reverseForReduction(S, Down, false, &Down);
  CHECK(All.Transfers.size() == 12);
  CHECK(All.MakespanUs == doctest::Approx(8));
  unsigned Reduce = 0;
  double Prev = 0;
  for (const Transfer &T : All.Transfers) {
    Reduce += T.Reduce;
    CHECK(T.StartUs >= Prev); // sorted by start
    Prev = T.StartUs;
    if (!T.Reduce)
      CHECK(T.StartUs >= 4); // the spreading half comes second
  }
  CHECK(Reduce == 6);
}

TEST_CASE("one-way links: the dual runs on the transposed topology") {
  Sketch S;
  S.Name = "ring";
  S.Topo = Topology("ring", 3);
  for (unsigned R = 0; R < 3; ++R)
    S.Topo.addLink({RankId(R), RankId((R + 1) % 3), 1.0, 1e-6});
  S.Coll = Collective::make(CollectiveKind::ReduceScatter, 3, 1);
  CHECK_FALSE(S.Topo.isSymmetric());
  Sketch D = dualSketch(S, true);
  CHECK(D.Transposed);
  // Link i of the transposed ring runs backwards.
  for (unsigned L = 0; L < 3; ++L) {
    CHECK(D.Topo.link(LinkId(L)).Src == S.Topo.link(LinkId(L)).Dst);
    CHECK(D.Topo.link(LinkId(L)).Dst == S.Topo.link(LinkId(L)).Src);
  }
  // Rank 0's chunk around the transposed ring: 0 -> 2 -> 1.
  Schedule Down;
  Down.Transfers = {transfer(D.Topo, 0, 0, 2, 0, 2),
                    transfer(D.Topo, 0, 2, 1, 2, 4)};
  Down.MakespanUs = 4;
  Schedule Up = reverseForReduction(S, Down, true, nullptr);
  REQUIRE(Up.Transfers.size() == 2);
  // Reversed on the sketch's own links: 1 -> 2 first, then 2 -> 0.
  CHECK(S.Topo.link(Up.Transfers[0].Link).Src == RankId(1));
  CHECK(S.Topo.link(Up.Transfers[0].Link).Dst == RankId(2));
  CHECK(S.Topo.link(Up.Transfers[1].Link).Src == RankId(2));
  CHECK(S.Topo.link(Up.Transfers[1].Link).Dst == RankId(0));
}
