//===- tests/unit/ir/IrTest.cpp - Topology and collective tests -----------===//
//
// Shortest paths, link lookup, the chunk definition of each collective and
// how its chunk count is worded.
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

TEST_CASE("every collective has the MSCCL layout and the nccl-tests size") {
  Collective A2A = Collective::make(CollectiveKind::AllToAll, 3, 2);
  CHECK(A2A.getNumChunks() == 18);
  CHECK(A2A.getSizeParts() == 6);
  // Chunk (s=1, d=2, j=1): input 2*2+1 of rank 1 -> output 1*2+1 of rank 2.
  const Chunk &C = A2A.chunk(ChunkId((1 * 3 + 2) * 2 + 1));
  CHECK(C.Source == RankId(1));
  CHECK(C.InputIndex == 5);
  CHECK(C.OutputIndex == 3);
  CHECK(C.Post == std::vector<RankId>{RankId(2)});

  Collective B = Collective::make(CollectiveKind::Broadcast, 4, 3, RankId(2));
  CHECK(B.getNumChunks() == 3);
  CHECK(B.getRoot() == RankId(2));
  CHECK(B.chunk(ChunkId(1)).Pre == std::vector<RankId>{RankId(2)});
  CHECK(B.chunk(ChunkId(1)).Post.size() == 4);
  CHECK(B.chunkBytes(3e6) == doctest::Approx(1e6));

  Collective G = Collective::make(CollectiveKind::Gather, 4, 1, RankId(3));
  CHECK(G.chunk(ChunkId(2)).Post == std::vector<RankId>{RankId(3)});
  CHECK(G.getOutputChunks() == 4);

  Collective AR = Collective::make(CollectiveKind::AllReduce, 4, 1);
  CHECK(isCombining(AR.getKind()));
  CHECK(AR.chunk(ChunkId(0)).Pre.size() == 4);
  CHECK(AR.getSizeParts() == 4);
  CHECK(isRooted(CollectiveKind::Reduce));
  CHECK_FALSE(isRooted(CollectiveKind::AllGather));
  for (const char *Name : {"allgather", "alltoall", "broadcast", "scatter",
                           "gather", "reducescatter", "reduce", "allreduce"})
    CHECK(collectiveName(*parseCollectiveName(Name)) == Name);
}

TEST_CASE("cost profiles interpolate in log(size) and clamp outside") {
  LinkClass C;
  C.Profile = {{1e3, 3.0, 50e-6}, {1e6, 1.0, 100e-6}};
  CHECK(C.costsAt(10).AlphaUs == doctest::Approx(3.0));
  CHECK(C.costsAt(1e9).BetaUsPerB == doctest::Approx(100e-6));
  // sqrt(1e3 * 1e6) is halfway in log space.
  CostPoint Mid = C.costsAt(std::sqrt(1e9));
  CHECK(Mid.AlphaUs == doctest::Approx(2.0));
  CHECK(Mid.BetaUsPerB == doctest::Approx(75e-6));
  LinkClass Flat{"f", 0.5, 1e-6, {}};
  CHECK(Flat.costsAt(123).AlphaUs == 0.5);
}

TEST_CASE("switch ports and shared NICs are resources") {
  Topology T("box", 2, 3);
  int Nv = T.addClass({"nv", 1, 1e-6, {}});
  Switch Sw;
  Sw.Name = "nvs";
  Sw.Class = Nv;
  Sw.Groups = {{RankId(0), RankId(1), RankId(2)}};
  int SwId = T.addSwitch(Sw);
  for (unsigned A = 0; A < 3; ++A)
    for (unsigned B = 0; B < 3; ++B)
      if (A != B) {
        Link L{RankId(A), RankId(B), 1, 1e-6, Nv};
        L.Switch = SwId;
        T.addLink(L);
      }
  T.addNic({Nv, {RankId(0), RankId(1)}});
  T.addNic({Nv, {RankId(3), RankId(4)}});
  T.addLink({RankId(0), RankId(3), 2, 1e-6, Nv});
  T.addLink({RankId(1), RankId(4), 2, 1e-6, Nv});
  CHECK(T.nicOf(RankId(1)) == 0);
  CHECK(T.nicOf(RankId(2)) == -1);
  std::vector<Resource> Rs = T.resources();
  // Three GPUs x (out, in) switch ports, then the first NIC's send side and
  // the second NIC's receive side (each with two links).
  REQUIRE(Rs.size() == 8);
  CHECK(Rs[0].Name == "switch nvs port out of 0:0");
  CHECK(Rs[0].Links.size() == 2);
  CHECK(Rs[6].Name == "nic of 0:0,1 (send)");
  CHECK(Rs[6].Links.size() == 2);
  CHECK(Rs[7].Name == "nic of 1:0,1 (receive)");
  // Sides and ports: a switch port's two sides share its number; the two
  // NICs are different ports.
  CHECK(Rs[0].Egress);
  CHECK_FALSE(Rs[1].Egress);
  CHECK(Rs[0].Port == Rs[1].Port);
  CHECK(Rs[2].Port != Rs[0].Port);
  CHECK(Rs[6].Egress);
  CHECK_FALSE(Rs[7].Egress);
  CHECK(Rs[6].Port != Rs[7].Port);
  CHECK_FALSE(Rs[0].Nic);
  CHECK(Rs[6].Nic);
  CHECK(Rs[7].Nic);
}

TEST_CASE("the chunk count is worded for each collective's layout") {
  // Each count is the collective's own number of chunks.
  for (const char *Name : {"allgather", "alltoall", "broadcast", "scatter",
                           "gather", "reducescatter", "reduce", "allreduce"}) {
    CAPTURE(Name);
    CollectiveKind K = *parseCollectiveName(Name);
    Collective C = Collective::make(K, 4, 2, RankId(1));
    std::string Text = describeChunks(K, 4, 2, 1);
    CHECK(Text.rfind(std::to_string(C.getNumChunks()) + " chunk", 0) == 0);
  }
  CHECK(describeChunks(CollectiveKind::AllToAll, 16, 1, 0) ==
        "256 chunks (1 per ordered pair of ranks)");
  CHECK(describeChunks(CollectiveKind::AllGather, 16, 1, 0) ==
        "16 chunks (1 per rank)");
  CHECK(describeChunks(CollectiveKind::Broadcast, 8, 1, 3) ==
        "1 chunk from root rank 3");
  CHECK(describeChunks(CollectiveKind::Reduce, 8, 2, 0) ==
        "2 chunks to root rank 0");
  CHECK(describeChunks(CollectiveKind::Gather, 4, 1, 3) ==
        "4 chunks (1 from each rank, to root rank 3)");
  CHECK(describeChunks(CollectiveKind::Scatter, 4, 1, 0) ==
        "4 chunks (1 for each rank, from root rank 0)");
  CHECK(describeChunks(CollectiveKind::ReduceScatter, 4, 3, 0) ==
        "12 chunks (3 for each rank)");
  CHECK(collectiveNames().size() == 8);
}
