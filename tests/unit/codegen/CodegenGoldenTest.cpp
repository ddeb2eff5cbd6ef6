//===- tests/unit/codegen/CodegenGoldenTest.cpp - XML of fixed schedules --===//
//
// Golden XML for the lowering alone: hand-made routes on small topologies,
// timed by the list scheduler (reductions: reversed by ReduceSchedule),
// lowered and printed, compared byte for byte with tests/golden/codegen/,
// and proven by the checker and run on the CPU executor, in place too. No
// solver is involved, so a difference is a change in code generation.
// Set TACCLC_UPDATE_GOLDENS=1 to rewrite the files (then review the diff).
//
//===----------------------------------------------------------------------===//
#include "checker/Checker.h"
#include "codegen/Codegen.h"
#include "exec/CpuExecutor.h"
#include "format/Loader.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"
#include "tests/unit/codegen/CodegenTestUtil.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::test;

namespace {
void checkGolden(const Sketch &S, const CodegenOptions &Opts = {}) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  auto P = lowerToProgram(S, ringSchedule(S), Opts, Diags);
  REQUIRE(P);
  std::string Xml = tacclrt::writePlan(*P, tacclrt::Dialect::Executor);
  // Whatever the golden says, the program must be correct.
  tacclrt::Report Rep;
  auto Algo = tacclrt::loadPlan(Xml, S.Name, tacclrt::LoadOptions(), Rep);
  REQUIRE_MESSAGE(Algo, Rep.str());
  Rep.append(tacclrt::checkPlan(*Algo, S.Name));
  CHECK_MESSAGE(!Rep.hasErrors(), Rep.str());
  for (bool InPlace : {false, true}) {
    if (InPlace && !Algo->InPlace)
      continue;
    // One slice per call, and three (the last one short), so that the
    // steps of consecutive slices interleave.
    for (std::size_t Slice : {std::size_t(0), std::size_t(96)}) {
      tacclrt::RunOptions RO;
      RO.InPlace = InPlace;
      RO.Bytes = 4 * 64 * Algo->NChunksPerLoop;
      RO.SliceBytes = Slice;
      tacclrt::RunResult R = tacclrt::runOnCpu(*Algo, RO, S.Name);
      CHECK_MESSAGE(R.Ok, R.Summary);
    }
  }
  std::string Path =
      std::string(TACCLC_CODEGEN_GOLDEN_DIR) + "/" + S.Name + ".xml";
  if (std::getenv("TACCLC_UPDATE_GOLDENS")) {
    std::ofstream(Path, std::ios::binary) << Xml;
    return;
  }
  std::ifstream In(Path, std::ios::binary);
  REQUIRE_MESSAGE(In.good(), "missing golden "
                                 << Path << " (set TACCLC_UPDATE_GOLDENS=1)");
  std::stringstream Want;
  Want << In.rdbuf();
  CHECK_MESSAGE(Want.str() == Xml, "lowering of " << S.Name << " differs from "
                                                  << Path << ":\n"
                                                  << Xml);
}
} // namespace

TEST_CASE("golden: ring allgather (rcs relays)") {
  checkGolden(
      ringSketch("ring4-allgather", 4, Collective::allGather(4, 1), false));
}

TEST_CASE("golden: ring alltoall (relays through scratch)") {
  checkGolden(ringSketch("ring4-alltoall", 4,
                         Collective::make(CollectiveKind::AllToAll, 4, 1),
                         false));
}

TEST_CASE("golden: ring broadcast and scatter (root attribute)") {
  checkGolden(ringSketch(
      "ring4-broadcast", 4,
      Collective::make(CollectiveKind::Broadcast, 4, 2, RankId(1)), false));
  checkGolden(ringSketch(
      "ring4-scatter", 4,
      Collective::make(CollectiveKind::Scatter, 4, 1, RankId(3)), false));
}

TEST_CASE("golden: ring reduce-scatter and allreduce (rrs, rrc, rrcs)") {
  checkGolden(ringSketch("ring4-reducescatter", 4,
                         Collective::make(CollectiveKind::ReduceScatter, 4, 1),
                         true));
  checkGolden(ringSketch("ring4-allreduce", 4,
                         Collective::make(CollectiveKind::AllReduce, 4, 1),
                         true));
  checkGolden(ringSketch(
      "ring4-reduce", 4,
      Collective::make(CollectiveKind::Reduce, 4, 1, RankId(0)), true));
}

TEST_CASE("golden: merged steps over a contiguous class, and unfused") {
  Sketch S =
      ringSketch("ring4-allgather-cnt2", 4, Collective::allGather(4, 2), false);
  int Slow = S.Topo.addClass({"slow", 1.0, 1e-6});
  Topology T("ring", 4);
  T.addClass({"slow", 1.0, 1e-6});
  for (const Link &L : S.Topo.links()) {
    Link C = L;
    C.Class = Slow;
    T.addLink(C);
  }
  S.Topo = std::move(T);
  S.ContiguousClasses = {true};
  checkGolden(S);
  Sketch U = ringSketch("ring4-allgather-unfused", 4,
                        Collective::allGather(4, 1), false);
  CodegenOptions NoFuse;
  NoFuse.FuseRelays = false;
  checkGolden(U, NoFuse);
}

TEST_CASE("golden: slices overlap (waves and halves on their own channels)") {
  // A chunk leaving its source and the forwards of received chunks use
  // different connections (channel 0 and channel 1) ...
  CodegenOptions Waves;
  Waves.PipelineWaves = true;
  checkGolden(ringSketch("ring4-allgather-waves", 4,
                         Collective::allGather(4, 1), false),
              Waves);
  // ... and an allreduce's spreading half runs apart from its reducing
  // half, with or without the waves inside the reducing half.
  CodegenOptions Halves;
  Halves.SeparateHalves = true;
  checkGolden(ringSketch("ring4-allreduce-halves", 4,
                         Collective::make(CollectiveKind::AllReduce, 4, 1),
                         true),
              Halves);
  Halves.PipelineWaves = true;
  checkGolden(ringSketch("ring4-allreduce-waves", 4,
                         Collective::make(CollectiveKind::AllReduce, 4, 1),
                         true),
              Halves);
}
