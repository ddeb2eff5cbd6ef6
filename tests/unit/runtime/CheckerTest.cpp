//===- tests/unit/runtime/CheckerTest.cpp - Symbolic checker --------------===//
//
// Correct fixtures pass; every single-step deletion of the ring allgather,
// count mismatches, deadlocks, uninitialised reads, double counting, wrong
// placement, shifted step numbers, unsupported collectives and data races
// (unordered accesses, and their absence when a dependency or a message
// chain orders them) are reported with the rank, threadblock and step
// concerned.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "checker/Checker.h"

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

TEST_CASE("checker: unverifiable collectives are rejected, and still get "
          "deadlock checks") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Coll = CollKind::AllToAllV;
  Report R = checkPlan(A, "b.xml");
  CHECK(R.hasErrors());
  CHECK(findIssue(R, "collective 'alltoallv' cannot be verified yet",
                  Issue::Error));
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

namespace {

/// One `<step>` line of a hand-written plan.
std::string stepXml(int S, const char *Type, const char *Src, int SrcOff,
                    const char *Dst, int DstOff, int DepId = -1, int Deps = -1,
                    bool HasDep = false) {
  return std::string("      <step s=\"") + std::to_string(S) + "\" type=\"" +
         Type + "\" srcbuf=\"" + Src + "\" srcoff=\"" + std::to_string(SrcOff) +
         "\" dstbuf=\"" + Dst + "\" dstoff=\"" + std::to_string(DstOff) +
         "\" cnt=\"1\" depid=\"" + std::to_string(DepId) + "\" deps=\"" +
         std::to_string(Deps) + "\" hasdep=\"" + (HasDep ? "1" : "0") +
         "\" />\n";
}

/// A 2-rank allgather (1 chunk per rank) around the given tbs of each rank.
std::string allgather2(const std::string &Rank0, const std::string &Rank1,
                       int Rank0Scratch = 0, const char *InPlace = "0",
                       const char *OutOfPlace = "1") {
  return std::string("<algo name=\"x\" proto=\"Simple\" nchannels=\"1\" "
                     "nchunksperloop=\"2\" ngpus=\"2\" coll=\"allgather\" "
                     "inplace=\"") +
         InPlace + "\" outofplace=\"" + OutOfPlace +
         "\" minBytes=\"0\" maxBytes=\"0\">\n"
         "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"" +
         std::to_string(Rank0Scratch) + "\">\n" + Rank0 +
         "  </gpu>\n"
         "  <gpu id=\"1\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n" +
         Rank1 + "  </gpu>\n</algo>\n";
}

/// Rank 1 of allgather2(): copy, send its chunk, receive rank 0's.
std::string plainRank1() {
  return "    <tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n" +
         stepXml(0, "cpy", "i", 0, "o", 1) + stepXml(1, "s", "o", 1, "o", 1) +
         stepXml(2, "r", "o", 0, "o", 0) + "    </tb>\n";
}

/// Rank 0 of allgather2(): tb 0 copies its input to o[0] (step \p CopyAt,
/// after a copy into scratch when CopyAt == 1); tb 1 sends \p SendBuf[0]
/// waiting for tb 0 step \p Deps (none when -1), then receives o[1].
std::string rank0CopyAndSend(int Deps, const char *SendBuf = "o",
                             int CopyAt = 0) {
  std::string Tb0 = "    <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n";
  if (CopyAt == 1)
    Tb0 += stepXml(0, "cpy", "i", 0, "s", 0, -1, -1, true);
  Tb0 += stepXml(CopyAt, "cpy", "i", 0, "o", 0, -1, -1, true);
  return Tb0 + "    </tb>\n" +
         "    <tb id=\"1\" send=\"1\" recv=\"1\" chan=\"0\">\n" +
         stepXml(0, "s", SendBuf, 0, "o", 0, Deps < 0 ? -1 : 0, Deps) +
         stepXml(1, "r", "o", 1, "o", 1) + "    </tb>\n";
}

Report checkText(const std::string &Text, const char *Name,
                 const CheckOptions &O = CheckOptions()) {
  Loaded L = load(Text);
  REQUIRE_MESSAGE(L.A.has_value(), L.R.str());
  CHECK_MESSAGE(!L.R.hasErrors(), L.R.str());
  return checkPlan(*L.A, Name, O);
}

} // namespace

TEST_CASE("checker: a read unordered with another tb's write is a race") {
  Report R =
      checkText(allgather2(rank0CopyAndSend(-1), plainRank1()), "race.xml");
  const Issue *I = findIssue(R, "race on rank 0 output chunk 0");
  REQUIRE_MESSAGE(I, R.str());
  CHECK(format(*I) ==
        "race.xml:7:7: error: rank 0 tb 1 step 0: race on rank 0 output "
        "chunk 0: tb 1 step 0 reads it and tb 0 step 0 (line 4) writes it "
        "with no dependency or message ordering them");
  // Nothing else is wrong with the plan: the simulated order was lucky.
  CHECK_MESSAGE(R.count(Issue::Error) == 1, R.str());

  CheckOptions NoRaces;
  NoRaces.CheckRaces = false;
  CHECK(checkText(allgather2(rank0CopyAndSend(-1), plainRank1()), "race.xml",
                  NoRaces)
            .empty());
}

TEST_CASE("checker: a dependency orders the write before the read") {
  Report R =
      checkText(allgather2(rank0CopyAndSend(0), plainRank1()), "dep.xml");
  CHECK_MESSAGE(R.empty(), R.str());
}

TEST_CASE("checker: a dependency orders only the steps up to its target") {
  // tb 0 publishes after the scratch copy (step 0) and after the output
  // copy (step 1); waiting for step 0 does not order the output copy.
  Report R = checkText(allgather2(rank0CopyAndSend(0, "o", 1), plainRank1(), 1),
                       "early.xml");
  const Issue *I = findIssue(R, "race on rank 0 output chunk 0: tb 1 step 0 "
                                "reads it and tb 0 step 1 (line 5) writes it");
  CHECK_MESSAGE(I, R.str());
  R = checkText(allgather2(rank0CopyAndSend(1, "o", 1), plainRank1(), 1),
                "late.xml");
  CHECK_MESSAGE(R.empty(), R.str());
}

TEST_CASE("checker: a message chain orders a write after a read") {
  // Rank 0 tb 0 fills and sends s[0]; tb 1 then receives into s[0] what
  // rank 1 sends back. In order when rank 1 sends only after receiving.
  std::string Rank0 = "    <tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\">\n" +
                      stepXml(0, "cpy", "i", 0, "s", 0) +
                      stepXml(1, "cpy", "s", 0, "o", 0) +
                      stepXml(2, "s", "s", 0, "o", 0) + "    </tb>\n" +
                      "    <tb id=\"1\" send=\"-1\" recv=\"1\" chan=\"0\">\n" +
                      stepXml(0, "r", "s", 0, "s", 0) +
                      stepXml(1, "cpy", "s", 0, "o", 1) + "    </tb>\n";
  std::string Chained = "    <tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n" +
                        stepXml(0, "cpy", "i", 0, "o", 1) +
                        stepXml(1, "r", "o", 0, "o", 0) +
                        stepXml(2, "s", "o", 1, "o", 1) + "    </tb>\n";
  Report R = checkText(allgather2(Rank0, Chained, 1), "chain.xml");
  CHECK_MESSAGE(R.empty(), R.str());

  // Rank 1 sending first breaks the chain: the receive into s[0] races with
  // tb 0's accesses.
  R = checkText(allgather2(Rank0, plainRank1(), 1), "nochain.xml");
  const Issue *I = findIssue(R, "race on rank 0 scratch chunk 0: tb 1 step 0 "
                                "writes it and tb 0 step ");
  REQUIRE_MESSAGE(I, R.str());
  CHECK(I->Rank == 0);
  CHECK(I->Tb == 1);
  CHECK(I->Step == 0);
  CHECK(I->Line != 0);
  CHECK_MESSAGE(R.count(Issue::Error) == 1, R.str());
}

TEST_CASE("checker: races through in-place aliasing name both buffers") {
  // In place, rank 0's input chunk 0 is its output chunk 0: the copy writes
  // the chunk tb 1 sends. Out of place, both only read i[0].
  Report R = checkText(
      allgather2(rank0CopyAndSend(-1, "i"), plainRank1(), 0, "1", "1"),
      "alias.xml");
  CHECK_MESSAGE(findIssue(R, "race on rank 0 input chunk 0: tb 1 step 0 reads "
                             "it and tb 0 step 0 (line 4) writes it as output "
                             "chunk 0 with no dependency or message ordering "
                             "them (in-place call)"),
                R.str());
  CHECK_MESSAGE(R.count(Issue::Error) == 1, R.str());
  R = checkText(allgather2(rank0CopyAndSend(0, "i"), plainRank1(), 0, "1", "1"),
                "alias.xml");
  CHECK_MESSAGE(R.empty(), R.str());
}

TEST_CASE("checker: races are skipped with a note when clocks are too big") {
  // 8 ranks x 1000 threadblocks: 8000 x 8000 clock entries exceed the cap.
  Algo A;
  A.Coll = CollKind::AllGather;
  A.NGpus = 8;
  A.NChunksPerLoop = 8;
  A.OutOfPlace = true;
  for (int R = 0; R < 8; ++R) {
    Gpu G;
    G.Id = R;
    G.IChunks = 1;
    G.OChunks = 8;
    for (int T = 0; T < 1000; ++T) {
      Tb B;
      B.Id = T;
      G.Tbs.push_back(B);
    }
    A.Gpus.push_back(G);
  }
  Report R = checkPlan(A, "big.xml");
  CHECK_MESSAGE(findIssue(R,
                          "data races are not checked: 8000 threadblocks and "
                          "0 dependency targets would need 64000000 "
                          "vector-clock entries, more than 50000000",
                          Issue::Note),
                R.str());
}

TEST_CASE("checker: rooted collectives, their root and their undefined "
          "buffers") {
  // The allgather ring read as a gather completes every rank's output, but
  // it writes the outputs of non-root ranks, which need not exist: no root
  // works.
  Algo A = loadFixture("allgather_ring4.xml");
  A.Coll = CollKind::Gather;
  A.NChunksPerLoop = 1;
  Report R = checkPlan(A, "g.xml");
  CHECK(findIssue(R, "correct for none of the 4 root(s) tried", Issue::Note));
  A.Root = 2;
  R = checkPlan(A, "g.xml");
  CHECK(findIssue(R, "which is not the root: a gather call's recvbuff matters "
                     "only at the root (rank 2)"));
  // A broadcast from rank 0 cannot use another rank's input.
  Algo B = loadFixture("allgather_ring4.xml");
  B.Coll = CollKind::Broadcast;
  B.NChunksPerLoop = 1;
  R = checkPlan(B, "b.xml");
  CHECK(R.hasErrors());
  CHECK(findIssue(R, "correct for none of the 4 root(s) tried", Issue::Note));
  CheckOptions O;
  O.Root = 7;
  CHECK(findIssue(checkPlan(B, "b.xml", O), "root 7 is not a rank"));
}

TEST_CASE("checker: out-of-place calls never write the input") {
  Algo A = loadFixture("allgather_ring4.xml");
  // Rank 0's local copy input -> output, turned around.
  for (Tb &T : A.Gpus[0].Tbs)
    for (Step &S : T.Steps)
      if (S.Type == StepType::Copy) {
        std::swap(S.SrcBuf, S.DstBuf);
        std::swap(S.SrcOff, S.DstOff);
      }
  CHECK(findIssue(checkPlan(A, "a.xml"),
                  "in an out-of-place call: NCCL's sendbuff is read-only"));
}

TEST_CASE("checker: reduction order across ranks") {
  // Every rank adds the same three inputs, bracketed differently.
  Algo A = loadFixture("allreduce_orders3.xml");
  Report R = checkPlan(A, "o.xml");
  CHECK_FALSE(R.hasErrors());
  const Issue *W =
      findIssue(R, "reduced in another order than on rank 0", Issue::Warning);
  REQUIRE(W);
  CHECK(W->Rank == 1);
  CheckOptions O;
  O.IdenticalOrder = true;
  R = checkPlan(A, "o.xml", O);
  CHECK(R.hasErrors());
  CHECK(findIssue(R, "identical results were asked for", Issue::Error));
  // The ring reduces each chunk once and copies the sum: one order.
  CHECK_FALSE(
      checkPlan(loadFixture("allreduce_ring3.xml"), "r.xml", O).hasErrors());
}
