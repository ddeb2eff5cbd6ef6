//===- tests/unit/support/DiagnosticsTest.cpp - DiagnosticEngine tests ----===//
//
// Rendering (prefix, source line, caret and range underline), sorting by
// location, notes, fix-its, names and error counting, on in-memory buffers.
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

TEST_CASE("a suggestion is a note and a fix-it; the text output is unchanged") {
  Fixture F("aaa bbb\n");
  Diagnostic &D = F.Diags.report(DiagId::UnknownTopology, F.at(4, 7), "bbb");
  F.Diags.suggest(D, F.at(4, 7), "aaa", F.at(0, 3));
  REQUIRE(D.Notes.size() == 1);
  CHECK(D.Notes[0].Message == "did you mean 'aaa'?");
  CHECK(D.Notes[0].Range.Start.getPointer() == F.Base);
  REQUIRE(D.FixIts.size() == 1);
  CHECK(D.FixIts[0].Range.Start.getPointer() == F.Base + 4);
  CHECK(D.FixIts[0].Range.End.getPointer() == F.Base + 7);
  CHECK(D.FixIts[0].Replacement == "aaa");
  // Without a declaration to point to, the note is at the misspelling.
  Diagnostic &E = F.Diags.report(DiagId::UnknownName, F.at(4, 7), "bbb");
  F.Diags.suggest(E, F.at(4, 7), "aaa", llvm::SMRange());
  CHECK(E.Notes[0].Range.Start.getPointer() == F.Base + 4);
  // A fix-it of its own, on a message that names the suggestion.
  Diagnostic &G = F.Diags.report(DiagId::UnknownClassSuggest, F.at(4, 7), "m",
                                 "bbb", "aaa");
  F.Diags.fixIt(G, F.at(4, 7), "aaa");
  CHECK(G.FixIts.size() == 1);
  CHECK(G.Notes.empty());
  Fixture Plain("aaa bbb\n");
  Plain.Diags.note(
      Plain.Diags.report(DiagId::UnknownTopology, Plain.at(4, 7), "bbb"),
      DiagId::DidYouMean, Plain.at(0, 3), "aaa");
  Fixture Fixed("aaa bbb\n");
  Fixed.Diags.suggest(
      Fixed.Diags.report(DiagId::UnknownTopology, Fixed.at(4, 7), "bbb"),
      Fixed.at(4, 7), "aaa", Fixed.at(0, 3));
  CHECK(Fixed.flush() == Plain.flush());
}

TEST_CASE("diagnostics beyond the cap take no fix-its") {
  Fixture F("aaa bbb\n");
  for (unsigned I = 0; I < DiagnosticEngine::MaxPerKind; ++I)
    F.Diags.report(DiagId::UnknownName, F.at(4, 7), "bbb");
  Diagnostic &Over = F.Diags.report(DiagId::UnknownName, F.at(4, 7), "bbb");
  F.Diags.suggest(Over, F.at(4, 7), "aaa", F.at(0, 3));
  CHECK(Over.FixIts.empty());
  CHECK(Over.Notes.empty());
  CHECK(F.Diags.pending().size() == DiagnosticEngine::MaxPerKind);
  for (const Diagnostic &D : F.Diags.pending())
    CHECK(D.FixIts.empty());
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

TEST_CASE("no kind is printed more than MaxPerKind times; the rest counted") {
  Fixture F("abc\n");
  const unsigned Extra = 1000;
  for (unsigned I = 0; I < DiagnosticEngine::MaxPerKind + Extra; ++I)
    F.Diags.report(DiagId::UnknownName, F.at(0, 1), "x");
  F.Diags.report(DiagId::DivisionByZero, F.at(1, 2), "y");
  CHECK(F.Diags.errorCount() == DiagnosticEngine::MaxPerKind + Extra + 1);
  CHECK(F.Diags.pending().size() == DiagnosticEngine::MaxPerKind + 1);
  std::string Out = F.flush();
  size_t Shown = 0;
  for (size_t At = 0;
       (At = Out.find("unknown name 'x'", At)) != std::string::npos; ++At)
    ++Shown;
  CHECK(Shown == DiagnosticEngine::MaxPerKind);
  CHECK(Out.find("division by zero") != std::string::npos);
  CHECK(Out.find("tacclc: note: 1000 more errors of this kind (UnknownName) "
                 "were not shown") != std::string::npos);
  // A flush starts the count again.
  F.Diags.report(DiagId::UnknownName, F.at(0, 1), "z");
  CHECK(F.flush().find("unknown name 'z'") != std::string::npos);
}

TEST_CASE("a long source line is shown as a window around the location") {
  std::string Text = std::string(1000, 'a') + "XYZ" + std::string(1000, 'b');
  Fixture F(Text + "\n");
  F.Diags.report(DiagId::UnknownName, F.at(1000, 1003), "XYZ");
  std::string Out = F.flush();
  CHECK(Out.find("t.sketch:1:1001: error: unknown name 'XYZ'\n") == 0);
  // The line shown is the window, elided at both ends, with the caret and
  // the range under XYZ.
  size_t Line = Out.find('\n') + 1;
  size_t Next = Out.find('\n', Line);
  std::string Shown = Out.substr(Line, Next - Line);
  CHECK(Shown.size() ==
        DiagnosticEngine::MaxShownLineLength + 2 * std::string("...").size());
  CHECK(Shown.substr(0, 3) == "...");
  size_t Xyz = Shown.find("XYZ");
  REQUIRE(Xyz != std::string::npos);
  std::string Caret = Out.substr(Next + 1);
  CHECK(Caret.find("^~~") == Xyz);
  CHECK(Out.size() < 600);
}
