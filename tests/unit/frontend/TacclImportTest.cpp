//===- tests/unit/frontend/TacclImportTest.cpp - TACCL import tests -------===//
//
// The pieces of `tacclc import-taccl` that the golden tests
// (tests/import-taccl/) see only through their output: the machine table
// agrees with the standard library's machines; TACCL's 1 MB profiles, which
// the standard library's dgx2 and ndv2 were written from, give the same
// links and costs as importing without a profile; JSON paths are found
// again in the text (the last of duplicate keys, escaped keys, keys
// themselves); numbers and names are spelled as the language reads them.
//
//===----------------------------------------------------------------------===//
#include "frontend/TacclImport.h"
#include "frontend/Frontend.h"
#include "frontend/MachineRef.h"
#include "frontend/TacclJson.h"
#include "frontend/TacclMachines.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

using namespace tacclc;

namespace {

/// Adds \p Text to \p SM as a file named \p Name; its buffer.
unsigned addBuffer(llvm::SourceMgr &SM, llvm::StringRef Text,
                   llvm::StringRef Name) {
  return SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Text, Name),
                               llvm::SMLoc());
}

/// Imports \p Sketch (named \p Name) with the profile \p Profile (none when
/// empty) and analyses the result; its logical topology.
std::optional<ir::Topology> importAndAnalyse(llvm::StringRef Sketch,
                                             llvm::StringRef Name,
                                             llvm::StringRef Profile) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned S = addBuffer(SM, Sketch, Name);
  unsigned P = Profile.empty() ? 0 : addBuffer(SM, Profile, "profile.json");
  TacclImportOptions O;
  O.SizeBytes = 1000000;
  O.StdlibDir = TACCLC_STDLIB_DIR;
  std::optional<std::string> Text = importTacclSketch(S, P, O, Diags);
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  Diags.flush(OS);
  INFO(Errors);
  REQUIRE(Text);
  llvm::SourceMgr SM2;
  DiagnosticEngine Diags2(SM2);
  unsigned Id = addBuffer(SM2, *Text, "imported.sketch");
  FrontendOptions FO;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  std::optional<ModuleSet> Modules = loadModules(SM2, Id, FO, Diags2);
  REQUIRE(Modules);
  std::optional<ir::Sketch> IR = analyzeSketch(*Modules, "", Diags2);
  REQUIRE(IR);
  return IR->Topo;
}

/// Every link of \p A is in \p B at the same place, class and cost.
void checkSameLinks(const ir::Topology &A, const ir::Topology &B) {
  REQUIRE(A.links().size() == B.links().size());
  for (size_t I = 0; I < A.links().size(); ++I) {
    const ir::Link &L = A.links()[I], &M = B.links()[I];
    CAPTURE(I);
    CHECK(L.Src == M.Src);
    CHECK(L.Dst == M.Dst);
    CHECK(A.classes()[L.Class].Name == B.classes()[M.Class].Name);
    CHECK(L.AlphaUs == doctest::Approx(M.AlphaUs));
    CHECK(L.BetaUsPerB == doctest::Approx(M.BetaUsPerB));
  }
}

} // namespace

TEST_CASE("every TACCL machine is its standard-library machine") {
  for (const TacclMachine &M : tacclMachines()) {
    CAPTURE(M.Name);
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    std::optional<ir::Topology> T =
        instantiateMachine(std::string(M.Name) + "(nodes: 2)", {}, OS);
    INFO(Errors);
    REQUIRE(T);
    CHECK(T->getGpusPerNode() == M.Gpus);
    CHECK(T->nics().size() == 2 * M.Nics);
    auto HasClass = [&](llvm::StringRef Name) {
      return llvm::any_of(
          T->classes(), [&](const ir::LinkClass &C) { return C.Name == Name; });
    };
    for (const char *C : M.NodeClasses)
      CHECK(HasClass(C));
    CHECK(HasClass(M.NicClass));
    if (M.Switch) {
      REQUIRE(T->switches().size() == 1);
      CHECK(T->switches()[0].Name == M.Switch);
      for (const auto &Group : T->switches()[0].Groups)
        CHECK(Group.size() == M.Gpus);
    } else {
      CHECK(T->switches().empty());
    }
  }
}

TEST_CASE("TACCL's 1 MB profiles give the standard library's costs") {
  // TACCL's examples (microsoft/taccl, taccl/examples/, MIT licensed).
  const char *NdvSketch = R"({"nnodes": 2,
    "intranode_sketch": {"strategy": "none"},
    "internode_sketch": {"strategy": "relay", "internode_conn": {"0": [1]}},
    "symmetry_offsets": [[8, 16]], "hyperparameters": {"input_chunkup": 1}})";
  const char *NdvProfile = R"({"name": "NDv2_1MB", "gpus_per_node": 8,
    "nics_per_node": 1, "alpha": 0.3, "node_betas_list": [23, 46],
    "node_invbws_list": [23, 46], "remote_invbw": 107, "remote_alpha": 2.6,
    "remote_beta": 105})";
  checkSameLinks(*importAndAnalyse(NdvSketch, "sk1-ndv2-n2.json", ""),
                 *importAndAnalyse(NdvSketch, "sk1-ndv2-n2.json", NdvProfile));
  const char *DgxSketch = R"({"nnodes": 2,
    "intranode_sketch": {"strategy": "switch",
      "switches": [[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]],
      "switch_hyperedge_strategy": ["uc-max"]},
    "internode_sketch": {"strategy": "relay", "internode_conn": "direct-map"},
    "symmetry_offsets": [[2, 16], [16, 32]],
    "hyperparameters": {"input_chunkup": 1}})";
  const char *DgxProfile = R"({"name": "DGX2_1MB", "gpus_per_node": 16,
    "nics_per_node": 8, "alpha": 0.3, "node_betas_list": [8],
    "node_invbws_list": [8], "remote_invbw": 107, "remote_alpha": 2.6,
    "remote_beta": 105})";
  checkSameLinks(*importAndAnalyse(DgxSketch, "sk2-dgx2-n2.json", ""),
                 *importAndAnalyse(DgxSketch, "sk2-dgx2-n2.json", DgxProfile));
}

TEST_CASE("JSON paths are found again in the text") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  const char *Text =
      R"({"a": {"b": [1, [2, 3]]}, "k\"ey": 4, "a": {"b": [5]}})";
  unsigned Id = addBuffer(SM, Text, "t.json");
  std::optional<JsonDocument> Doc = JsonDocument::parse(Id, Diags);
  REQUIRE(Doc);
  auto Offset = [&](const JsonPath &P, bool ToKey = false) {
    return Doc->locate(P, ToKey).getPointer() -
           SM.getMemoryBuffer(Id)->getBufferStart();
  };
  JsonPath A = JsonPath().field("a");
  // The last of two equal keys, as llvm::json and Python read them.
  CHECK(Offset(A.field("b").index(0)) == llvm::StringRef(Text).find("5"));
  CHECK(Offset(JsonPath().field("k\"ey")) == llvm::StringRef(Text).find("4"));
  CHECK(Offset(JsonPath().field("k\"ey"), true) ==
        llvm::StringRef(Text).find("\"k"));
  CHECK(Offset(A.field("nope")) == 0);
  CHECK(A.field("b").index(1).str() == "a.b[1]");
  CHECK(JsonPath().quoted() == "the top-level value");
  CHECK(A.quoted() == "'a'");
}

TEST_CASE("JSON that nests too deeply is refused before it is parsed") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::string Deep(200000, '[');
  unsigned Id = addBuffer(SM, Deep, "deep.json");
  CHECK(!JsonDocument::parse(Id, Diags));
  CHECK(Diags.errorCount() == 1);
  // Brackets inside strings do not count.
  std::string Quoted = "[\"" + std::string(100, '[') + "\"]";
  CHECK(JsonDocument::parse(addBuffer(SM, Quoted, "q.json"), Diags));
}

TEST_CASE("numbers and names are spelled as the language reads them") {
  CHECK(decimalNumber(0) == "0");
  CHECK(decimalNumber(0.3) == "0.3");
  CHECK(decimalNumber(102.49999999999999) == "102.5");
  CHECK(decimalNumber(10.25 / 100 / 0.001) == "102.5");
  CHECK(decimalNumber(1e-9) == "0.000000001");
  CHECK(decimalNumber(123456789) == "123456789");
  CHECK(sketchIdentifier("sk1-dgx2-n2") == "sk1_dgx2_n2");
  CHECK(sketchIdentifier("1MB") == "_1MB");
  CHECK(sketchIdentifier("sketch") == "sketch_");
  CHECK(machineInName("sk1-dgx2-n2.json")->Name == std::string("dgx2"));
  CHECK(machineInName("NDv2_1MB")->Name == std::string("ndv2"));
  CHECK(!machineInName("dgx2-to-ndv2.json"));
  CHECK(!machineInName("mydgx2.json"));
  CHECK(findTacclMachine("NDv2"));
  CHECK(!findTacclMachine("HubAndSpoke"));
}
