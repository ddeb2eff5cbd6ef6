//===- tests/unit/passes/PassesTest.cpp - Routing and scheduling tests ----===//
//
// Closed forms for the list scheduler, feasibility of the routing model's
// warm start (every row checked), and routing solved by CBC on small
// topologies where the optimum is known.
//
//===----------------------------------------------------------------------===//
#include "passes/ListSchedule.h"
#include "passes/Routing.h"
#include "passes/RoutingModel.h"

#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
Sketch ringSketch(unsigned N, unsigned K, bool Both, uint64_t Size,
                  double Alpha = 0.7, double BetaUsPerMB = 46) {
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("ring", N);
  for (unsigned R = 0; R < N; ++R) {
    S.Topo.addLink({RankId(R), RankId((R + 1) % N), Alpha, BetaUsPerMB / 1e6});
    if (Both)
      S.Topo.addLink(
          {RankId((R + 1) % N), RankId(R), Alpha, BetaUsPerMB / 1e6});
  }
  S.Coll = Collective::allGather(N, K);
  S.SizeBytes = Size;
  return S;
}

/// Routes every chunk clockwise around a unidirectional ring.
Routes clockwise(const Sketch &S) {
  Routes R;
  unsigned N = S.Topo.getNumRanks();
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    ChunkRoute CR;
    CR.Chunk = ChunkId(C);
    unsigned Src = S.Coll.chunk(ChunkId(C)).Source.index();
    for (unsigned Hop = 0; Hop + 1 < N; ++Hop)
      CR.Links.push_back(*S.Topo.findLink(RankId((Src + Hop) % N),
                                          RankId((Src + Hop + 1) % N)));
    R.Chunks.push_back(CR);
  }
  return R;
}
} // namespace

TEST_CASE("ring allgather takes exactly (N-1)(alpha + beta*M/N)") {
  for (unsigned N : {2u, 3u, 4u, 8u}) {
    CAPTURE(N);
    Sketch S = ringSketch(N, 1, false, 8000000);
    Schedule Sch = scheduleTransfers(S, clockwise(S));
    double Expected = (N - 1) * (0.7 + 46.0 * 8.0 / N);
    CHECK(Sch.MakespanUs == doctest::Approx(Expected));
    CHECK(Sch.Transfers.size() == N * (N - 1));
  }
}

TEST_CASE("with K chunks per rank the ring pipelines: (N-1)K transfers deep") {
  Sketch S = ringSketch(4, 2, false, 8000000);
  Schedule Sch = scheduleTransfers(S, clockwise(S));
  double PerChunk = 0.7 + 46.0 * 1.0; // 8 MB / 8 chunks = 1 MB
  CHECK(Sch.MakespanUs == doctest::Approx(3 * 2 * PerChunk));
}

TEST_CASE("the routing model's warm start satisfies every row") {
  for (bool Both : {false, true}) {
    CAPTURE(Both);
    Sketch S = ringSketch(5, 2, Both, 1000000);
    RoutingModel RM = buildRoutingModel(S);
    const auto &Vars = RM.Model.variables();
    REQUIRE(RM.WarmStart.size() == Vars.size());
    for (size_t I = 0; I < Vars.size(); ++I) {
      CHECK(RM.WarmStart[I] >= Vars[I].Lower - 1e-9);
      CHECK(RM.WarmStart[I] <= Vars[I].Upper + 1e-9);
    }
    for (const auto &Row : RM.Model.constraints()) {
      double Sum = 0;
      for (const auto &T : Row.Terms)
        Sum += T.Coef * RM.WarmStart[T.Var.Index];
      CAPTURE(Row.Name);
      CHECK(Sum >= Row.Lower - 1e-6);
      CHECK(Sum <= Row.Upper + 1e-6);
    }
  }
}

TEST_CASE("CBC routes a bidirectional ring using both directions") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Sketch S = ringSketch(4, 2, true, 4000000);
  SolveStats Stats;
  auto R = routeChunks(S, SynthesisOptions(), Diags, &Stats);
  REQUIRE(R);
  CHECK(!Diags.hasErrors());
  CHECK(R->SolverStatus == "optimal");
  CHECK(Stats.Variables > 0);
  // Each rank receives each of the 8 chunks but its own two exactly once.
  size_t Hops = 0;
  for (const ChunkRoute &CR : R->Chunks)
    Hops += CR.Links.size();
  CHECK(Hops == 8 * 3);
  // Both directions share the load: no link carries more than half of it
  // plus one chunk, so the relaxed makespan beats the one-way ring.
  double OneWay = 3 * 2 * (0.7 + 46.0 * 0.5);
  CHECK(R->RelaxedMakespanUs < OneWay);
  Schedule Sch = scheduleTransfers(S, *R);
  CHECK(Sch.MakespanUs < OneWay);
}

TEST_CASE("an unreachable rank is a diagnostic, not a crash") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("t", 3);
  S.Topo.addLink({RankId(0), RankId(1), 1, 1e-6});
  S.Topo.addLink({RankId(1), RankId(0), 1, 1e-6});
  S.Coll = Collective::allGather(3, 1);
  S.SizeBytes = 1000;
  CHECK(!routeChunks(S, SynthesisOptions(), Diags));
  CHECK(Diags.errorCount() == 1);
}
