//===- tests/unit/runtime/PlanWriterTest.cpp - Printing plans -------------===//
//
// format/PlanWriter: what it prints loads back to the same plan and prints
// to the same text, the dialect decides the `coll` spelling, names are
// escaped, `root` appears only for rooted plans, and the provenance
// attributes load back, without warnings, in both dialects.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "format/PlanWriter.h"

#include <doctest/doctest.h>

using namespace tacclrt;
using namespace tacclrt::test;

TEST_CASE("writePlan prints what the loader reads back") {
  for (const char *Name : {"allgather_ring4.xml", "allreduce_ring3.xml",
                           "allreduce_deps2.xml", "reducescatter2.xml"}) {
    CAPTURE(Name);
    Algo A = loadFixture(Name);
    REQUIRE(A.NGpus > 1);
    std::string Xml = writePlan(A, Dialect::Executor);
    Report R;
    std::optional<Algo> B = loadPlan(Xml, Name, LoadOptions(), R);
    REQUIRE_MESSAGE(B, R.str());
    CHECK_MESSAGE(R.empty(), R.str());
    CHECK(writePlan(*B, Dialect::Executor) == Xml);
    CHECK(B->Coll == A.Coll);
    CHECK(B->Gpus.size() == A.Gpus.size());
    for (size_t G = 0; G < A.Gpus.size(); ++G) {
      REQUIRE(B->Gpus[G].Tbs.size() == A.Gpus[G].Tbs.size());
      for (size_t T = 0; T < A.Gpus[G].Tbs.size(); ++T)
        CHECK(B->Gpus[G].Tbs[T].Steps.size() == A.Gpus[G].Tbs[T].Steps.size());
    }
  }
}

TEST_CASE("writePlan spells the collective as the dialect does") {
  Algo A = loadFixture("reducescatter2.xml");
  REQUIRE(A.Coll == CollKind::ReduceScatter);
  CHECK(writePlan(A, Dialect::Executor).find("coll=\"reducescatter\"") !=
        std::string::npos);
  CHECK(writePlan(A, Dialect::Legacy).find("coll=\"reduce_scatter\"") !=
        std::string::npos);
}

TEST_CASE("writePlan escapes the name and prints root only when set") {
  Algo A;
  A.Name = "a<b&\"c\"";
  A.Gpus.resize(1);
  std::string Xml = writePlan(A, Dialect::Executor);
  CHECK(Xml.rfind("<algo name=\"a&lt;b&amp;&quot;c&quot;\" proto=\"Simple\"",
                  0) == 0);
  CHECK(Xml.find("root=") == std::string::npos);
  CHECK(Xml.find("ngpus=\"1\"") != std::string::npos);
  A.Root = 0;
  CHECK(writePlan(A, Dialect::Executor).find(" root=\"0\">") !=
        std::string::npos);
}

TEST_CASE("provenance attributes load back without warnings in both "
          "dialects") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Origin.Compiler = "9.8.7";
  A.Origin.Machine = "../m/box.sketch:box(nodes: 2)";
  A.Origin.Sketch = "s.sketch:s";
  A.Origin.Sizes = "1 KiB:64 KiB";
  A.MaxBytes = 1 << 20; // the legacy runtime's range excludes 0
  for (Dialect D : {Dialect::Executor, Dialect::Legacy}) {
    std::string Xml = writePlan(A, D);
    CHECK(Xml.find(" tacclc-version=\"9.8.7\" machine=\"../m/box.sketch:box("
                   "nodes: 2)\" sketch=\"s.sketch:s\" sizes=\"1 KiB:64 "
                   "KiB\">") != std::string::npos);
    LoadOptions LO;
    LO.D = D;
    Report R;
    std::optional<Algo> B = loadPlan(Xml, "p.xml", LO, R);
    REQUIRE_MESSAGE(B, R.str());
    CHECK_MESSAGE(R.empty(), R.str());
    CHECK(B->Origin.Compiler == A.Origin.Compiler);
    CHECK(B->Origin.Machine == A.Origin.Machine);
    CHECK(B->Origin.Sketch == A.Origin.Sketch);
    CHECK(B->Origin.Sizes == A.Origin.Sizes);
    CHECK(writePlan(*B, D) == Xml);
  }
}

TEST_CASE("a provenance value the MSCCL lexer would refuse is left out") {
  Algo A = loadFixture("allgather_ring4.xml");
  A.Origin.Machine = std::string(300, 'm');
  A.Origin.Sketch = "a\nb";
  A.Origin.Sizes = "1 MB";
  std::string Xml = writePlan(A, Dialect::Executor);
  CHECK(Xml.find("machine=") == std::string::npos);
  CHECK(Xml.find("sketch=") == std::string::npos);
  CHECK(Xml.find(" sizes=\"1 MB\">") != std::string::npos);
  Report R;
  CHECK(loadPlan(Xml, "p.xml", LoadOptions(), R));
  CHECK_MESSAGE(R.empty(), R.str());
}
