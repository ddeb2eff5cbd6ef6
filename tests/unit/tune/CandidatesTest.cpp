//===- tests/unit/tune/CandidatesTest.cpp - Generated sketches ------------===//
//
// tune/Candidates.h: the bands of a sweep, the facts read off the standard
// library's machines, and the generated sketches: the families each machine
// shape gets, unique names, and every sketch accepted by the front end.
//
//===----------------------------------------------------------------------===//
#include "tune/Candidates.h"

#include "frontend/Frontend.h"
#include "frontend/MachineRef.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <set>

using namespace tacclc;
using namespace tacclc::tune;

namespace {
MachineFacts facts(const std::string &Family, unsigned Nodes) {
  setenv("TACCLC_STDLIB", TACCLC_STDLIB_DIR, 1);
  std::string Call = Family + "(nodes: " + std::to_string(Nodes) + ")";
  auto T = instantiateMachine(Call, {});
  REQUIRE(T);
  return describeMachine(*T, "topologies/" + Family, Call);
}

/// The candidate's sketch analysed by the front end; the errors, if any.
std::string analyse(const Candidate &C) {
  llvm::SourceMgr SM;
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  SM.setDiagHandler(
      [](const llvm::SMDiagnostic &D, void *Ctx) {
        D.print("", *static_cast<llvm::raw_string_ostream *>(Ctx));
      },
      &OS);
  DiagnosticEngine Diags(SM);
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(C.Text, C.Name + ".sketch"),
      llvm::SMLoc());
  FrontendOptions FO;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  auto Mods = loadModules(SM, Id, FO, Diags);
  if (!Mods || !analyzeSketch(*Mods, C.Name, Diags))
    return "rejected: " + OS.str();
  return OS.str();
}

std::set<std::string> families(const std::vector<Candidate> &Cs,
                               llvm::StringRef Band) {
  std::set<std::string> Out;
  for (const Candidate &C : Cs)
    if (C.Band == Band)
      Out.insert(C.Family);
  return Out;
}
} // namespace

TEST_CASE("the sweep splits into bands at 64 KiB and 16 MiB") {
  auto B = sizeBands(1024, 4ull << 30);
  REQUIRE(B.size() == 3);
  CHECK(B[0].Name == "small");
  CHECK(B[0].Lo == 1024);
  CHECK(B[0].Hi == (64 << 10) - 1);
  CHECK(B[1].Lo == 64 << 10);
  CHECK(B[1].Hi == (16 << 20) - 1);
  CHECK(B[2].Lo == 16 << 20);
  CHECK(B[2].Hi == 4ull << 30);
  auto One = sizeBands(1 << 20, 2 << 20);
  REQUIRE(One.size() == 1);
  CHECK(One[0].Name == "medium");
  CHECK(sizeBands(4096, 4096).size() == 1);
}

TEST_CASE("machine facts: NICs, their class and the switches") {
  MachineFacts N = facts("ndv2", 2);
  CHECK(N.Nodes == 2);
  CHECK(N.GpusPerNode == 8);
  CHECK(N.NicGpus.size() == 1);
  CHECK(N.NicClass == "ib");
  CHECK(N.Switches.empty());
  MachineFacts D = facts("dgx2", 2);
  CHECK(D.NicGpus.size() == 8);
  CHECK(D.NicGpus[1] == std::vector<unsigned>{2, 3});
  CHECK(D.Switches == std::vector<std::string>{"nvs"});
  MachineFacts H = facts("h100", 4);
  CHECK(H.NicGpus.size() == 8);
}

TEST_CASE("each machine shape gets its families") {
  auto Bands = sizeBands(1024, 4ull << 30);
  auto N2 = generateCandidates(facts("ndv2", 2), "allgather", Bands);
  CHECK(families(N2, "small").count("relay all"));
  CHECK(families(N2, "small").count("relay each per NIC"));
  CHECK(families(N2, "small").count("relay direct, contiguous ib"));
  CHECK_FALSE(families(N2, "small").count("relay direct, 2 chunks"));
  CHECK(families(N2, "large")
            .count("relay direct, phases across then within nodes"));
  CHECK(families(N2, "large").count("rails"));
  CHECK_FALSE(families(N2, "large").count("relay all"));
  // Alltoall is not phased; reductions skip the switch policy.
  auto A = generateCandidates(facts("ndv2", 2), "alltoall", Bands);
  CHECK_FALSE(families(A, "large")
                  .count("relay direct, phases across then within nodes"));
  auto H = generateCandidates(facts("h100", 4), "allgather", Bands);
  CHECK_FALSE(families(H, "small").count("relay each per NIC"));
  CHECK(families(H, "medium").count("relay direct, uc-min"));
  auto HR = generateCandidates(facts("h100", 4), "allreduce", Bands);
  CHECK_FALSE(families(HR, "medium").count("relay direct, uc-min"));
  // One node: no relays.
  auto One = generateCandidates(facts("dgx2", 1), "allgather", Bands);
  CHECK(families(One, "small") ==
        std::set<std::string>{"one node", "uc-min", "uc-max"});
  CHECK(families(One, "large") ==
        std::set<std::string>{"one node", "2 chunks"});
}

TEST_CASE("every generated sketch is valid, named uniquely, and the same "
          "each time") {
  auto Bands = sizeBands(1024, 4ull << 30);
  for (auto [Family, Nodes] : std::vector<std::pair<std::string, unsigned>>{
           {"ndv2", 1}, {"ndv2", 2}, {"dgx2", 2}, {"a100", 4}, {"h100", 4}}) {
    MachineFacts M = facts(Family, Nodes);
    std::set<std::string> Names;
    for (const char *Coll :
         {"allgather", "alltoall", "reducescatter", "allreduce"}) {
      auto Cs = generateCandidates(M, Coll, Bands);
      CHECK_FALSE(Cs.empty());
      auto Again = generateCandidates(M, Coll, Bands);
      REQUIRE(Again.size() == Cs.size());
      for (size_t I = 0; I < Cs.size(); ++I) {
        CHECK(Cs[I].Text == Again[I].Text);
        CHECK(Names.insert(Cs[I].Name).second);
        INFO(Cs[I].Text);
        CHECK(analyse(Cs[I]) == "");
      }
    }
  }
  CHECK(tunableCollective("allreduce"));
  CHECK_FALSE(tunableCollective("broadcast"));
}
