//===- tests/unit/runtime/LoaderRulesTest.cpp - Loader rules, one by one --===//
//
// Table-driven negative tests: each row breaks one rule of the MSCCL
// lexer, the attribute syntax or the runtime semantics in an otherwise valid
// fixture and expects a specific message (and sometimes location). Rules
// that need big or unusual plans are tested on in-memory plans through
// validatePlan(); the size range each runtime selects a plan by, through
// selectsSize().
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"
#include "format/Dialect.h"

#include <doctest/doctest.h>

#include <vector>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {

/// One text replacement: the N-th occurrence of From becomes To.
struct Edit {
  const char *From;
  std::string To;
  int N = 0;
};

/// One broken rule.
struct RuleCase {
  const char *Rule;
  const char *Fixture;
  std::vector<Edit> Edits;
  const char *Expected;
  Dialect D = Dialect::Executor;
  int Rank = -2, Tb = -2, Step = -2; // -2: not checked
};

std::string manyAttrs() {
  std::string S = "hasdep=\"0\"";
  for (int K = 0; K < 7; ++K)
    S += " a" + std::to_string(K) + "=\"" + std::to_string(K) + "\"";
  return S;
}

const std::string Ring = "allgather_ring4.xml";

std::vector<RuleCase> ruleCases() {
  const char *R = "allgather_ring4.xml";
  const char *Deps = "allreduce_deps2.xml";
  const char *A2A = "alltoall3.xml";
  const char *RS = "reducescatter2.xml";
  return {
      // Lexical rules of the MSCCL lexer (valid XML, rejected by it).
      {"xml declaration",
       R,
       {{"<!--", "<?xml version=\"1.0\"?>\n<!--"}},
       "declarations are not accepted"},
      {"tab", R, {{"  <gpu id=\"1\"", "\t<gpu id=\"1\""}}, "tab character"},
      {"tag split across lines",
       R,
       {{" i_chunks=\"1\"", "\n    i_chunks=\"1\""}},
       "spans several lines"},
      {"single-quoted value",
       R,
       {{"proto=\"Simple\"", "proto='Simple'"}},
       "single quotes"},
      {"spaces around =",
       R,
       {{"proto=\"Simple\"", "proto = \"Simple\""}},
       "spaces around '='"},
      {"more than 16 attributes",
       R,
       {{"hasdep=\"0\"", manyAttrs()}},
       "has 17 attributes"},
      {"empty attributes from spaces",
       R,
       {{"cnt=\"1\" depid", "cnt=\"1\"        depid"}},
       "(7 of them empty, from repeated spaces)"},
      {"value longer than 255",
       R,
       {{"name=\"allgather_ring4\"", "name=\"" + std::string(300, 'x') + "\""}},
       "300 characters long"},
      {"text between elements",
       R,
       {{"  </gpu>", "  hello </gpu>"}},
       "text outside of tags"},
      {"malformed xml", R, {{"</algo>", ""}}, "malformed xml"},
      // Attribute syntax.
      {"missing attribute",
       R,
       {{" cnt=\"1\"", ""}},
       "attribute 'cnt' of <step> is missing",
       Dialect::Executor,
       0,
       0,
       0},
      {"not an integer",
       R,
       {{"nchannels=\"1\"", "nchannels=\"one\""}},
       "is not an integer"},
      {"trailing junk",
       R,
       {{"nchannels=\"1\"", "nchannels=\"1x\""}},
       "trailing characters"},
      {"flag not 0/1",
       R,
       {{"inplace=\"0\"", "inplace=\"2\""}},
       "must be 0 or 1"},
      {"duplicate attribute",
       R,
       {{"cnt=\"1\"", "cnt=\"1\" cnt=\"1\""}},
       "duplicate attribute 'cnt'"},
      {"unknown proto",
       R,
       {{"proto=\"Simple\"", "proto=\"simple\""}},
       "unknown proto 'simple'"},
      {"legacy coll name in executor",
       RS,
       {{"coll=\"reducescatter\"", "coll=\"reduce_scatter\""}},
       "expects 'reducescatter'"},
      {"executor coll name in legacy",
       RS,
       {{"maxBytes=\"0\"", "maxBytes=\"64\""}},
       "expects 'reduce_scatter'",
       Dialect::Legacy},
      {"outofplace required",
       R,
       {{" outofplace=\"1\"", ""}},
       "attribute 'outofplace' of <algo> is missing"},
      {"name required in legacy",
       R,
       {{"name=\"allgather_ring4\" ", ""},
        {"maxBytes=\"0\"", "maxBytes=\"64\""}},
       "attribute 'name' of <algo> is missing",
       Dialect::Legacy},
      {"legacy maxBytes 0", R, {}, "maxBytes=0", Dialect::Legacy},
      {"legacy nthreads",
       R,
       {{"maxBytes=\"0\"", "maxBytes=\"64\" nthreads=\"100\""}},
       "nthreads=100 must be a positive multiple of 32",
       Dialect::Legacy},
      {"step type ra",
       R,
       {{"type=\"rcs\"", "type=\"ra\""}},
       "step type 'ra' is not supported"},
      {"unknown step type",
       R,
       {{"type=\"rcs\"", "type=\"xx\""}},
       "unknown step type 'xx'"},
      {"bad buffer",
       R,
       {{"srcbuf=\"i\"", "srcbuf=\"x\""}},
       "srcbuf must be 'i', 'o' or 's'"},
      // Document structure.
      {"two algos",
       R,
       {{"</algo>", "</algo>\n<algo></algo>"}},
       "more than one <algo>"},
      {"missing gpu",
       R,
       {{"<gpu id=\"3\"", "<gpu id=\"2\""}},
       "no <gpu> for rank 3"},
      {"duplicate gpu",
       R,
       {{"<gpu id=\"3\"", "<gpu id=\"2\""}},
       "rank 2 has more than one <gpu>"},
      {"gpu id out of range",
       R,
       {{"<gpu id=\"3\"", "<gpu id=\"4\""}},
       "gpu id 4 is not a rank"},
      {"tb ids not contiguous",
       R,
       {{"<tb id=\"0\"", "<tb id=\"1\""}},
       "threadblock 0 is missing",
       Dialect::Executor,
       0,
       -1,
       -1},
      {"duplicate tb id",
       A2A,
       {{"<tb id=\"1\"", "<tb id=\"0\""}},
       "duplicate tb id 0"},
      // Threadblocks.
      {"send peer out of range",
       R,
       {{"send=\"1\"", "send=\"4\""}},
       "send=4 is not a rank",
       Dialect::Executor,
       0,
       0,
       -1},
      {"recv peer is own rank",
       R,
       {{"recv=\"3\"", "recv=\"0\""}},
       "recv=0 is the threadblock's own rank"},
      {"chan out of range",
       R,
       {{"chan=\"0\"", "chan=\"1\""}},
       "chan=1 is out of range"},
      {"shared send connection",
       A2A,
       {{"<tb id=\"1\" send=\"2\" recv=\"2\"",
         "<tb id=\"1\" send=\"1\" recv=\"2\""}},
       "tb 1 and tb 0 both send to rank 1 on chan 0"},
      {"shared recv connection",
       A2A,
       {{"<tb id=\"1\" send=\"2\" recv=\"2\"",
         "<tb id=\"1\" send=\"2\" recv=\"1\""}},
       "both receive from rank 1 on chan 0"},
      // Steps.
      {"s is not the position",
       R,
       {{" s=\"1\"", " s=\"7\""}},
       "s=7 but the step is at position 1",
       Dialect::Executor,
       0,
       0,
       1},
      {"source out of bounds",
       R,
       {{"type=\"cpy\" srcbuf=\"i\" srcoff=\"0\"",
         "type=\"cpy\" srcbuf=\"i\" srcoff=\"1\""}},
       "reads input chunk 1, out of bounds: the gpu declares i_chunks=1"},
      {"off+cnt out of bounds",
       R,
       {{"dstoff=\"3\" cnt=\"1\"", "dstoff=\"3\" cnt=\"2\""}},
       "writes output chunks 3..4, out of bounds"},
      {"negative offset",
       R,
       {{"srcoff=\"0\"", "srcoff=\"-1\""}},
       "srcoff=-1 is negative"},
      {"cnt 0 on a real op",
       R,
       {{"cnt=\"1\"", "cnt=\"0\""}},
       "cnt=0 on a 'cpy' step"},
      {"cnt above 71",
       R,
       {{"cnt=\"1\"", "cnt=\"72\""}},
       "cnt=72 is out of range"},
      {"send op without send peer",
       R,
       {{"send=\"1\"", "send=\"-1\""}},
       "'s' sends, but the threadblock has send=-1"},
      {"recv op without recv peer",
       R,
       {{"recv=\"3\"", "recv=\"-1\""}},
       "'rcs' receives, but the threadblock has recv=-1"},
      {"dependency on a missing tb",
       R,
       {{"depid=\"-1\" deps=\"-1\"", "depid=\"5\" deps=\"0\""}},
       "rank 0 has no tb 5"},
      {"dependency on the own tb",
       R,
       {{"depid=\"-1\" deps=\"-1\"", "depid=\"0\" deps=\"0\""}},
       "names the step's own threadblock"},
      {"dependency on a step without hasdep",
       Deps,
       {{"depid=\"0\" deps=\"0\"", "depid=\"0\" deps=\"1\""}},
       "depends on tb 0 step 1, which has hasdep=0"},
      {"dependency on a missing step",
       Deps,
       {{"depid=\"0\" deps=\"0\"", "depid=\"0\" deps=\"9\""}},
       "deps=9 is not a step of tb 0"},
      {"op with depid=-1 after nops",
       Deps,
       {{"depid=\"0\" deps=\"0\" hasdep=\"1\"", "depid=\"-1\" deps=\"-1\" "
                                                "hasdep=\"1\""}},
       "follows nops that carry dependencies but has depid=-1"},
      // Plan-level consistency.
      {"nchunksperloop consistency (legacy)",
       R,
       {{"nchunksperloop=\"4\"", "nchunksperloop=\"8\""},
        {"maxBytes=\"0\"", "maxBytes=\"64\""}},
       "i_chunks=1 times ngpus=4 does not match nchunksperloop=8",
       Dialect::Legacy},
      {"nchannels range",
       R,
       {{"nchannels=\"1\"", "nchannels=\"33\""}},
       "nchannels=33 must be between 1 and 32"},
      {"minBytes above maxBytes",
       R,
       {{"minBytes=\"0\" maxBytes=\"0\"", "minBytes=\"10\" maxBytes=\"5\""}},
       "minBytes=10 exceeds maxBytes=5"},
  };
}

} // namespace

TEST_CASE("each loader rule is reported with its message") {
  for (const RuleCase &C : ruleCases()) {
    std::string Rule = C.Rule;
    CAPTURE(Rule);
    std::string Text = readFixture(C.Fixture);
    REQUIRE_FALSE(Text.empty());
    for (const Edit &E : C.Edits) {
      std::string After = replaceNth(Text, E.From, E.To, E.N);
      REQUIRE_MESSAGE(After != Text, "edit did not apply: ", E.From);
      Text = After;
    }
    Loaded L = load(Text, C.D);
    CHECK_FALSE(L.A.has_value());
    const Issue *I = findIssue(L.R, C.Expected);
    CHECK_MESSAGE(I, "expected \"", std::string(C.Expected), "\" in:\n",
                  L.R.str());
    if (!I)
      continue;
    CHECK(I->File == "test.xml");
    if (C.Rank != -2)
      CHECK(I->Rank == C.Rank);
    if (C.Tb != -2)
      CHECK(I->Tb == C.Tb);
    if (C.Step != -2)
      CHECK(I->Step == C.Step);
  }
}

TEST_CASE("issues carry the line and column of the element") {
  std::string Text = replaceNth(readFixture(Ring), " s=\"1\"", " s=\"7\"");
  Loaded L = load(Text);
  const Issue *I = findIssue(L.R, "s=7");
  REQUIRE(I);
  CHECK(I->Line == 6);
  CHECK(I->Col == 7);
  CHECK(format(*I).rfind("test.xml:6:7: error: rank 0 tb 0 step 1: s=7", 0) ==
        0);
  // Attribute errors point at the attribute itself.
  L = load(replaceNth(readFixture(Ring), "nchannels=\"1\"", "nchannels=\"x\""));
  I = findIssue(L.R, "not an integer");
  REQUIRE(I);
  CHECK(I->Line == 2);
  CHECK(I->Col == 45);
}

TEST_CASE("all errors are collected, at most 50") {
  std::string Text = readFixture(Ring);
  // Three independent errors.
  Text = replaceNth(Text, " s=\"1\"", " s=\"7\"");
  Text = replaceNth(Text, "chan=\"0\"", "chan=\"3\"", 2);
  Text = replaceNth(Text, "recv=\"3\"", "recv=\"0\"");
  Loaded L = load(Text);
  CHECK(L.R.count(Issue::Error) == 3);

  std::string Many = readFixture(Ring);
  for (int K = 0; K < 60; ++K)
    Many = replaceNth(Many, "  </gpu>", "  <tb/>\n  </gpu>");
  L = load(Many);
  CHECK(L.R.count(Issue::Error) == 50);
  CHECK(findIssue(L.R, "too many errors; stopping after 50", Issue::Note));
}

TEST_CASE("warnings do not block loading") {
  std::string Text = readFixture("allreduce_deps2.xml");
  // A dependency-less nop before tb 1's first step.
  Text = replaceNth(Text, "<step s=\"0\" type=\"r\"",
                    "<step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" "
                    "dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" depid=\"-1\" "
                    "deps=\"-1\" hasdep=\"0\" />\n      <step s=\"1\" "
                    "type=\"r\"");
  Text = replaceNth(Text, "<step s=\"1\" type=\"r\"",
                    "<step s=\"2\" type=\"r\"", 1);
  Text = replaceNth(Text, "depid=\"1\" deps=\"0\"", "depid=\"1\" deps=\"1\"");
  Loaded L = load(Text);
  CHECK(L.A.has_value());
  CHECK(findIssue(L.R, "nop without a dependency", Issue::Warning));
}

TEST_CASE("validatePlan: dependency targets above 127") {
  Algo A = loadFixture("allreduce_deps2.xml");
  Gpu &G = A.Gpus[0];
  while (G.Tbs.size() < 217) {
    Tb T;
    T.Id = static_cast<int>(G.Tbs.size());
    Step S;
    S.Type = StepType::Copy;
    S.SrcBuf = BufferKind::Input;
    S.SrcOff = 0;
    S.DstBuf = BufferKind::Scratch;
    S.DstOff = 0;
    S.Cnt = 1;
    S.HasDep = true;
    T.Steps.push_back(S);
    G.Tbs.push_back(T);
  }
  G.Tbs[2].Steps[2].DepId = 128;
  G.Tbs[2].Steps[2].Deps = 0;
  Report R = validatePlan(A, LoadOptions(), "mem");
  CHECK(findIssue(R, "dependency targets must have ids <= 127"));
  R = validatePlan(A, LoadOptions{Dialect::Legacy}, "mem");
  CHECK(findIssue(R, "the legacy runtime allows at most 216"));
}

TEST_CASE("validatePlan: at most 32 sending tbs per channel") {
  Algo A;
  A.NGpus = 40;
  A.NChunksPerLoop = 40;
  A.Coll = CollKind::AllGather;
  A.OutOfPlace = true;
  for (int R = 0; R < 40; ++R) {
    Gpu G;
    G.Id = R;
    A.Gpus.push_back(G);
  }
  for (int P = 1; P <= 33; ++P) {
    Tb T;
    T.Id = P - 1;
    T.Send = P;
    A.Gpus[0].Tbs.push_back(T);
  }
  Report R = validatePlan(A, LoadOptions(), "mem");
  CHECK(findIssue(R, "33 threadblocks send on chan 0"));
}

TEST_CASE("validatePlan: the MSCCL lexer stores at most 4096 nodes per rank") {
  Algo A = loadFixture("allreduce_deps2.xml");
  Tb &T = A.Gpus[1].Tbs[2];
  while (T.Steps.size() < 4100) {
    Step S = T.Steps[0];
    S.S = static_cast<int>(T.Steps.size());
    T.Steps.push_back(S);
  }
  Report R = validatePlan(A, LoadOptions(), "mem");
  CHECK(findIssue(R, "rank 1 needs 4110 XML nodes"));
  CHECK(findIssue(R, "allows at most 64 per threadblock"));
}

TEST_CASE("the executor only warns about declared buffers that differ from "
          "the call's") {
  std::string Text =
      replaceNth(readFixture("allgather_ring4.xml"), "nchunksperloop=\"4\"",
                 "nchunksperloop=\"8\"", 0);
  Loaded L = load(Text, Dialect::Executor);
  CHECK(L.A.has_value());
  CHECK_FALSE(L.R.hasErrors());
  CHECK(findIssue(L.R,
                  "i_chunks=1 times ngpus=4 does not match "
                  "nchunksperloop=8",
                  Issue::Warning));
}

TEST_CASE("selectsSize: each runtime's rule for minBytes and maxBytes") {
  Algo A;
  A.MinBytes = 4096;
  A.MaxBytes = 65536;
  for (Dialect D : {Dialect::Executor, Dialect::Legacy}) {
    CHECK_FALSE(selectsSize(A, 4095, D));
    CHECK(selectsSize(A, 4096, D));
    CHECK(selectsSize(A, 65535, D));
  }
  // The executor's maxBytes is inclusive, the legacy runtime's exclusive.
  CHECK(selectsSize(A, 65536, Dialect::Executor));
  CHECK_FALSE(selectsSize(A, 65536, Dialect::Legacy));
  // maxBytes 0: no upper end for the executor, nothing for the legacy one.
  A.MaxBytes = 0;
  CHECK(selectsSize(A, uint64_t(1) << 40, Dialect::Executor));
  CHECK_FALSE(selectsSize(A, 4096, Dialect::Legacy));
}
