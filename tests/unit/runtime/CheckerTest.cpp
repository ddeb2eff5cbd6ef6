//===- tests/unit/runtime/CheckerTest.cpp - Symbolic checker --------------===//
//
// Correct fixtures pass; every single-step deletion of the ring allgather,
// count mismatches, deadlocks, uninitialised reads, double counting, wrong
// placement, shifted step numbers and unsupported collectives are reported
// with the rank, threadblock and step concerned.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "tacclrt/Checker.h"

#include <doctest/doctest.h>

using namespace tacclrt;
using namespace tacclrt::test;

TEST_CASE("checker accepts every correct fixture") {
  for (const char *Name :
       {"allgather_ring4.xml", "allgather_ring4_inplace.xml",
        "allreduce_ring3.xml", "allreduce_deps2.xml", "allreduce_rrc2.xml",
        "alltoall3.xml", "reducescatter2.xml"}) {
    CAPTURE(Name);
    Algo A = loadFixture(Name);
    REQUIRE(A.NGpus > 1);
    Report R = checkPlan(A, Name);
    CHECK_MESSAGE(R.empty(), R.str());
  }
}

TEST_CASE("checker: deleting any single step of the ring allgather fails") {
  const Algo Base = loadFixture("allgather_ring4.xml");
  for (int Rank = 0; Rank < 4; ++Rank)
    for (int Pos = 0; Pos < 5; ++Pos) {
      CAPTURE(Rank);
      CAPTURE(Pos);
      Algo A = Base;
      eraseStep(A, Rank, 0, Pos);
      CHECK_FALSE(validatePlan(A, LoadOptions(), "x").hasErrors());
      Report R = checkPlan(A, "ring.xml");
      CHECK(R.hasErrors());
      CHECK_MESSAGE(namesRankTbStep(R), R.str());
    }
}

TEST_CASE("checker: what each deletion reports") {
  const Algo Base = loadFixture("allgather_ring4.xml");
  SUBCASE("the local copy: the send reads an uninitialised chunk") {
    Algo A = Base;
    eraseStep(A, 1, 0, 0);
    Report R = checkPlan(A, "ring.xml");
    const Issue *I = findIssue(R, "sends uninitialised output chunk 1");
    REQUIRE(I);
    CHECK(I->Rank == 1);
    CHECK(I->Tb == 0);
    CHECK(I->Step == 0);
    CHECK(findIssue(R, "output chunk 1 holds an uninitialised value"));
  }
  SUBCASE("the first send: the next rank deadlocks") {
    Algo A = Base;
    eraseStep(A, 0, 0, 1);
    Report R = checkPlan(A, "ring.xml");
    CHECK(findIssue(R, "deadlock: 1 threadblock cannot make progress"));
    const Issue *I = findIssue(R, "blocked waiting for a message from rank 0 "
                                  "on chan 0; rank 0 tb 0 has finished");
    REQUIRE(I);
    CHECK(I->Rank == 1);
    CHECK(I->Tb == 0);
    CHECK(I->Step == 4);
    CHECK(I->Line != 0);
  }
  SUBCASE("the last receive: a message is never received") {
    Algo A = Base;
    eraseStep(A, 2, 0, 4);
    Report R = checkPlan(A, "ring.xml");
    const Issue *I = findIssue(R, "message to rank 2 on chan 0 is never "
                                  "received (rank 2 tb 0 receives fewer "
                                  "messages)");
    REQUIRE(I);
    CHECK(I->Rank == 1); // the sender
    CHECK(I->Tb == 0);
    CHECK(I->Step == 3);
    CHECK(findIssue(R, "output chunk 3 is never written, expected input "
                       "chunk 0 of rank 3"));
  }
}

TEST_CASE("checker: a count mismatch names both ends") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Gpus[1].Tbs[0].Steps[2].Cnt = 2; // rank 1 receives 2 chunks from rank 0
  Report R = checkPlan(A, "ring.xml");
  const Issue *I = findIssue(R, "receives 2 chunks from rank 0 on chan 0, but "
                                "the matching send (rank 0 tb 0 step 1) "
                                "carries 1");
  REQUIRE_MESSAGE(I, R.str());
  CHECK(I->Rank == 1);
  CHECK(I->Tb == 0);
  CHECK(I->Step == 2);
}

TEST_CASE("checker: receiving from each other first deadlocks") {
  const char *Text =
      R"(<algo name="x" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather" inplace="0" outofplace="1" minBytes="0" maxBytes="0">
  <gpu id="0" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0" />
      <step s="1" type="r" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0" />
      <step s="2" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0" />
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0" />
      <step s="1" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0" />
      <step s="2" type="s" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0" />
    </tb>
  </gpu>
</algo>
)";
  Loaded L = load(Text);
  REQUIRE_MESSAGE(L.A.has_value(), L.R.str());
  Report R = checkPlan(*L.A, "dl.xml");
  CHECK(findIssue(R, "deadlock: 2 threadblocks cannot make progress"));
  const Issue *I = findIssue(R, "blocked waiting for a message from rank 1 on "
                                "chan 0; rank 1 tb 0 is blocked at step 1");
  REQUIRE(I);
  CHECK(format(*I) == "dl.xml:5:7: error: rank 0 tb 0 step 1: blocked waiting "
                      "for a message from rank 1 on chan 0; rank 1 tb 0 is "
                      "blocked at step 1");
}

TEST_CASE("checker: wrong placement names the last writer") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Gpus[2].Tbs[0].Steps[4].DstOff = 1; // should be 3
  Report R = checkPlan(A, "ring.xml");
  const Issue *I = findIssue(R, "output chunk 1 holds input chunk 0 of rank 3, "
                                "expected input chunk 0 of rank 1; last "
                                "written by rank 2 tb 0 step 4");
  REQUIRE_MESSAGE(I, R.str());
  CHECK(I->Rank == 2);
  CHECK(findIssue(R, "output chunk 3 is never written, expected input chunk 0 "
                     "of rank 3"));
}

TEST_CASE("checker: a contribution counted twice") {
  Algo A = loadFixture("allreduce_rrc2.xml");
  Tb &T = A.Gpus[0].Tbs[0];
  Step Re = T.Steps[1];
  Re.Type = StepType::Reduce;
  Re.SrcBuf = BufferKind::Input;
  Re.SrcOff = 0;
  Re.DstBuf = BufferKind::Output;
  Re.DstOff = 0;
  T.Steps.insert(T.Steps.begin() + 2, Re); // o[0] += i[0] again
  for (std::size_t K = 0; K < T.Steps.size(); ++K)
    T.Steps[K].S = static_cast<int>(K);
  CheckOptions O;
  O.CheckInPlace = false;
  Report R = checkPlan(A, "rrc.xml", O);
  const Issue *I = findIssue(R, "reduction counts input chunk 0 of rank 0 "
                                "twice");
  REQUIRE_MESSAGE(I, R.str());
  CHECK(I->Step == 2);
  CHECK(findIssue(R, "output chunk 0 holds the reduction of input chunk 0 of "
                     "ranks 0, 0, 1, expected the reduction of input chunk 0 "
                     "of all 2 ranks"));
}

TEST_CASE("checker: call-kind specific issues are tagged") {
  Algo A = loadFixture("allreduce_rrc2.xml");
  // Receiving the peer's chunk into i[p] is fine in place (o == i) but leaves
  // o[p] unwritten out of place.
  A.Gpus[0].Tbs[0].Steps[3].DstBuf = BufferKind::Input;
  Report R = checkPlan(A, "rrc.xml");
  CHECK(findIssue(R, "output chunk 1 is never written, expected the reduction "
                     "of input chunk 1 of all 2 ranks (out-of-place call)"));
  CHECK_FALSE(findIssue(R, "(in-place call)"));
}

TEST_CASE("checker: a dependency-less nop shifts published step numbers") {
  Algo A = loadFixture("allreduce_deps2.xml");
  Tb &T1 = A.Gpus[0].Tbs[1];
  Step Nop;
  Nop.Type = StepType::Nop;
  T1.Steps.insert(T1.Steps.begin(), Nop);
  for (std::size_t K = 0; K < T1.Steps.size(); ++K)
    T1.Steps[K].S = static_cast<int>(K);
  T1.Steps[2].HasDep = true;
  A.Gpus[0].Tbs[2].Steps[1].Deps = 1;  // the r into scratch, now at 1
  A.Gpus[0].Tbs[0].Steps[1].DepId = 1; // wait for tb 1 step 2 ...
  A.Gpus[0].Tbs[0].Steps[1].Deps = 2;  // ... which publishes step 1 only
  Report V = validatePlan(A, LoadOptions(), "x");
  CHECK_FALSE(V.hasErrors());
  CHECK(findIssue(V, "nop without a dependency", Issue::Warning));
  Report R = checkPlan(A, "deps.xml");
  CHECK_MESSAGE(findIssue(R, "blocked waiting for tb 1 step 2 (dependency); "
                             "rank 0 tb 1 has finished, having published "
                             "up to step 1"),
                R.str());
}

TEST_CASE("checker: unsupported collectives still get deadlock checks") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Coll = CollKind::Broadcast;
  Report R = checkPlan(A, "b.xml");
  CHECK_FALSE(R.hasErrors());
  CHECK(findIssue(R, "collective 'broadcast' is not supported yet",
                  Issue::Warning));
  eraseStep(A, 0, 0, 1);
  CHECK(findIssue(checkPlan(A, "b.xml"), "deadlock"));
}

TEST_CASE("checker: hand-built plans never crash") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Gpus[0].Tbs[0].Steps[0].SrcOff = 5; // beyond the 1-chunk input
  Report R = checkPlan(A, "x.xml");
  CHECK(findIssue(R, "accesses input chunk 5, but the input buffer of this "
                     "call has 1 chunk"));
  A.Gpus.pop_back();
  R = checkPlan(A, "x.xml");
  CHECK(findIssue(R, "plan cannot be executed"));
  Algo Empty;
  CHECK(checkPlan(Empty, "e.xml").hasErrors());
}
