//===- tests/unit/codegen/EmitVerifiedTest.cpp - emitVerified -------------===//
//
// The lowering policy every command shares (codegen/EmitVerified.h): the
// program kept is the lowering's own, printed once and loaded by the
// runtime's loader; the dialect's adjustments and the sketch's size range
// are applied; a choice between wave splits is deterministic and hands on
// the simulation it ran of the program kept; a trial that stops at its
// work budget loses to one that ends; a program the
// runtime's limits refuse is reported, not emitted.
//
//===----------------------------------------------------------------------===//
#include "codegen/EmitVerified.h"
#include "codegen/SimMachine.h"
#include "tests/unit/codegen/CodegenTestUtil.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::test;

namespace {
std::string print(const Program &P) {
  return tacclrt::writePlan(P, tacclrt::Dialect::Executor);
}
/// A ring allreduce of 64 MiB in 4 chunks: many slices per chunk, so both
/// wave splits are tried.
Sketch bigRing() {
  Sketch S = ringSketch(
      "ring4-big", 4, Collective::make(CollectiveKind::AllReduce, 4, 1), true);
  S.SizeBytes = 64 << 20;
  return S;
}
} // namespace

TEST_CASE("emitVerified keeps the lowering's own program, verified") {
  Sketch S = ringSketch("ring4", 4, Collective::allGather(4, 1));
  Schedule Sch = ringSchedule(S);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::optional<EmittedProgram> E = emitVerified(S, Sch, EmitOptions(), Diags);
  REQUIRE(E);
  CHECK_FALSE(Diags.hasErrors());
  CHECK(E->Xml == print(E->Program));
  std::optional<Program> Direct =
      lowerToProgram(S, Sch, CodegenOptions(), Diags);
  REQUIRE(Direct);
  CHECK(E->Xml == print(*Direct));
  CHECK(E->Plan.NGpus == 4);
  CHECK(E->Program.NGpus == 4);
  CHECK(E->Program.Gpus[3].Id == 3);
  CHECK(E->Program.Gpus[0].Tbs.back().Id ==
        int(E->Program.Gpus[0].Tbs.size()) - 1);
  CHECK(E->Program.Gpus[0].Tbs[0].Steps.back().S ==
        int(E->Program.Gpus[0].Tbs[0].Steps.size()) - 1);
  CHECK(E->Plan.NChunksPerLoop == E->Program.NChunksPerLoop);
  CHECK(E->Options.FuseRelays);
  CHECK_FALSE(E->FusionDropped);
  CHECK(E->unfusedRanks() == 0);
  CHECK(E->fusionNote().empty());
}

TEST_CASE("emitVerified applies the sketch's size range and the dialect") {
  Sketch S =
      ringSketch("ring4-rs", 4,
                 Collective::make(CollectiveKind::ReduceScatter, 4, 1), true);
  S.MinBytes = 4096;
  S.MaxBytes = 1 << 20;
  Schedule Sch = ringSchedule(S);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::optional<EmittedProgram> New = emitVerified(S, Sch, {}, Diags);
  REQUIRE(New);
  CHECK(New->Program.MinBytes == runtimeBytes(S.Coll, 4096));
  CHECK(New->Program.MaxBytes == runtimeBytes(S.Coll, 1 << 20));

  EmitOptions Legacy;
  Legacy.Dialect = tacclrt::Dialect::Legacy;
  std::optional<EmittedProgram> Old = emitVerified(S, Sch, Legacy, Diags);
  REQUIRE(Old);
  // The old runtime's range is exclusive, and it spells the collective
  // with an underscore and cannot tell in-place calls apart.
  CHECK(Old->Program.MaxBytes == runtimeBytes(S.Coll, 1 << 20) + 1);
  CHECK(Old->Program.Coll == tacclrt::CollKind::ReduceScatter);
  CHECK(Old->Xml.find("coll=\"reduce_scatter\"") != std::string::npos);
  CHECK_FALSE(Old->Program.InPlace);
  S.MaxBytes = 0;
  std::optional<EmittedProgram> Unbounded = emitVerified(S, Sch, Legacy, Diags);
  REQUIRE(Unbounded);
  CHECK(Unbounded->Program.MaxBytes == uint64_t(1) << 40);
}

TEST_CASE("emitVerified chooses wave splits the same way every time") {
  Sketch S = bigRing();
  Schedule Sch = ringSchedule(S);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  EmitOptions Auto;
  Auto.Overlap = SliceOverlap::Auto;
  std::optional<EmittedProgram> A = emitVerified(S, Sch, Auto, Diags);
  std::optional<EmittedProgram> B = emitVerified(S, Sch, Auto, Diags);
  REQUIRE(A);
  REQUIRE(B);
  CHECK(A->Xml == B->Xml);
  EmitOptions On;
  On.Overlap = SliceOverlap::On;
  std::optional<EmittedProgram> W = emitVerified(S, Sch, On, Diags);
  REQUIRE(W);
  CHECK(W->Options.PipelineWaves);
  CHECK(W->Options.SeparateHalves);
  // Auto keeps one of the two lowerings as it is.
  EmitOptions Off;
  std::optional<EmittedProgram> N = emitVerified(S, Sch, Off, Diags);
  REQUIRE(N);
  CHECK_FALSE(N->Options.PipelineWaves);
  CHECK((A->Xml == W->Xml || A->Xml == N->Xml));
  // The choice simulated the program it kept, at the sketch's call, and
  // hands that simulation on; a lowering that chose nothing simulated
  // nothing.
  REQUIRE(A->Simulation);
  std::optional<tacclrt::SimResult> Again = simulatedCall(A->Plan, S);
  REQUIRE(Again);
  CHECK(A->Simulation->TimeUs == Again->TimeUs);
  CHECK(A->Simulation->Events == Again->Events);
  CHECK_FALSE(N->Simulation);
}

TEST_CASE("emitVerified keeps the candidate whose trial ends") {
  // The wave choice of the test above, with trials that stop at once: both
  // stop, so the first lowering (no waves) is kept, without a simulation,
  // and the program says why.
  Sketch S = bigRing();
  Schedule Sch = ringSchedule(S);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  EmitOptions Tiny;
  Tiny.Overlap = SliceOverlap::Auto;
  Tiny.TrialFlowUpdates = 1;
  std::optional<EmittedProgram> T = emitVerified(S, Sch, Tiny, Diags);
  REQUIRE(T);
  CHECK(T->TrialsStopped == 2);
  CHECK(T->SimulationStopped);
  CHECK_FALSE(T->Simulation);
  CHECK(T->trialNote().find("2 trial simulation(s) stopped") !=
        std::string::npos);
  EmitOptions Off;
  std::optional<EmittedProgram> N = emitVerified(S, Sch, Off, Diags);
  REQUIRE(N);
  CHECK(T->Xml == N->Xml);
  // With the default budget nothing stops.
  EmitOptions Auto;
  Auto.Overlap = SliceOverlap::Auto;
  std::optional<EmittedProgram> A = emitVerified(S, Sch, Auto, Diags);
  REQUIRE(A);
  CHECK(A->TrialsStopped == 0);
  CHECK_FALSE(A->SimulationStopped);
  CHECK(A->trialNote().empty());
}

TEST_CASE("emitVerified reports a program over the runtime's limits") {
  Sketch S = ringSketch("ring4-wide", 4, Collective::allGather(4, 1));
  S.Instances = 1000; // more channels than any runtime has
  Schedule Sch = ringSchedule(S);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  CHECK_FALSE(emitVerified(S, Sch, {}, Diags));
  CHECK(Diags.hasErrors());
  Diags.flush(OS);
  CHECK(OS.str().find("instances") != std::string::npos);
}
