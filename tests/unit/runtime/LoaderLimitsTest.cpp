//===- tests/unit/runtime/LoaderLimitsTest.cpp - Hostile loader input -----===//
//
// The loader on inputs built to be expensive: tens of thousands of
// attributes (unknown or duplicated) on one element, floods of warnings
// from many steps, very long names and values, deep nesting, huge counts,
// and files that are not regular files or are over the size cap. Each gives
// a bounded report with a clear error or a counted warning, never a crash.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"
#include "format/IssueSink.h"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cstdio>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {

/// Total length of all messages of \p R.
std::size_t reportChars(const Report &R) { return R.str().size(); }

/// The ring allgather fixture with \p Extra (attributes, each after one
/// space) inserted in its <algo> tag.
std::string withAlgoAttributes(const std::string &Extra) {
  return replaceNth(readFixture("allgather_ring4.xml"), "<algo ",
                    "<algo" + Extra + " ");
}

/// A path for a temporary file or FIFO of this test.
std::string tempPath(const char *Name) {
  return fmt::format("/tmp/tacclrt-limits-{}-{}", ::getpid(), Name);
}

} // namespace

TEST_CASE("50,000 unknown attributes give one error and a counted warning") {
  std::string Extra;
  for (int I = 0; I < 50000; ++I)
    Extra += fmt::format(" x{}=\"1\"", I);
  Loaded L = load(withAlgoAttributes(Extra));
  CHECK_FALSE(L.A.has_value());
  // The MSCCL lexer keeps 16 attributes: one error for the element.
  CHECK(findIssue(L.R, "<algo> has 50010 attributes; the MSCCL lexer keeps "
                       "only the first 16"));
  CHECK(L.R.count(Issue::Warning) == MaxIssuesPerKind);
  CHECK(findIssue(L.R, "... and 49,980 more warnings like this", Issue::Note));
  CHECK(L.R.size() < 30);
}

TEST_CASE("50,000 duplicated attributes stop at the error cap") {
  std::string Extra;
  for (int I = 0; I < 50000; ++I)
    Extra += " ngpus=\"4\"";
  Loaded L = load(withAlgoAttributes(Extra));
  CHECK_FALSE(L.A.has_value());
  CHECK(findIssue(L.R, "duplicate attribute 'ngpus' on <algo>"));
  CHECK(L.R.count(Issue::Error) == MaxReportedErrors);
  CHECK(findIssue(L.R, "too many errors", Issue::Note));
}

TEST_CASE("a flood of step warnings is counted, not listed") {
  // One threadblock of 100,000 nops without dependencies: a warning each.
  std::string Steps;
  for (int S = 0; S < 100000; ++S)
    Steps += fmt::format("      <step s=\"{}\" type=\"nop\" srcbuf=\"i\" "
                         "srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"0\" "
                         "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n",
                         S);
  std::string Text =
      replaceNth(readFixture("allgather_ring4.xml"), "  </gpu>",
                 "    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                     Steps + "    </tb>\n  </gpu>");
  Loaded L = load(Text);
  CHECK_FALSE(L.A.has_value());
  CHECK(findIssue(L.R, "allows at most 64"));
  CHECK(L.R.count(Issue::Warning) == MaxIssuesPerKind);
  CHECK(findIssue(L.R, "... and 99,980 more warnings like this", Issue::Note));
  CHECK(reportChars(L.R) < 20000);
}

TEST_CASE("long names and values are shortened in messages") {
  std::string Long(1000000, '7');
  Loaded L =
      load(withAlgoAttributes(" y" + std::string(100000, 'z') + "=\"1\""));
  CHECK(findIssue(L.R, "attribute name is 100001 characters long"));
  CHECK(reportChars(L.R) < 5000);
  std::string Text = replaceNth(readFixture("allgather_ring4.xml"),
                                "ngpus=\"4\"", "ngpus=\"" + Long + "x\"");
  Loaded V = load(Text);
  CHECK_FALSE(V.A.has_value());
  CHECK(findIssue(V.R, "(1,000,001 characters)"));
  CHECK(reportChars(V.R) < 5000);
}

TEST_CASE("huge counts are refused before anything is sized by them") {
  for (const char *Attr :
       {"ngpus=\"4000000000\"", "ngpus=\"99999999999999999999999\"",
        "ngpus=\"2000000000\"", "nchunksperloop=\"2147483647\"",
        "nchannels=\"-2147483648\""}) {
    CAPTURE(Attr);
    std::string Name(Attr, std::string_view(Attr).find('='));
    std::string Text = readFixture("allgather_ring4.xml");
    std::size_t At = Text.find(Name + "=\"");
    REQUIRE(At != std::string::npos);
    std::size_t End = Text.find('"', At + Name.size() + 2);
    Text.replace(At, End + 1 - At, Attr);
    Loaded L = load(Text);
    CHECK_FALSE(L.A.has_value());
    CHECK(L.R.hasErrors());
  }
}

TEST_CASE("deep nesting inside a step is no problem") {
  std::string Deep;
  for (int I = 0; I < 200000; ++I)
    Deep += "<d>";
  for (int I = 0; I < 200000; ++I)
    Deep += "</d>";
  std::string Text =
      replaceNth(readFixture("allgather_ring4.xml"), "hasdep=\"0\" />",
                 "hasdep=\"0\">" + Deep + "</step>");
  Loaded L = load(Text);
  // The children of a step are ignored by the runtime (no recursion).
  CHECK(L.A.has_value());
  CHECK(reportChars(L.R) < 5000);
}

TEST_CASE("only regular files are read") {
  Report Z;
  CHECK_FALSE(loadPlanFile("/dev/zero", LoadOptions(), Z).has_value());
  REQUIRE(Z.size() == 1);
  CHECK(format(Z[0]) == "/dev/zero: error: is a character device, not a "
                        "regular file: only regular files are read");

  std::string Fifo = tempPath("fifo");
  std::remove(Fifo.c_str());
  REQUIRE(::mkfifo(Fifo.c_str(), 0600) == 0);
  // No writer ever opens it: the loader must neither block nor read.
  Report F;
  CHECK_FALSE(loadPlanFile(Fifo, LoadOptions(), F).has_value());
  std::remove(Fifo.c_str());
  REQUIRE(F.size() == 1);
  CHECK(F[0].Message.find("is a FIFO (named pipe)") != std::string::npos);
}

TEST_CASE("a file whose size is not known in advance is read to its end") {
  // fstat reports 0 bytes for /proc files; their text is read anyway (and
  // is no XML).
  Report R;
  CHECK_FALSE(loadPlanFile("/proc/self/status", LoadOptions(), R).has_value());
  REQUIRE_FALSE(R.empty());
  CHECK(R[0].Line != 0);
  CHECK(R[0].Message.find("cannot") == std::string::npos);
}

TEST_CASE("files over the size cap are refused without reading them") {
  std::string Path = tempPath("big.xml");
  int Fd = ::open(Path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  REQUIRE(Fd >= 0);
  // Sparse: no disk space used, and the loader reads none of it.
  REQUIRE(::ftruncate(Fd, off_t(MaxPlanFileBytes) + 1) == 0);
  ::close(Fd);
  Report R;
  CHECK_FALSE(loadPlanFile(Path, LoadOptions(), R).has_value());
  std::remove(Path.c_str());
  REQUIRE(R.size() == 1);
  CHECK(R[0].Message == "the input has 536,870,913 bytes; TACCL-EF files are "
                        "limited to 536,870,912 bytes (512 MiB)");
}

TEST_CASE("a regular file is read whole by the bounded reader") {
  std::string Path = tempPath("ok.xml");
  std::string Text = readFixture("allgather_ring4.xml");
  FILE *F = std::fopen(Path.c_str(), "wb");
  REQUIRE(F);
  std::fwrite(Text.data(), 1, Text.size(), F);
  std::fclose(F);
  Report R;
  std::optional<Algo> A = loadPlanFile(Path, LoadOptions(), R);
  std::remove(Path.c_str());
  CHECK(A.has_value());
  CHECK(R.empty());
}
