//===- tests/unit/runtime/CollectiveTest.cpp - Collective semantics -------===//
//
// Buffer sizes, in-place aliasing and expected sources of each collective.
//
//===----------------------------------------------------------------------===//
#include "format/Collective.h"

#include <doctest/doctest.h>

using namespace tacclrt;

namespace {
CollectiveLayout layout(CollKind C, unsigned N, std::uint64_t Count,
                        bool InPlace, unsigned Root = 0) {
  Report R;
  std::optional<CollectiveLayout> L =
      describeCollective(C, N, Count, InPlace, R, {}, Root);
  REQUIRE(L.has_value());
  CHECK(R.empty());
  return *L;
}
} // namespace

TEST_CASE("allgather: count per rank, output n*count") {
  CollectiveLayout L = layout(CollKind::AllGather, 4, 10, false);
  CHECK(L.SizeMultiplier == 4);
  CHECK(L.TotalCount == 40);
  CHECK(L.InputCount == 10);
  CHECK(L.OutputCount == 40);
  CHECK(L.Alias == Aliasing::None);
  ElementSource S = expectedSource(L, 1, 23);
  CHECK_FALSE(S.Reduced);
  CHECK(S.Rank == 2);
  CHECK(S.Index == 3);
  CollectiveLayout I = layout(CollKind::AllGather, 4, 10, true);
  CHECK(I.Alias == Aliasing::InputInOutput);
  CHECK(I.aliasOffset(3) == 30); // sendbuff == recvbuff + rank*count
}

TEST_CASE("alltoall: block q of rank r comes from block r of rank q") {
  CollectiveLayout L = layout(CollKind::AllToAll, 3, 5, false);
  CHECK(L.TotalCount == 15);
  CHECK(L.InputCount == 15);
  CHECK(L.OutputCount == 15);
  ElementSource S = expectedSource(L, 2, 6); // block 1, element 1
  CHECK(S.Rank == 1);
  CHECK(S.Index == 11); // block 2 of rank 1, element 1
  CHECK(layout(CollKind::AllToAll, 3, 5, true).Alias == Aliasing::SameBuffer);
}

TEST_CASE("allreduce and reducescatter reduce over all ranks") {
  CollectiveLayout A = layout(CollKind::AllReduce, 3, 8, true);
  CHECK(A.TotalCount == 8);
  CHECK(A.Alias == Aliasing::SameBuffer);
  ElementSource S = expectedSource(A, 2, 5);
  CHECK(S.Reduced);
  CHECK(S.Index == 5);

  CollectiveLayout R = layout(CollKind::ReduceScatter, 2, 6, true);
  CHECK(R.SizeMultiplier == 2);
  CHECK(R.InputCount == 12);
  CHECK(R.OutputCount == 6);
  CHECK(R.Alias == Aliasing::OutputInInput);
  CHECK(R.aliasOffset(1) == 6); // recvbuff == sendbuff + rank*count
  S = expectedSource(R, 1, 2);
  CHECK(S.Reduced);
  CHECK(S.Index == 8);
  CHECK(isReduction(CollKind::ReduceScatter));
  CHECK_FALSE(isReduction(CollKind::AllToAll));
}

TEST_CASE("rooted collectives: sizes, aliasing, defined buffers") {
  CollectiveLayout B = layout(CollKind::Broadcast, 4, 8, false, 2);
  CHECK(B.SizeMultiplier == 1);
  CHECK(B.InputCount == 8);
  CHECK(B.OutputCount == 8);
  CHECK(B.Root == 2);
  ElementSource S = expectedSource(B, 3, 5);
  CHECK_FALSE(S.Reduced);
  CHECK(S.Rank == 2);
  CHECK(S.Index == 5);
  CHECK(inputDefined(B, 2));
  CHECK_FALSE(inputDefined(B, 0));
  CHECK(outputWritable(B, 0));
  CHECK(layout(CollKind::Broadcast, 4, 8, true, 2).Alias ==
        Aliasing::SameBuffer);

  CollectiveLayout R = layout(CollKind::Reduce, 4, 8, false, 1);
  S = expectedSource(R, 1, 3);
  CHECK(S.Reduced);
  CHECK(S.Checked);
  CHECK(S.Index == 3);
  CHECK_FALSE(expectedSource(R, 0, 3).Checked);
  CHECK_FALSE(outputWritable(R, 0));
  CHECK(inputDefined(R, 0));

  // Gather and scatter count one rank's part (sizeMultiplier 1).
  CollectiveLayout G = layout(CollKind::Gather, 4, 6, true, 3);
  CHECK(G.SizeMultiplier == 1);
  CHECK(G.InputCount == 6);
  CHECK(G.OutputCount == 24);
  CHECK(G.Alias == Aliasing::InputInOutput);
  CHECK(G.aliasOffset(2) == 12);
  S = expectedSource(G, 3, 13);
  CHECK(S.Rank == 2);
  CHECK(S.Index == 1);
  CHECK_FALSE(expectedSource(G, 1, 13).Checked);

  CollectiveLayout Sc = layout(CollKind::Scatter, 4, 6, true, 0);
  CHECK(Sc.InputCount == 24);
  CHECK(Sc.OutputCount == 6);
  CHECK(Sc.Alias == Aliasing::OutputInInput);
  S = expectedSource(Sc, 2, 4);
  CHECK(S.Rank == 0);
  CHECK(S.Index == 16);
  CHECK_FALSE(inputDefined(Sc, 1));

  Report Bad;
  CHECK_FALSE(
      describeCollective(CollKind::Scatter, 4, 6, false, Bad, "f.xml", 4));
  CHECK(Bad.hasErrors());
  CHECK(isRooted(CollKind::Gather));
  CHECK_FALSE(isRooted(CollKind::AllGather));
}

TEST_CASE("unsupported collectives give an issue, not a crash") {
  for (CollKind C : {CollKind::AllToAllV, CollKind::Send, CollKind::Recv,
                     CollKind::Custom}) {
    Report R;
    CHECK_FALSE(describeCollective(C, 4, 16, false, R, "f.xml").has_value());
    REQUIRE(R.size() == 1);
    CHECK(R[0].Message.find("is not supported yet") != std::string::npos);
    CHECK(R[0].File == "f.xml");
  }
  Report R;
  CHECK_FALSE(describeCollective(CollKind::AllReduce, 4, 0, false, R));
  CHECK(R.hasErrors());
}
