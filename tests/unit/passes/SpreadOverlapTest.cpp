//===- tests/unit/passes/SpreadOverlapTest.cpp - Sums spread early --------===//
//
// overlapSpread on list-scheduled allreduces: the spreading half starts
// each chunk once its sum is complete and after the reduction on every
// link, keeps every chunk's route and the reduction as they were, and is
// kept only when it is shorter.
//
//===----------------------------------------------------------------------===//
#include "passes/SpreadOverlap.h"
#include "../codegen/CodegenTestUtil.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// \p N ranks, every pair linked both ways (symmetric), \p K chunks each.
Sketch clique(unsigned N, unsigned K) {
  Sketch S = test::cliqueSketch(
      "clique", N, Collective::make(CollectiveKind::AllReduce, N, K), 1e-3);
  S.SizeBytes = 1 << 20;
  return S;
}

/// Direct routes of the dual allgather: each chunk from its source to
/// every other rank.
Routes direct(const Sketch &D) { return test::directRoutes(D); }

/// The allreduce as synthesis appends it: reduction, then the spread.
Schedule appended(const Sketch &S) {
  Sketch D = dualSketch(S, false);
  Schedule Down = scheduleTransfers(D, direct(D));
  return reverseForReduction(S, Down, false, &Down);
}

using Key = std::tuple<unsigned, unsigned, bool>; // chunk, link, reduce
std::multiset<Key> keys(const Schedule &Sch) {
  std::multiset<Key> Out;
  for (const Transfer &T : Sch.Transfers)
    Out.insert({T.Chunk.index(), T.Link.index(), T.Reduce});
  return Out;
}
} // namespace

TEST_CASE("sums spread as they finish: shorter, same transfers, in order") {
  Sketch S = clique(4, 4);
  const Collective Dual = dualCollective(S.Coll);
  Schedule Before = appended(S);
  auto O = overlapSpread(S, Before);
  REQUIRE(O);
  const Schedule &After = O->Schedule;
  CHECK(After.MakespanUs < Before.MakespanUs);
  CHECK(keys(After) == keys(Before));
  // The reduction is untouched; when each sum is complete at its source,
  // and when each link has finished its reducing transfers.
  std::map<unsigned, double> Release, LinkDone;
  std::multiset<std::tuple<unsigned, unsigned, double, double>> RedBefore,
      RedAfter;
  for (const Transfer &T : Before.Transfers)
    if (T.Reduce)
      RedBefore.insert({T.Chunk.index(), T.Link.index(), T.StartUs, T.EndUs});
  for (const Transfer &T : After.Transfers) {
    if (!T.Reduce)
      continue;
    RedAfter.insert({T.Chunk.index(), T.Link.index(), T.StartUs, T.EndUs});
    LinkDone[T.Link.index()] = std::max(LinkDone[T.Link.index()], T.EndUs);
    if (S.Topo.link(T.Link).Dst == Dual.chunk(T.Chunk).Source)
      Release[T.Chunk.index()] = std::max(Release[T.Chunk.index()], T.EndUs);
  }
  CHECK(RedAfter == RedBefore);
  bool Early = false;
  for (const Transfer &T : After.Transfers) {
    if (T.Reduce)
      continue;
    // Direct routes: every spreading transfer leaves the chunk's source.
    CHECK(T.StartUs >= Release.at(T.Chunk.index()) - 1e-9);
    CHECK(T.EndUs >= LinkDone.at(T.Link.index()) - 1e-9);
    Early |= T.StartUs < Before.MakespanUs / 2;
  }
  // Some sum leaves before the whole reduction has finished.
  CHECK(Early);
  CHECK(After.MakespanUs <= Before.MakespanUs);
}

TEST_CASE("one chunk per rank on two ranks: nothing to overlap") {
  Sketch S = clique(2, 1);
  CHECK_FALSE(overlapSpread(S, appended(S)));
}
