//===- tests/unit/passes/ExactScheduleTest.cpp - Stages 2 and 3 -----------===//
//
// Stage 2 (orderTransfers keeps the shortest heuristic schedule, and runs
// the batched one only where it can batch) and stage 3
// (contiguity MILP and retiming): the model's warm start is feasible,
// retiming without merges reproduces the list schedule, merging on a
// contiguous ring beats the pace of its connections' FIFOs, stage 3 never
// makes a schedule slower, schedules that will be reversed never merge, and
// a batch started on a shared NIC is sent back to back (one message).
//
//===----------------------------------------------------------------------===//
#include "passes/ExactSchedule.h"
#include "../codegen/CodegenTestUtil.h"
#include "passes/ListSchedule.h"

#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// A clockwise ring of \p N one-GPU nodes on one class (alpha 20 us, 1 us
/// per KB), \p K chunks per rank, contiguous when \p Contiguous.
Sketch slowRing(unsigned N, unsigned K, bool Contiguous) {
  Sketch S = test::ringSketch("s", N, Collective::allGather(N, K));
  int Class = S.Topo.addClass({"slow", 20.0, 1e-3, {}});
  Topology T("ring", N);
  T.addClass(S.Topo.classes()[Class]);
  for (const Link &L : S.Topo.links()) {
    Link Copy = L;
    Copy.AlphaUs = 20.0;
    Copy.BetaUsPerB = 1e-3;
    Copy.Class = 0;
    T.addLink(Copy);
  }
  S.Topo = T;
  S.ContiguousClasses = {Contiguous};
  return S;
}

void checkSameTimes(const Schedule &A, const Schedule &B) {
  REQUIRE(A.Transfers.size() == B.Transfers.size());
  CHECK(A.MakespanUs == doctest::Approx(B.MakespanUs));
  for (size_t I = 0; I < A.Transfers.size(); ++I) {
    CAPTURE(I);
    CHECK(A.Transfers[I].Chunk == B.Transfers[I].Chunk);
    CHECK(A.Transfers[I].Link == B.Transfers[I].Link);
    CHECK(A.Transfers[I].StartUs == doctest::Approx(B.Transfers[I].StartUs));
    CHECK(A.Transfers[I].EndUs == doctest::Approx(B.Transfers[I].EndUs));
  }
}
} // namespace

TEST_CASE("stage 2 keeps the shortest heuristic schedule") {
  Sketch S = test::ringSketch("s", 5, Collective::allGather(5, 3), true);
  Routes R = test::clockwise(S);
  OrderingResult O = orderTransfers(S, R);
  REQUIRE(O.Tried.size() == orderingsFor(S).size());
  for (const auto &[Ord, Us] : O.Tried) {
    CAPTURE(orderingName(Ord).str());
    CHECK(O.Best.MakespanUs <= Us + 1e-9);
    CHECK(scheduleTransfers(S, R, Ord).MakespanUs == doctest::Approx(Us));
  }
  CHECK(scheduleTransfers(S, R, O.BestOrdering).MakespanUs ==
        doctest::Approx(O.Best.MakespanUs));
  // Deterministic: the same input gives the same schedule.
  checkSameTimes(O.Best, orderTransfers(S, R).Best);
}

TEST_CASE("the batched ordering runs only where a class is contiguous") {
  for (bool Contiguous : {false, true}) {
    CAPTURE(Contiguous);
    Sketch S = slowRing(4, 3, Contiguous);
    std::vector<Ordering> Run = orderingsFor(S);
    bool Batched =
        std::find(Run.begin(), Run.end(), Ordering::Batched) != Run.end();
    CHECK(Batched == Contiguous);
    CHECK(Run.size() == std::size(AllOrderings) - (Contiguous ? 0 : 1));
    CHECK(orderTransfers(S, test::clockwise(S)).Tried.size() == Run.size());
  }
  // Without one it forms no batch: its schedule is earliest-start's.
  Sketch S = slowRing(4, 3, false);
  Routes R = test::clockwise(S);
  checkSameTimes(scheduleTransfers(S, R, Ordering::Batched),
                 scheduleTransfers(S, R, Ordering::EarliestStart));
}

TEST_CASE("retiming without merges reproduces the list schedule") {
  for (unsigned K : {1u, 2u, 3u}) {
    CAPTURE(K);
    Sketch S = slowRing(4, K, true);
    Schedule Sch = scheduleTransfers(S, test::clockwise(S));
    auto Same = retime(S, Sch, std::vector<bool>(Sch.Transfers.size()));
    REQUIRE(Same);
    checkSameTimes(*Same, Sch);
  }
}

TEST_CASE("the stage-3 warm start satisfies every row") {
  Sketch S = slowRing(4, 2, true);
  Schedule Sch = scheduleTransfers(S, test::clockwise(S));
  ScheduleModel SM = buildScheduleModel(S, Sch, true);
  CHECK(SM.NumDecisions > 0);
  CHECK(SM.Model.maxViolation(SM.WarmStart) <= 1e-6);
  CHECK(buildScheduleModel(S, Sch, false).NumDecisions == 0);
  CHECK(buildScheduleModel(slowRing(4, 2, false), Sch, true).NumDecisions == 0);
}

TEST_CASE("a contiguous ring merges what its FIFOs would hold back") {
  // Latency overlaps on a link, so merging pays only where a connection's
  // FIFO (8 messages of one step) holds messages back. On a ring of two,
  // each link carries its rank's K chunks: unmerged, 12 of them take two
  // rounds of latency (the 9th is sent when the 1st lands); merged, one.
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  for (unsigned K : {4u, 12u}) {
    CAPTURE(K);
    Sketch S = slowRing(2, K, true);
    Schedule Sch = scheduleTransfers(S, test::clockwise(S));
    SolveStats Stats;
    Schedule Out = scheduleExactly(S, Sch, true, StageOptions(), Diags, &Stats);
    double Beta = S.chunkBytes() * 1e-3;
    // One latency, then the K chunks' data back to back.
    CHECK(Out.MakespanUs == doctest::Approx(20.0 + K * Beta));
    if (K == 4) // nothing waits for the FIFO: nothing to gain
      CHECK(Out.MakespanUs == doctest::Approx(Sch.MakespanUs));
    else
      CHECK(Sch.MakespanUs == doctest::Approx(2 * 20.0 + 5 * Beta));
    CHECK(Stats.Status == "optimal");
    // Chunks of one message start and end together.
    for (size_t I = 1; I < Out.Transfers.size(); ++I)
      if (Out.Transfers[I].Link == Out.Transfers[I - 1].Link &&
          Out.Transfers[I].StartUs == Out.Transfers[I - 1].StartUs)
        CHECK(Out.Transfers[I].EndUs == Out.Transfers[I - 1].EndUs);
    // Without permission to merge, nothing changes.
    checkSameTimes(scheduleExactly(S, Sch, false, StageOptions(), Diags), Sch);
  }
  CHECK(!Diags.hasErrors());
}

TEST_CASE("a started batch keeps its NIC until its chunks are sent") {
  // Three one-GPU nodes; rank 0 broadcasts K chunks to ranks 1 and 2 over
  // one NIC (alpha 100 us, contiguous). Batched, each link's chunks leave
  // back to back, so each link's chunks can be one message: one latency
  // and 2 K beta of data in all, where alternating links cannot merge and
  // wait for their FIFOs (8 messages) three times.
  const unsigned K = 24;
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("star", 3, 1);
  int Ib = S.Topo.addClass({"ib", 100.0, 1e-3, {}});
  for (unsigned R = 0; R < 3; ++R)
    S.Topo.addNic({Ib, {RankId(R)}});
  for (unsigned D : {1u, 2u}) {
    Link L{RankId(0), RankId(D), 100.0, 1e-3};
    L.Class = Ib;
    S.Topo.addLink(L);
  }
  S.Coll = Collective::make(CollectiveKind::Broadcast, 3, K, RankId(0));
  S.SizeBytes = 1000 * S.Coll.getSizeParts();
  S.ContiguousClasses = {true};
  Routes R;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C)
    R.Chunks.push_back({ChunkId(C), {LinkId(0), LinkId(1)}});

  Schedule B = scheduleTransfers(S, R, Ordering::Batched);
  std::vector<Transfer> ByStart = B.Transfers;
  std::stable_sort(ByStart.begin(), ByStart.end(),
                   [](auto &X, auto &Y) { return X.StartUs < Y.StartUs; });
  // Every link's transfers are one run on the NIC.
  unsigned Switches = 0;
  for (size_t I = 1; I < ByStart.size(); ++I)
    Switches += ByStart[I].Link != ByStart[I - 1].Link;
  CHECK(Switches == 1);
  double Beta = S.chunkBytes() * 1e-3;
  CHECK(mergeGreedily(S, B).MakespanUs ==
        doctest::Approx(100.0 + 2 * K * Beta));
  // Stage 2 compares orderings by what merging makes of them: batched wins.
  OrderingResult O = orderTransfers(
      S, R, [&](const Schedule &X) { return mergeGreedily(S, X).MakespanUs; });
  CHECK(O.BestOrdering == Ordering::Batched);
}
