//===- tests/unit/solver/ProgressTest.cpp - live solver progress tests ----===//
//
// The progress line format, the ProgressReporter styles (Line, Lines, Off)
// written to a temporary file, and solves with progress on: the solution is
// the same as with progress off, Off prints nothing, and the lines on stderr
// show values in the model's terms (sense and objective offset).
//
//===----------------------------------------------------------------------===//
#include "solver/Progress.h"
#include "solver/Model.h"
#include "solver/Solver.h"
#include "tests/unit/solver/TestModels.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace tacclc::solver;

using namespace tacclc::solver::test;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
using Clock = ProgressReporter::Clock;

/// A temporary file open for writing, read back with text().
class TempFile {
public:
  TempFile() {
    Fd = ::mkstemp(Path);
    REQUIRE(Fd >= 0);
  }
  ~TempFile() {
    ::close(Fd);
    ::unlink(Path);
  }
  int fd() const { return Fd; }
  std::string text() const {
    std::ifstream In(Path);
    std::stringstream Text;
    Text << In.rdbuf();
    return Text.str();
  }
  /// Waits up to 10 s for the file to hold something.
  std::string waitForText() const {
    for (int I = 0; I < 1000 && text().empty(); ++I)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return text();
  }

private:
  char Path[40] = "/tmp/tacclc-progress-test-XXXXXX";
  int Fd = -1;
};

/// Runs \p Body with stderr sent to a temporary file; returns what it got.
std::string captureStderr(const std::function<void()> &Body) {
  TempFile File;
  std::fflush(nullptr);
  int Saved = ::dup(STDERR_FILENO);
  REQUIRE(Saved >= 0);
  ::dup2(File.fd(), STDERR_FILENO);
  Body();
  std::fflush(nullptr);
  ::dup2(Saved, STDERR_FILENO);
  ::close(Saved);
  return File.text();
}

std::vector<std::string> splitLines(const std::string &Text) {
  std::vector<std::string> Lines;
  std::stringstream In(Text);
  for (std::string Line; std::getline(In, Line);)
    Lines.push_back(Line);
  return Lines;
}

/// A covering problem (minimise, with an offset) that needs some search.
Model cover(unsigned Sets, unsigned Elements) {
  Lcg Rand(777);
  auto Next = [&Rand](uint32_t Mod) { return Rand.next(Mod); };
  Model M;
  for (unsigned S = 0; S < Sets; ++S)
    M.addVariable("s" + std::to_string(S), 0, 2, VarKind::Integer,
                  3 + Next(20));
  for (unsigned E = 0; E < Elements; ++E) {
    std::vector<Term> Terms;
    for (unsigned S = 0; S < Sets; ++S)
      if (Next(4) == 0)
        Terms.push_back({VarId{S}, double(1 + Next(3))});
    M.addGreaterEqual("row" + std::to_string(E), Terms, 2 + Next(3));
  }
  M.setObjectiveOffset(-1000);
  return M;
}

SolveOptions baseOptions() {
  SolveOptions O;
  O.TimeLimitSeconds = 30;
  O.RelativeGap = 1e-4;
  return O;
}

} // namespace

TEST_CASE("formatProgress writes one status line, unknown values left out") {
  ProgressValues V;
  V.Phase = "search";
  V.Incumbent = 38.457;
  V.Bound = 26.366;
  CHECK(formatProgress("routing", 3.21, V) ==
        "[routing] 3.2 s  search  incumbent 38.457  bound 26.366  gap 31.4%");
  CHECK(formatProgress("", 0, ProgressValues()) == "[cbc] 0.0 s");
  ProgressValues Presolve;
  Presolve.Phase = "presolve";
  Presolve.WarmStart = 40.5;
  CHECK(formatProgress("s", 12.04, Presolve) ==
        "[s] 12.0 s  presolve  warm start 40.5");
  Presolve.Bound = 10;
  CHECK(formatProgress("s", 12.04, Presolve) ==
        "[s] 12.0 s  presolve  warm start 40.5  bound 10");
  V.Incumbent = 1456;
  V.Bound = 1488.38;
  CHECK(formatProgress("s", 1, V) ==
        "[s] 1.0 s  search  incumbent 1456  bound 1488.38  gap 2.2%");
  V.Incumbent = -0.0;
  V.Bound = 0;
  CHECK(formatProgress("s", 1, V) == "[s] 1.0 s  search  incumbent 0  bound "
                                     "0  gap 0.0%");
  V.Incumbent = 0;
  V.Bound = -2;
  CHECK(formatProgress("s", 1, V) ==
        "[s] 1.0 s  search  incumbent 0  bound -2");
  V.Incumbent = 5;
  V.Bound = std::numeric_limits<double>::infinity();
  CHECK(formatProgress("s", 1, V) == "[s] 1.0 s  search  incumbent 5");
  V.Incumbent = V.Bound = NaN;
  CHECK(formatProgress("s", 1, V) == "[s] 1.0 s  search");
}

TEST_CASE("ProgressReporter styles") {
  // A start 5 s ago makes a Line due at once.
  Clock::time_point LongAgo = Clock::now() - std::chrono::seconds(5);

  SUBCASE("Lines: a phase once it has lasted a second, then a last line") {
    TempFile File;
    ProgressReporter R(ProgressMode::Lines, "t", LongAgo, File.fd());
    CHECK(R.enabled());
    R.phase("building the model (3 variables, 2 rows, 4 nonzeros)");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(File.text().empty()); // not a second yet
    std::string First = File.waitForText();
    REQUIRE(First.rfind("[t] ", 0) == 0);
    CHECK(std::strtod(First.c_str() + 4, nullptr) >= 6.0); // 5 s + 1 s
    CHECK(First.find("  building the model (3 variables") != std::string::npos);
    LiveSolve Live;
    R.watch(&Live, 12);
    R.finish("optimal", 10, 9);
    std::vector<std::string> Lines = splitLines(File.text());
    REQUIRE(Lines.size() == 2);
    for (const std::string &Line : Lines)
      CHECK(Line.find('\r') == std::string::npos);
    CHECK(Lines.back().find("  optimal  incumbent 10  bound 9  gap 10.0%") !=
          std::string::npos);
    CHECK(File.text().back() == '\n');
  }
  SUBCASE("Lines: a solver's phases from its LiveSolve, one line each") {
    TempFile File;
    ProgressReporter R(ProgressMode::Lines, "t", Clock::now(), File.fd());
    LiveSolve Live;
    R.watch(&Live, 40);
    Live.setPhase(SolvePhase::Presolve);
    std::this_thread::sleep_for(std::chrono::milliseconds(2200));
    Live.setPhase(SolvePhase::Search);
    Live.Incumbent.store(30);
    Live.Bound.store(27);
    std::this_thread::sleep_for(std::chrono::milliseconds(2200));
    R.finish("stopped at the time limit", 30, 27);
    std::vector<std::string> Lines = splitLines(File.text());
    REQUIRE(Lines.size() == 3); // presolve, search, the end: not one a second
    CHECK(Lines[0].find("  presolve  warm start 40") != std::string::npos);
    CHECK(Lines[1].find("  search  incumbent 30  bound 27  gap 10.0%") !=
          std::string::npos);
    CHECK(Lines[2].find("  stopped at the time limit  incumbent 30") !=
          std::string::npos);
  }
  SUBCASE("Line: rewritten in place, cleared at the end") {
    TempFile File;
    {
      ProgressReporter R(ProgressMode::Line, "t", LongAgo, File.fd());
      R.phase("computing the warm start");
      File.waitForText();
      R.finish("optimal", 4, 3);
    }
    std::string Text = File.text();
    CHECK(Text.rfind("\r[t] 5.", 0) == 0);
    CHECK(Text.find("computing the warm start") != std::string::npos);
    CHECK(Text.find('\n') == std::string::npos);
    REQUIRE(Text.size() > 4);
    CHECK(Text.substr(Text.size() - 4) == "\r\033[K");
  }
  SUBCASE("Lines: a quick stage prints nothing") {
    TempFile File;
    {
      ProgressReporter R(ProgressMode::Lines, "t", Clock::now(), File.fd());
      R.phase("computing the warm start");
      LiveSolve Live;
      R.watch(&Live, NaN);
      R.finish("optimal", 1, 1);
    }
    CHECK(File.text().empty());
  }
  SUBCASE("Off: nothing at all") {
    TempFile File;
    {
      ProgressReporter R(ProgressMode::Off, "t", LongAgo, File.fd());
      CHECK_FALSE(R.enabled());
      R.phase("presolve");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      R.finish("optimal", 1, 1);
    }
    CHECK(File.text().empty());
  }
}

TEST_CASE("solveWithCbc with progress returns the same solution") {
  struct ProgressCase {
    const char *Title;
    Model M;
  };
  ProgressCase Cases[] = {{"knapsack (maximise)", knapsack(40, 20)},
                          {"cover (minimise, offset)", cover(40, 30)}};
  for (ProgressCase &Case : Cases) {
    for (bool Isolate : {true, false}) {
      CAPTURE(Case.Title);
      CAPTURE(Isolate);
      SolveOptions O = baseOptions();
      O.Isolate = Isolate;
      O.ProgressLabel = "test";
      Solution Off;
      std::string OffErr =
          captureStderr([&] { Off = solveWithCbc(Case.M, O); });
      REQUIRE(Off.Status == SolveStatus::Optimal);
      CHECK(OffErr.empty()); // the default stays silent

      for (ProgressMode Mode : {ProgressMode::Lines, ProgressMode::Line}) {
        O.Progress = Mode;
        Solution On;
        std::string Err = captureStderr([&] { On = solveWithCbc(Case.M, O); });
        CHECK(On.Status == Off.Status);
        CHECK(On.Objective == Off.Objective);
        CHECK(On.BestBound == Off.BestBound);
        CHECK(On.Values == Off.Values);
        if (Mode == ProgressMode::Lines) {
          // A quick solve prints nothing; a longer one only its phases.
          for (const std::string &Line : splitLines(Err)) {
            CHECK(Line.rfind("[test] ", 0) == 0);
            CHECK(Line.find("nan") == std::string::npos);
            CHECK(Line.find(" - ") == std::string::npos);
          }
        } else if (!Err.empty()) {
          CHECK(Err.substr(Err.size() - 4) == "\r\033[K");
        }
      }
    }
  }
}

TEST_CASE("progress lines during the search are in the model's terms") {
  // With a maximisation that CBC turns into a minimisation and an offset,
  // every line must keep incumbent <= final optimum <= bound (within the
  // gap). The solve is shown on a reporter whose phases are due at once.
  Model M = knapsack(60, 30);
  M.setObjectiveOffset(100000);
  SolveOptions O = baseOptions();
  O.RelativeGap = 0;
  Solution S;
  std::string Err = captureStderr([&] {
    ProgressReporter R(ProgressMode::Line, "knap",
                       Clock::now() - std::chrono::seconds(5));
    O.Reporter = &R;
    S = solveWithCbc(M, O);
  });
  REQUIRE(S.Status == SolveStatus::Optimal);
  for (size_t At = Err.find('\r'); At != std::string::npos;
       At = Err.find('\r', At + 1)) {
    std::string Line = Err.substr(At + 1, Err.find('\r', At + 1) - At - 1);
    CAPTURE(Line);
    CHECK(Line.find("nan") == std::string::npos);
    size_t I = Line.find("incumbent "), B = Line.find("bound ");
    if (I != std::string::npos) {
      double Incumbent = std::strtod(Line.c_str() + I + 10, nullptr);
      CHECK(Incumbent > 100000);
      CHECK(Incumbent <= S.Objective + 1e-6);
    }
    if (B != std::string::npos)
      CHECK(std::strtod(Line.c_str() + B + 6, nullptr) >= S.Objective - 1e-6);
  }
}
