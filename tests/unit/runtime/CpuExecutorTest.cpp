//===- tests/unit/runtime/CpuExecutorTest.cpp - Threaded CPU executor -----===//
//
// Real threaded runs of the fixtures (several sizes, slices, types and
// reduction operators), every single-step deletion of the ring allgather,
// count mismatches, immediate deadlock detection, wrong data with element
// counts, uninitialised reads and clean refusals of unsupported calls.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "exec/CpuExecutor.h"

#include <doctest/doctest.h>

#include <chrono>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {

RunOptions options(std::uint64_t Bytes, bool InPlace = false) {
  RunOptions O;
  O.Bytes = Bytes;
  O.InPlace = InPlace;
  O.WatchdogSeconds = 30;
  return O;
}

void expectOk(const RunResult &R) {
  CHECK_MESSAGE(R.Ok, R.Summary, "\n", R.Issues.str());
  CHECK(R.WrongElements == 0);
  CHECK(R.ElementsChecked > 0);
}

} // namespace

TEST_CASE("cpu: every correct fixture computes its collective") {
  struct Case {
    const char *Fixture;
    std::uint64_t Bytes;
    bool InPlace;
  };
  const Case Cases[] = {
      {"allgather_ring4.xml", 4096, false},
      {"allgather_ring4_inplace.xml", 4096, true},
      {"allreduce_ring3.xml", 3 * 4 * 100, true},
      {"allreduce_deps2.xml", 2 * 4 * 64, false},
      {"allreduce_rrc2.xml", 2 * 4 * 64, false},
      {"allreduce_rrc2.xml", 2 * 4 * 64, true},
      {"alltoall3.xml", 3 * 4 * 50, false},
      {"reducescatter2.xml", 2 * 4 * 64, false},
      {"reducescatter2.xml", 2 * 4 * 64, true},
  };
  for (const Case &C : Cases) {
    CAPTURE(C.Fixture);
    CAPTURE(C.InPlace);
    RunResult R = runOnCpu(loadFixture(C.Fixture), options(C.Bytes, C.InPlace),
                           C.Fixture);
    expectOk(R);
    CHECK(R.Issues.empty());
  }
}

TEST_CASE("cpu: the output element count follows nccl-tests sizes") {
  RunResult R =
      runOnCpu(loadFixture("allgather_ring4.xml"), options(4096), "ring");
  expectOk(R);
  CHECK(R.ElementsChecked == 4 * 1024); // 4 ranks x the full 4096 B output
  CHECK(R.Summary.find("allgather on 4 ranks") != std::string::npos);
}

TEST_CASE("cpu: many iterations over small slices") {
  RunOptions O = options(4096);
  O.SliceBytes = 64; // 16 of the 256 elements per chunk per iteration
  RunResult R = runOnCpu(loadFixture("allgather_ring4.xml"), O, "ring");
  expectOk(R);
  CHECK(R.Summary.find("16 iterations") != std::string::npos);
  O = options(3 * 4 * 100, true);
  O.SliceBytes = 12; // uneven last slice: 100 = 33*3 + 1
  O.FifoSlots = 1;
  expectOk(runOnCpu(loadFixture("allreduce_ring3.xml"), O, "ar"));
}

TEST_CASE("cpu: reduction operators and element types") {
  const Algo A = loadFixture("allreduce_ring3.xml");
  for (ReduceOp Op :
       {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max}) {
    std::string OpName(nameOf(Op));
    CAPTURE(OpName);
    RunOptions O = options(3 * 4 * 64, true);
    O.Op = Op;
    expectOk(runOnCpu(A, O, "ar"));
  }
  // Every type NCCL reduces, with every operator.
  for (DataType T :
       {DataType::Int8, DataType::UInt8, DataType::Int32, DataType::UInt32,
        DataType::Int64, DataType::UInt64, DataType::Float16,
        DataType::BFloat16, DataType::Float32, DataType::Float64}) {
    std::string TypeName(nameOf(T));
    CAPTURE(TypeName);
    REQUIRE(parseDataType(TypeName) == T);
    for (ReduceOp Op :
         {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max}) {
      std::string OpName(nameOf(Op));
      CAPTURE(OpName);
      REQUIRE(parseReduceOp(OpName) == Op);
      RunOptions O = options(3 * sizeOf(T) * 64, true);
      O.Type = T;
      O.Op = Op;
      expectOk(runOnCpu(A, O, "ar"));
    }
  }
  CHECK(parseDataType("half") == DataType::Float16);
  CHECK_FALSE(parseDataType("float8"));
  CHECK_FALSE(parseReduceOp("xor"));
  RunOptions O = options(3 * 4 * 64, true);
  O.Op = ReduceOp::Avg;
  CHECK(findIssue(runOnCpu(A, O, "ar").Issues, "'avg' is not scheduled"));
}

TEST_CASE("cpu: deleting any single step of the ring allgather fails") {
  const Algo Base = loadFixture("allgather_ring4.xml");
  for (int Rank = 0; Rank < 4; ++Rank)
    for (int Pos = 0; Pos < 5; ++Pos) {
      CAPTURE(Rank);
      CAPTURE(Pos);
      Algo A = Base;
      eraseStep(A, Rank, 0, Pos);
      RunResult R = runOnCpu(A, options(4096), "ring.xml");
      CHECK_FALSE(R.Ok);
      CHECK_MESSAGE(namesRankTbStep(R.Issues), R.Issues.str());
    }
}

TEST_CASE("cpu: a deleted copy is an uninitialised send and wrong data") {
  Algo A = loadFixture("allgather_ring4.xml");
  eraseStep(A, 1, 0, 0);
  RunResult R = runOnCpu(A, options(4096), "ring.xml");
  CHECK_FALSE(R.Ok);
  const Issue *I = findIssue(R.Issues, "sends uninitialised output chunk 1");
  REQUIRE_MESSAGE(I, R.Issues.str());
  CHECK(I->Rank == 1);
  CHECK(I->Tb == 0);
  CHECK(I->Step == 0);
  CHECK(I->Iteration == 0);
  CHECK(R.WrongElements == 4 * 256); // chunk 1 on every rank
  CHECK(findIssue(R.Issues, "(never written)"));
}

TEST_CASE("cpu: a deadlock is detected without waiting for the watchdog") {
  Algo A = loadFixture("allgather_ring4.xml");
  eraseStep(A, 0, 0, 1); // rank 0 never sends its own chunk
  RunOptions O = options(4096);
  O.WatchdogSeconds = 60;
  auto T0 = std::chrono::steady_clock::now();
  RunResult R = runOnCpu(A, O, "ring.xml");
  double Elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  CHECK(Elapsed < 5);
  CHECK_FALSE(R.Ok);
  CHECK(findIssue(R.Issues, "deadlock: 1 threadblock cannot make progress"));
  const Issue *I = findIssue(R.Issues, "blocked waiting for a message from "
                                       "rank 0 on chan 0; rank 0 tb 0 has "
                                       "finished");
  REQUIRE_MESSAGE(I, R.Issues.str());
  CHECK(format(*I).find("rank 1 tb 0 step 4 (iteration 0): blocked") !=
        std::string::npos);
  CHECK(R.ElementsChecked == 0);
}

TEST_CASE("cpu: mutual receive-first deadlock across many iterations") {
  Algo A = loadFixture("allreduce_rrc2.xml");
  for (Gpu &G : A.Gpus)
    std::swap(G.Tbs[0].Steps[0], G.Tbs[0].Steps[1]); // rrc before s
  for (Gpu &G : A.Gpus)
    for (std::size_t K = 0; K < 2; ++K)
      G.Tbs[0].Steps[K].S = static_cast<int>(K);
  RunOptions O = options(2 * 4 * 64);
  O.SliceBytes = 16;
  RunResult R = runOnCpu(A, O, "x.xml");
  CHECK(findIssue(R.Issues, "deadlock: 2 threadblocks"));
  CHECK(R.Issues.count(Issue::Error) == 3);
}

TEST_CASE("cpu: a count mismatch names both ends") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Gpus[1].Tbs[0].Steps[2].Cnt = 2;
  RunResult R = runOnCpu(A, options(4096), "ring.xml");
  CHECK_FALSE(R.Ok);
  const Issue *I = findIssue(R.Issues, "receives 2 chunks of 256 elements "
                                       "from rank 0 on chan 0, but the "
                                       "matching send (rank 0 tb 0 step 1, "
                                       "iteration 0) carries 1 chunk of 256");
  REQUIRE_MESSAGE(I, R.Issues.str());
  CHECK(I->Rank == 1);
  CHECK(I->Step == 2);
}

TEST_CASE("cpu: wrong data is counted and located") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Gpus[2].Tbs[0].Steps[4].DstOff = 1; // should be 3
  RunResult R = runOnCpu(A, options(4096), "ring.xml");
  CHECK_FALSE(R.Ok);
  CHECK(R.ElementsChecked == 4096);
  CHECK(R.WrongElements == 2 * 256); // rank 2, chunks 1 and 3
  CHECK(findIssue(R.Issues, "512 of 4096 output elements are wrong"));
  const Issue *I = findIssue(R.Issues, "output element 256 (chunk 1, offset "
                                       "0): expected");
  REQUIRE_MESSAGE(I, R.Issues.str());
  CHECK(I->Rank == 2);
  CHECK(I->Message.find("chunk last written by rank 2 tb 0 step 4") !=
        std::string::npos);
  std::size_t Listed = 0;
  for (const Issue &J : R.Issues)
    Listed += J.Message.rfind("output element", 0) == 0;
  CHECK(Listed == 5);
}

TEST_CASE("cpu: Verify = false runs without comparing (nccl-tests -c 0)") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Gpus[2].Tbs[0].Steps[4].DstOff = 1; // wrong data, as above
  RunOptions O = options(4096);
  O.Verify = false;
  RunResult R = runOnCpu(A, O, "ring.xml");
  CHECK_MESSAGE(R.Ok, R.Summary, "\n", R.Issues.str());
  CHECK(R.ElementsChecked == 0);
  CHECK(R.WrongElements == 0);
  CHECK(R.Seconds > 0);
  // A deadlock still fails the run: only the comparison is skipped.
  Algo Hung = loadFixture("allgather_ring4.xml");
  eraseStep(Hung, 0, 0, 1); // rank 0 never sends its own chunk
  RunResult H = runOnCpu(Hung, O, "hung.xml");
  CHECK_FALSE(H.Ok);
  CHECK(findIssue(H.Issues, "deadlock"));
}

TEST_CASE("cpu: double counting shows up as wrong sums") {
  Algo A = loadFixture("allreduce_rrc2.xml");
  Tb &T = A.Gpus[0].Tbs[0];
  Step Re = T.Steps[1];
  Re.Type = StepType::Reduce;
  Re.SrcBuf = BufferKind::Input;
  Re.DstBuf = BufferKind::Output;
  T.Steps.insert(T.Steps.begin() + 2, Re);
  for (std::size_t K = 0; K < T.Steps.size(); ++K)
    T.Steps[K].S = static_cast<int>(K);
  RunResult R = runOnCpu(A, options(2 * 4 * 64), "rrc.xml");
  CHECK_FALSE(R.Ok);
  CHECK(R.WrongElements > 0);
  // The narrow types see it too (their inputs are kept small, so a sum
  // counted twice is still a different number).
  for (DataType T : {DataType::Float16, DataType::BFloat16, DataType::Int8}) {
    std::string TypeName(nameOf(T));
    CAPTURE(TypeName);
    RunOptions O = options(2 * sizeOf(T) * 64);
    O.Type = T;
    CHECK(runOnCpu(A, O, "rrc.xml").WrongElements > 0);
  }
}

TEST_CASE("cpu: refused calls are clean issues") {
  const Algo Ring = loadFixture("allgather_ring4.xml");
  RunResult R = runOnCpu(Ring, options(4096, true), "ring");
  CHECK_FALSE(R.Ok);
  CHECK(findIssue(R.Issues, "does not serve in-place calls"));
  CHECK(R.Summary.rfind("not run: ", 0) == 0);
  CHECK(findIssue(runOnCpu(Ring, options(4100), "ring").Issues,
                  "is not a positive multiple of 16 B"));
  CHECK(findIssue(
      runOnCpu(loadFixture("allreduce_ring3.xml"), options(16, true), "ar")
          .Issues,
      "is not a multiple of nchunksperloop=3"));
  RunOptions Tiny = options(4096);
  Tiny.SliceBytes = 1;
  Tiny.Bytes = 4u << 20; // 256 Ki elements per chunk, one per iteration
  CHECK(findIssue(runOnCpu(Ring, Tiny, "ring").Issues, "MSCCL_MAX_ITER"));
  Algo B = Ring;
  B.Coll = CollKind::Custom;
  CHECK(findIssue(runOnCpu(B, options(4096), "b").Issues,
                  "collective 'custom' is not supported yet"));
  // A rooted call names a rank as its root.
  Algo G = Ring;
  G.Coll = CollKind::Gather;
  G.Root = 4;
  CHECK(findIssue(runOnCpu(G, options(4096), "g").Issues,
                  "root 4 of a gather call is not a rank of the 4 ranks"));
}

TEST_CASE("cpu: out-of-range accesses are issues, not crashes") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Gpus[3].Tbs[0].Steps[0].SrcOff = 2; // input has 1 chunk
  RunResult R = runOnCpu(A, options(4096), "ring");
  CHECK_FALSE(R.Ok);
  const Issue *I = findIssue(R.Issues, "accesses input chunk 2 (elements "
                                       "512..767), outside the input buffer "
                                       "of 256 elements");
  REQUIRE_MESSAGE(I, R.Issues.str());
  CHECK(I->Rank == 3);
}
