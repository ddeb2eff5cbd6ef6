//===- tests/unit/codegen/RouteLimitsTest.cpp - Needs counted on routes ---===//
//
// routeNeeds() (passes/RouteLimits.h) counts what every program on some
// routes needs. Here it is checked on hand-made routes: exactly where the
// count is easy by hand, and against the programs the lowering makes of
// the same routes, which must never need less than it counts.
//
//===----------------------------------------------------------------------===//
#include "passes/RouteLimits.h"
#include "codegen/Codegen.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"
#include "tests/unit/codegen/CodegenTestUtil.h"

#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::test;

namespace {
/// \p N ranks, each linked to every other.
Sketch flat(unsigned N, Collective Coll) {
  return cliqueSketch("flat", N, std::move(Coll));
}

/// Every chunk of \p S straight from its source to each rank that needs
/// it.
Routes direct(const Sketch &S) { return directRoutes(S); }

/// What a program needs at most over its ranks.
struct ProgramNeeds {
  size_t XmlElements = 0;
  unsigned WaitedThreadblocks = 0;
};

ProgramNeeds needsOf(const Program &P) {
  ProgramNeeds N;
  for (const GpuProgram &G : P.Gpus) {
    size_t Elements = 1 + P.Gpus.size() + G.Tbs.size();
    std::set<int> Waited;
    for (const ThreadBlock &Tb : G.Tbs) {
      Elements += Tb.Steps.size();
      for (const Step &St : Tb.Steps)
        if (St.DepId >= 0)
          Waited.insert(St.DepId);
    }
    N.XmlElements = std::max(N.XmlElements, Elements);
    N.WaitedThreadblocks =
        std::max(N.WaitedThreadblocks, unsigned(Waited.size()));
  }
  return N;
}

/// The counted needs of \p S routed by \p Route (its dual's routes for a
/// combining collective, on which an ALLREDUCE also spreads), and the
/// needs of the program the lowering makes of them.
std::pair<RouteNeeds, ProgramNeeds> bothNeeds(const Sketch &S,
                                              Routes (*Route)(const Sketch &)) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::optional<Program> P;
  RouteNeeds Counted;
  if (isCombining(S.Coll.getKind())) {
    Sketch Dual = dualSketch(S, false);
    Routes Rt = Route(Dual);
    Schedule Up = scheduleTransfers(Dual, Rt);
    Counted = routeNeeds(S, Dual, Rt, &Rt);
    P = lowerToProgram(S, reverseForReduction(S, Up, false, &Up), {}, Diags);
  } else {
    Routes Rt = Route(S);
    Counted = routeNeeds(S, S, Rt, nullptr);
    P = lowerToProgram(S, scheduleTransfers(S, Rt), {}, Diags);
  }
  REQUIRE(P);
  return {Counted, needsOf(*P)};
}
} // namespace

TEST_CASE("routes straight to every peer: every chunk costs each rank a step "
          "per peer") {
  const unsigned N = 6, K = 2;
  Sketch S = flat(N, Collective::allGather(N, K));
  RouteNeeds Needs = routeNeeds(S, S, direct(S), nullptr);
  // K own chunks sent to N - 1 peers each, K (N - 1) chunks received.
  CHECK(Needs.Steps == 2 * K * (N - 1));
  CHECK(Needs.Threadblocks == N - 1);
  CHECK(Needs.XmlElements == 1 + N + (N - 1) + 2 * K * (N - 1));
  CHECK(Needs.WaitedThreadblocks == 0);
}

TEST_CASE("a ring's relays receive and send in one step") {
  const unsigned N = 5;
  Sketch S = ringSketch("ring", N, Collective::allGather(N, 1));
  RouteNeeds Needs = routeNeeds(S, S, clockwise(S), nullptr);
  CHECK(Needs.Steps == N);
  CHECK(Needs.Threadblocks == 1);
}

TEST_CASE("a rank that sums a chunk from k peers waits on k - 1 "
          "threadblocks") {
  const unsigned N = 6;
  Sketch S = flat(N, Collective::make(CollectiveKind::AllReduce, N, 1));
  Sketch Dual = dualSketch(S, false);
  Routes Rt = direct(Dual);
  RouteNeeds Spread = routeNeeds(S, Dual, Rt, &Rt);
  CHECK(Spread.SummingPeers == N - 1);
  CHECK(Spread.WaitedThreadblocks == N - 2);
  // The root: N - 1 partials in, the sum out to N - 1 peers, one step
  // doing both; the others: a partial out and the sum in, per chunk.
  CHECK(Spread.Steps == (2 * N - 3) + 2 * (N - 1));
  // Before the spread is routed: one arrival of each sum per rank.
  RouteNeeds Unspread = routeNeeds(S, Dual, Rt, nullptr);
  CHECK(Unspread.Steps == (N - 2) + (N - 1) + N);
  CHECK(Unspread.WaitedThreadblocks == N - 2);

  RankLimits Tight;
  Tight.WaitedThreadblocks = N - 3;
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  CHECK_FALSE(checkRouteLimits(S, Dual, Rt, &Rt, Tight, Diags));
  CHECK(Diags.hasErrors());
  RankLimits Enough;
  Enough.WaitedThreadblocks = N - 2;
  DiagnosticEngine Quiet(SM);
  CHECK(checkRouteLimits(S, Dual, Rt, &Rt, Enough, Quiet));
}

TEST_CASE("the lowering never needs less than the routes' count") {
  const std::vector<CollectiveKind> Kinds = {
      CollectiveKind::AllGather, CollectiveKind::AllToAll,
      CollectiveKind::ReduceScatter, CollectiveKind::AllReduce};
  for (CollectiveKind Kind : Kinds)
    for (unsigned K : {1u, 2u}) {
      if (Kind == CollectiveKind::AllToAll && K > 1)
        continue;
      CAPTURE(collectiveName(Kind).str());
      CAPTURE(K);
      Collective C = Kind == CollectiveKind::AllGather
                         ? Collective::allGather(5, K)
                         : Collective::make(Kind, 5, K);
      for (bool Flat : {true, false}) {
        CAPTURE(Flat);
        Sketch S = Flat ? flat(5, C) : ringSketch("ring", 5, C, true);
        auto [Counted, Made] = bothNeeds(S, Flat ? direct : clockwise);
        CHECK(Counted.XmlElements > 0);
        CHECK(Made.XmlElements >= Counted.XmlElements);
        CHECK(Made.WaitedThreadblocks >= Counted.WaitedThreadblocks);
      }
    }
}
