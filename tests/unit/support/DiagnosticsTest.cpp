//===- tests/unit/support/DiagnosticsTest.cpp - DiagnosticEngine tests ----===//
//
// Rendering (prefix, source line, caret and range underline), sorting by
// location, notes, names and error counting, on in-memory buffers.
//
//===----------------------------------------------------------------------===//
#include "support/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

using namespace tacclc;

namespace {
struct Fixture {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags{SM};
  const char *Base = nullptr;
  explicit Fixture(llvm::StringRef Text) {
    unsigned Id = SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Text, "t.sketch"), llvm::SMLoc());
    Base = SM.getMemoryBuffer(Id)->getBufferStart();
  }
  llvm::SMRange at(size_t Begin, size_t End) {
    return {llvm::SMLoc::getFromPointer(Base + Begin),
            llvm::SMLoc::getFromPointer(Base + End)};
  }
  std::string flush() {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    Diags.flush(OS);
    return OS.str();
  }
};
} // namespace

TEST_CASE("an error renders with file:line:col, the line and a caret range") {
  Fixture F("topology t {\n  link 1 -> 99 alpha 1 us\n}\n");
  F.Diags.report(DiagId::UnknownRank, F.at(25, 27), "99", "t", 3);
  CHECK(F.Diags.errorCount() == 1);
  CHECK(F.flush() == "t.sketch:2:13: error: unknown rank 99: topology 't' has "
                     "ranks 0..3\n"
                     "  link 1 -> 99 alpha 1 us\n"
                     "            ^~\n");
}

TEST_CASE("diagnostics are sorted by location and notes follow their error") {
  Fixture F("aaa bbb ccc\n");
  F.Diags.report(DiagId::UnknownTopology, F.at(8, 11), "ccc");
  Diagnostic &D = F.Diags.report(DiagId::UnknownTopology, F.at(4, 7), "bbb");
  F.Diags.note(D, DiagId::DidYouMean, F.at(0, 3), "aaa");
  F.Diags.setShowNames(true);
  std::string Out = F.flush();
  size_t B = Out.find("'bbb'"), Note = Out.find("did you mean 'aaa'"),
         C = Out.find("'ccc'");
  REQUIRE(B != std::string::npos);
  REQUIRE(Note != std::string::npos);
  REQUIRE(C != std::string::npos);
  CHECK(B < Note);
  CHECK(Note < C);
  CHECK(Out.find("[UnknownTopology]") != std::string::npos);
  CHECK(Out.find("t.sketch:1:1: note:") != std::string::npos);
}

TEST_CASE("location-less diagnostics print with the tool name") {
  Fixture F("");
  F.Diags.report(DiagId::CannotOpenFile, llvm::SMRange(), "x.sketch",
                 "No such file or directory");
  CHECK(F.flush() ==
        "tacclc: error: cannot open 'x.sketch': No such file or directory\n");
  CHECK(F.Diags.hasErrors());
}

TEST_CASE("every registered diagnostic has a name and a format") {
  for (DiagId Id : {DiagId::CannotOpenFile, DiagId::SyntaxError,
                    DiagId::LimitExceeded, DiagId::DidYouMean}) {
    CHECK(!nameOf(Id).empty());
    CHECK(std::string(formatOf(Id)).size() > 0);
  }
  CHECK(severityOf(DiagId::DidYouMean) == Severity::Note);
  CHECK(severityOf(DiagId::UnknownRank) == Severity::Error);
}
