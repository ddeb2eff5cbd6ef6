//===- tests/unit/codegen/DependencyIdsTest.cpp - Waited-on tbs first -----===//
//
// putDependencyTargetsFirst(): a rank whose steps wait on a threadblock
// numbered beyond what a dependency can name has its threadblocks
// renumbered, the waited-on ones first, every dependency following its
// target; a rank within the limit keeps its numbering.
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// \p N threadblocks; threadblock I sends to peer I (so each is
/// recognisable after renumbering) and holds one step.
std::vector<ThreadBlock> blocks(unsigned N) {
  std::vector<ThreadBlock> Tbs(N);
  for (unsigned I = 0; I < N; ++I) {
    Tbs[I].Send = static_cast<int>(I);
    Tbs[I].Steps.emplace_back();
  }
  return Tbs;
}

/// Makes step 0 of threadblock \p From wait on step 0 of \p On.
void wait(std::vector<ThreadBlock> &Tbs, unsigned From, unsigned On) {
  Tbs[From].Steps[0].DepId = static_cast<int>(On);
  Tbs[From].Steps[0].Deps = 0;
}
} // namespace

TEST_CASE("threadblocks within the limit keep their numbers") {
  std::vector<ThreadBlock> Tbs = blocks(140);
  wait(Tbs, 139, 127);
  wait(Tbs, 5, 127);
  wait(Tbs, 130, 3);
  CHECK(putDependencyTargetsFirst(Tbs, 127) == 2);
  for (unsigned I = 0; I < Tbs.size(); ++I)
    CHECK(Tbs[I].Send == static_cast<int>(I));
  CHECK(Tbs[139].Steps[0].DepId == 127);
}

TEST_CASE("a target beyond the limit moves the targets to the front") {
  std::vector<ThreadBlock> Tbs = blocks(140);
  wait(Tbs, 0, 131); // a forward waiting on the last receive
  wait(Tbs, 1, 131);
  wait(Tbs, 131, 7); // and that receive waiting on another
  CHECK(putDependencyTargetsFirst(Tbs, 127) == 2);
  REQUIRE(Tbs.size() == 140);
  // Targets in their old order, then the rest in theirs.
  CHECK(Tbs[0].Send == 7);
  CHECK(Tbs[1].Send == 131);
  CHECK(Tbs[2].Send == 0);
  CHECK(Tbs[3].Send == 1);
  CHECK(Tbs[4].Send == 2);
  CHECK(Tbs[139].Send == 139);
  // Every dependency names its target's new number.
  for (const ThreadBlock &Tb : Tbs) {
    const Step &St = Tb.Steps[0];
    if (Tb.Send == 0 || Tb.Send == 1)
      CHECK(St.DepId == 1);
    else if (Tb.Send == 131)
      CHECK(St.DepId == 0);
    else
      CHECK(St.DepId == -1);
  }
}

TEST_CASE("more targets than a dependency can name are counted") {
  std::vector<ThreadBlock> Tbs = blocks(300);
  for (unsigned I = 0; I < 150; ++I)
    wait(Tbs, I, 150 + I);
  CHECK(putDependencyTargetsFirst(Tbs, 127) == 150);
  // The first 128 targets now fit; the caller reports the rest.
  CHECK(Tbs[0].Send == 150);
  CHECK(Tbs[149].Send == 299);
  CHECK(Tbs[150].Send == 0);
  CHECK(Tbs[150].Steps[0].DepId == 0);
}
