//===- tests/unit/runtime/LoaderTest.cpp - Loading valid plans ------------===//
//
// Every fixture loads cleanly; attribute values, order normalisation,
// strtol(base 0) integers, dialect differences, file errors and locations.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <doctest/doctest.h>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {
const char *const Fixtures[] = {
    "allgather_ring4.xml", "allgather_ring4_inplace.xml", "allreduce_ring3.xml",
    "allreduce_deps2.xml", "allreduce_rrc2.xml",          "alltoall3.xml",
    "reducescatter2.xml"};
} // namespace

TEST_CASE("every fixture loads without issues") {
  for (const char *Name : Fixtures) {
    CAPTURE(Name);
    Report R;
    std::optional<Algo> A = loadPlanFile(fixturePath(Name), LoadOptions(), R);
    CHECK(A.has_value());
    CHECK(R.empty());
    if (!R.empty())
      MESSAGE(R.str());
  }
}

TEST_CASE("the ring allgather is read attribute by attribute") {
  Algo A = loadFixture("allgather_ring4.xml");
  CHECK(A.Name == "allgather_ring4");
  CHECK(A.Proto == Protocol::Simple);
  CHECK(A.NGpus == 4);
  CHECK(A.NChunksPerLoop == 4);
  CHECK(A.Coll == CollKind::AllGather);
  CHECK_FALSE(A.InPlace);
  CHECK(A.OutOfPlace);
  CHECK(A.MaxBytes == 0);
  REQUIRE(A.Gpus.size() == 4);
  const Gpu &G = A.Gpus[2];
  CHECK(G.Id == 2);
  CHECK(G.IChunks == 1);
  CHECK(G.OChunks == 4);
  REQUIRE(G.Tbs.size() == 1);
  CHECK(G.Tbs[0].Send == 3);
  CHECK(G.Tbs[0].Recv == 1);
  REQUIRE(G.Tbs[0].Steps.size() == 5);
  const Step &S = G.Tbs[0].Steps[2];
  CHECK(S.Type == StepType::RecvCopySend);
  CHECK(S.DstBuf == BufferKind::Output);
  CHECK(S.DstOff == 1);
  CHECK(S.Cnt == 1);
  CHECK(S.DepId == -1);
  CHECK(S.Line == 25); // comment, algo, gpu 0 and 1 (9 lines each), gpu 2
  CHECK(S.Col == 7);
}

namespace {
/// Moves the text from \p Begin up to and including \p End (first match at
/// or after \p Begin) right before \p Before.
std::string moveBlock(std::string Text, const std::string &Begin,
                      const std::string &End, const std::string &Before) {
  std::size_t B = Text.find(Begin);
  std::size_t E = Text.find(End, B) + End.size();
  std::string Block = Text.substr(B, E - B);
  Text.erase(B, E - B);
  Text.insert(Text.find(Before), Block);
  return Text;
}
} // namespace

TEST_CASE("gpus and tbs may appear in any order") {
  std::string Text = readFixture("alltoall3.xml");
  // Rank 0 last; on rank 1, tb 0 after tb 2.
  Text = moveBlock(Text, "  <gpu id=\"0\"", "  </gpu>\n", "</algo>");
  Text = moveBlock(Text, "    <tb id=\"0\" send=\"0\"", "    </tb>\n",
                   "  </gpu>\n  <gpu id=\"2\"");
  CHECK(Text.find("<gpu id=\"0\"") > Text.find("<gpu id=\"2\""));
  Loaded L = load(Text);
  REQUIRE_MESSAGE(L.A.has_value(), L.R.str());
  CHECK(L.R.empty());
  for (int R = 0; R < 3; ++R) {
    const Gpu &G = L.A->Gpus[static_cast<std::size_t>(R)];
    CHECK(G.Id == R);
    for (int T = 0; T < 3; ++T)
      CHECK(G.Tbs[static_cast<std::size_t>(T)].Id == T);
  }
  CHECK(L.A->Gpus[1].Tbs[0].Send == 0);
}

TEST_CASE("integers follow strtol base 0") {
  std::string Text = readFixture("allgather_ring4.xml");
  Loaded L =
      load(replaceNth(Text, "nchunksperloop=\"4\"", "nchunksperloop=\"0x4\""));
  REQUIRE(L.A.has_value());
  CHECK(L.A->NChunksPerLoop == 4);
  L = load(replaceNth(Text, "nchunksperloop=\"4\"", "nchunksperloop=\"04\""));
  REQUIRE(L.A.has_value());
  CHECK(L.A->NChunksPerLoop == 4);
}

TEST_CASE("comments and the TACCL copy element are accepted") {
  std::string Text = readFixture("allgather_ring4.xml");
  Text = replaceNth(Text, "    <tb id=\"0\"",
                    "    <!-- a comment -->\n    <copy i_off=\"0\" o_off=\"0\" "
                    "/>\n    <tb id=\"0\"");
  Loaded L = load(Text);
  CHECK(L.A.has_value());
  CHECK_FALSE(L.R.hasErrors());
  CHECK(findIssue(L.R, "TACCL <copy> element is ignored", Issue::Note));
}

TEST_CASE("unknown attributes are warnings") {
  std::string Text = readFixture("allgather_ring4.xml");
  Loaded L = load(replaceNth(Text, "maxBytes=\"0\"",
                             "maxBytes=\"0\" redop=\"sum\" color=\"red\""));
  CHECK(L.A.has_value());
  CHECK(findIssue(L.R, "unknown attribute 'color'", Issue::Warning));
  CHECK_FALSE(findIssue(L.R, "'redop'", Issue::Warning));
}

TEST_CASE("the legacy dialect reads legacy files") {
  std::string Text = readFixture("reducescatter2.xml");
  Text = replaceNth(Text, "coll=\"reducescatter\"", "coll=\"reduce_scatter\"");
  Text =
      replaceNth(Text, " outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\"", "");
  Loaded L = load(Text, Dialect::Legacy);
  REQUIRE(L.A.has_value());
  CHECK(L.A->Coll == CollKind::ReduceScatter);
  CHECK(L.A->MaxBytes == (std::uint64_t(1) << 27));
  CHECK_FALSE(L.A->OutOfPlace); // inplace=1: only in-place calls
  CHECK(L.R.empty());
}

TEST_CASE("the legacy dialect allows 256 steps per threadblock") {
  std::string Text = readFixture("allgather_ring4.xml");
  std::string Tb = "    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n";
  for (int S = 0; S < 65; ++S)
    Tb += "      <step s=\"" + std::to_string(S) +
          "\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" "
          "dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\" />\n";
  Tb += "    </tb>\n  </gpu>";
  Text = replaceNth(Text, "  </gpu>", Tb);
  CHECK(findIssue(load(Text).R, "allows at most 64"));
  Text = replaceNth(Text, "maxBytes=\"0\"", "maxBytes=\"1048576\"");
  Loaded L = load(Text, Dialect::Legacy);
  CHECK(L.A.has_value());
  CHECK_FALSE(L.R.hasErrors());
}

TEST_CASE("file errors are issues") {
  Report R;
  CHECK_FALSE(loadPlanFile("/nonexistent/x.xml", LoadOptions(), R).has_value());
  REQUIRE(R.size() == 1);
  CHECK(R[0].File == "/nonexistent/x.xml");
  CHECK(R[0].Message.find("cannot open") != std::string::npos);
  Report D;
  CHECK_FALSE(loadPlanFile(TACCLRT_XML_DIR, LoadOptions(), D).has_value());
  CHECK(findIssue(D, "is a directory"));
}

TEST_CASE("dialect tables") {
  CHECK(collName(CollKind::ReduceScatter, Dialect::Executor) ==
        "reducescatter");
  CHECK(collName(CollKind::ReduceScatter, Dialect::Legacy) == "reduce_scatter");
  CHECK(collName(CollKind::Gather, Dialect::Legacy).empty());
  CHECK(parseCollName("custom", Dialect::Legacy) == CollKind::Custom);
  CHECK_FALSE(parseCollName("custom", Dialect::Executor).has_value());
  CHECK(maxStepsPerTb(Dialect::Executor) == 64);
  CHECK(maxStepsPerTb(Dialect::Legacy) == 256);
}
