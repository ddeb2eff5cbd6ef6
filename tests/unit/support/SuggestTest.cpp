//===- tests/unit/support/SuggestTest.cpp - "Did you mean" ---------------===//
//
// Other case and separators find the name first, then a small edit
// distance; short and unrelated names get no suggestion.
//
//===----------------------------------------------------------------------===//
#include "support/Suggest.h"

#include <doctest/doctest.h>

#include <vector>

using namespace tacclc;

namespace {
const std::vector<llvm::StringRef> Collectives = {
    "allgather", "alltoall",      "broadcast", "scatter",
    "gather",    "reducescatter", "reduce",    "allreduce"};
} // namespace

TEST_CASE("suggest: case and separators") {
  CHECK(closestName("all_gather", Collectives) == "allgather");
  CHECK(closestName("AllReduce", Collectives) == "allreduce");
  CHECK(closestName("reduce_scatter", Collectives) == "reducescatter");
  CHECK(closestName("all-to-all", Collectives) == "alltoall");
  CHECK(closestName("ReduceScatter", Collectives) == "reducescatter");
  CHECK(normalizeName("All_To-All") == "alltoall");
}

TEST_CASE("suggest: small edit distances, nearest first") {
  CHECK(closestName("allgathr", Collectives) == "allgather");
  CHECK(closestName("brodcast", Collectives) == "broadcast");
  // "scater" is one edit from scatter, more from gather.
  CHECK(closestName("scater", Collectives) == "scatter");
  CHECK(closestName("nvlnk", {"ib", "nvlink"}) == "nvlink");
}

TEST_CASE("suggest: nothing close") {
  CHECK(closestName("sendrecv", Collectives).empty());
  CHECK(closestName("barrier", Collectives).empty());
  // Two edits would turn any two-letter name into any other.
  CHECK(closestName("ib", {"nv"}).empty());
  CHECK(closestName("ib", {"IB"}) == "IB");
  CHECK(closestName("", Collectives).empty());
  CHECK(closestName("x", {}).empty());
}
