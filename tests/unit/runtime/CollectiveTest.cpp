//===- tests/unit/runtime/CollectiveTest.cpp - Collective semantics -------===//
//
// Buffer sizes, in-place aliasing and expected sources of each collective.
//
//===----------------------------------------------------------------------===//
#include "tacclrt/Collective.h"

#include <doctest/doctest.h>

using namespace tacclrt;

namespace {
CollectiveLayout layout(CollKind C, unsigned N, std::uint64_t Count,
                        bool InPlace) {
  Report R;
  std::optional<CollectiveLayout> L =
      describeCollective(C, N, Count, InPlace, R);
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

TEST_CASE("unsupported collectives give an issue, not a crash") {
  for (CollKind C : {CollKind::Broadcast, CollKind::Reduce, CollKind::Gather,
                     CollKind::Scatter, CollKind::Custom}) {
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
