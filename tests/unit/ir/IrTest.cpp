//===- tests/unit/ir/IrTest.cpp - Topology and collective tests -----------===//
//
// Shortest paths, link lookup and the chunk definition of ALLGATHER.
//
//===----------------------------------------------------------------------===//
#include "ir/Collective.h"
#include "ir/Printer.h"
#include "ir/Topology.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace tacclc::ir;

namespace {
Topology ring(unsigned N, double Alpha, double BetaUsPerMB) {
  Topology T("ring", N);
  for (unsigned R = 0; R < N; ++R)
    T.addLink({RankId(R), RankId((R + 1) % N), Alpha, BetaUsPerMB / 1e6});
  return T;
}
} // namespace

TEST_CASE("distances on a unidirectional ring add up link costs") {
  Topology T = ring(4, 1.0, 10.0);
  std::vector<double> D = T.distancesFrom(RankId(1), 1e6);
  CHECK(D[1] == 0.0);
  CHECK(D[2] == doctest::Approx(11.0));
  CHECK(D[3] == doctest::Approx(22.0));
  CHECK(D[0] == doctest::Approx(33.0));
}

TEST_CASE("unreachable ranks are infinitely far and links are found") {
  Topology T("t", 3);
  T.addLink({RankId(0), RankId(1), 1.0, 0.0});
  std::vector<double> D = T.distancesFrom(RankId(0), 1.0);
  CHECK(std::isinf(D[2]));
  CHECK(T.findLink(RankId(0), RankId(1)).has_value());
  CHECK(!T.findLink(RankId(1), RankId(0)).has_value());
  CHECK(T.outLinks(RankId(0)).size() == 1);
  CHECK(T.inLinks(RankId(1)).size() == 1);
}

TEST_CASE("allgather chunks: rank-major output, own input chunks") {
  Collective C = Collective::allGather(3, 2);
  CHECK(C.getNumChunks() == 6);
  CHECK(C.getInputChunks() == 2);
  CHECK(C.getOutputChunks() == 6);
  const Chunk &Ch = C.chunk(ChunkId(3)); // rank 1, input chunk 1
  CHECK(Ch.Source == RankId(1));
  CHECK(Ch.InputIndex == 1);
  CHECK(Ch.OutputIndex == 3);
  CHECK(C.isPre(ChunkId(3), RankId(1)));
  CHECK(!C.isPre(ChunkId(3), RankId(0)));
  for (unsigned R = 0; R < 3; ++R)
    CHECK(C.isPost(ChunkId(3), RankId(R)));
  CHECK(C.chunkBytes(6e6) == doctest::Approx(1e6));
  CHECK(parseCollectiveName("allgather") == CollectiveKind::AllGather);
  CHECK(!parseCollectiveName("allgahter"));
}

TEST_CASE("byte and time formatting is exact and stable") {
  CHECK(formatBytes(1048576) == "1 MiB");
  CHECK(formatBytes(1000000) == "1 MB");
  CHECK(formatBytes(1536) == "1536 B");
  CHECK(formatBytes(3 * 1024) == "3 KiB");
  CHECK(formatUs(12.3456) == "12.346 us");
}
