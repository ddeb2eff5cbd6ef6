//===- tests/unit/solver/CbcSolverTest.cpp - CBC back end unit tests ------===//
//
// Solves small models with known answers and checks the status mapping,
// warm starts under a tiny time limit, determinism, option errors, and that
// nothing reaches stdout while CBC runs.
//
//===----------------------------------------------------------------------===//
#include "solver/Model.h"
#include "solver/Solver.h"
#include "tests/unit/solver/TestModels.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <unistd.h>

using namespace tacclc::solver;

using namespace tacclc::solver::test;

namespace {

constexpr double Inf = Model::Infinity;

SolveOptions quickOptions() {
  SolveOptions O;
  O.TimeLimitSeconds = 20;
  O.RelativeGap = 0;
  return O;
}

/// max 5b + 4y + 3z, b binary, y integer in [0, 6], z in [0, 10].
Model smallMax() {
  Model M;
  M.setSense(Sense::Maximize);
  M.addBinary("b", 5);
  M.addVariable("y", 0, 6, VarKind::Integer, 4);
  M.addVariable("z", 0, 10, VarKind::Continuous, 3);
  return M;
}

/// A feasible start for knapsack(): greedily take items in index order.
std::vector<double> greedyStart(const Model &M) {
  std::vector<double> X(M.numVariables(), 0.0);
  std::vector<double> Load(M.numConstraints(), 0.0);
  for (size_t I = 0; I < X.size(); ++I) {
    bool Fits = true;
    for (size_t R = 0; R < M.numConstraints(); ++R)
      Fits = Fits && Load[R] + M.constraints()[R].Terms[I].Coef <= 1000;
    if (!Fits)
      continue;
    X[I] = 1;
    for (size_t R = 0; R < M.numConstraints(); ++R)
      Load[R] += M.constraints()[R].Terms[I].Coef;
  }
  return X;
}

double objectiveOf(const Model &M, const std::vector<double> &X) {
  double Sum = M.getObjectiveOffset();
  for (size_t I = 0; I < X.size(); ++I)
    Sum += M.variables()[I].Objective * X[I];
  return Sum;
}

/// Runs \p Body with file descriptor \p Fd sent to a temporary file and
/// returns what was written there.
std::string captureFd(int Fd, const std::function<void()> &Body) {
  std::fflush(nullptr);
  char Path[] = "/tmp/tacclc-solver-capture-XXXXXX";
  int File = ::mkstemp(Path);
  REQUIRE(File >= 0);
  int Saved = ::dup(Fd);
  REQUIRE(Saved >= 0);
  ::dup2(File, Fd);
  Body();
  std::fflush(nullptr);
  ::dup2(Saved, Fd);
  ::close(Saved);
  ::close(File);
  std::ifstream In(Path);
  std::stringstream Text;
  Text << In.rdbuf();
  ::unlink(Path);
  return Text.str();
}

} // namespace

TEST_CASE("solveWithCbc finds known optima") {
  struct OptCase {
    const char *Title;
    std::function<void(Model &)> AddRows;
    double Objective;
    std::vector<double> Values;
  };
  const VarId B{0}, Y{1}, Z{2};
  const OptCase Cases[] = {
      {"one capacity row",
       [&](Model &M) {
         M.addLessEqual("cap", {{B, 2}, {Y, 1}, {Z, 3}}, 10);
       },
       31,
       {1, 6, 2.0 / 3}},
      {"two rows make y + z tight",
       [&](Model &M) {
         M.addLessEqual("cap", {{B, 2}, {Y, 1}, {Z, 3}}, 10);
         M.addLessEqual("pair", {{Y, 1}, {Z, 1}}, 5);
       },
       25,
       {1, 5, 0}},
      {"equality forces z",
       [&](Model &M) {
         M.addLessEqual("cap", {{B, 2}, {Y, 1}, {Z, 3}}, 10);
         M.addEqual("zfix", {{Z, 2}}, 3);
       },
       4 * 5 + 4.5,
       {0, 5, 1.5}},
      {"ranged row binds from above",
       [&](Model &M) {
         M.addConstraint("rng", {{B, 1}, {Y, 1}, {Z, 1}}, 2, 3.5);
       },
       5 + 8 + 1.5,
       {1, 2, 0.5}},
      {"ranged row binds from below with b excluded",
       [&](Model &M) {
         M.addConstraint("rng", {{Y, 1}, {Z, -1}}, 1.5, 2);
         M.addLessEqual("nob", {{B, 1}}, 0);
       },
       4 * 6 + 3 * 4.5,
       {0, 6, 4.5}},
  };
  for (const OptCase &Case : Cases) {
    CAPTURE(Case.Title);
    Model M = smallMax();
    Case.AddRows(M);
    Solution S = solveWithCbc(M, quickOptions());
    CAPTURE(S.Message);
    REQUIRE(S.Status == SolveStatus::Optimal);
    CHECK_FALSE(S.HitTimeLimit);
    REQUIRE(S.hasValues());
    CHECK(S.Objective == doctest::Approx(Case.Objective).epsilon(1e-9));
    CHECK(S.BestBound == doctest::Approx(Case.Objective).epsilon(1e-6));
    REQUIRE(S.Values.size() == 3);
    for (size_t I = 0; I < 3; ++I)
      CHECK(S.Values[I] == doctest::Approx(Case.Values[I]).epsilon(1e-9));
    // Integer values come back exactly integral.
    CHECK(S.Values[0] == std::round(S.Values[0]));
    CHECK(S.Values[1] == std::round(S.Values[1]));
    CHECK(S.Seconds >= 0);
    CHECK(M.maxViolation(S.Values) <= 1e-7);
  }
}

TEST_CASE("solveWithCbc handles minimisation and the objective offset") {
  Model M;
  VarId X = M.addVariable("x", 0, 10, VarKind::Integer, 3);
  VarId Y = M.addVariable("y", 0, Inf, VarKind::Integer, 2);
  VarId F = M.addVariable("f", -Inf, Inf, VarKind::Continuous, 1);
  M.addGreaterEqual("cover", {{X, 1}, {Y, 1}}, 3.5); // x + y >= 4
  M.addGreaterEqual("fmin", {{F, 1}}, -2.5);
  M.setObjectiveOffset(100);
  Solution S = solveWithCbc(M, quickOptions());
  CAPTURE(S.Message);
  REQUIRE(S.Status == SolveStatus::Optimal);
  CHECK(S.Objective == doctest::Approx(100 + 8 - 2.5));
  CHECK(S.BestBound == doctest::Approx(100 + 8 - 2.5));
  CHECK(S.Values == std::vector<double>{0, 4, -2.5});
}

TEST_CASE("solveWithCbc reports infeasible and unbounded models") {
  struct StatusCase {
    const char *Title;
    std::function<Model()> Build;
    SolveStatus Expected;
  };
  const StatusCase Cases[] = {
      {"LP relaxation infeasible",
       [] {
         Model M;
         VarId B = M.addBinary("b", 1), C = M.addBinary("c", 1);
         M.addGreaterEqual("both", {{B, 1}, {C, 1}}, 3);
         return M;
       },
       SolveStatus::Infeasible},
      {"only integrality makes it infeasible",
       [] {
         Model M;
         VarId X = M.addVariable("x", 0, 10, VarKind::Integer, 1);
         VarId Y = M.addVariable("y", 0, 10, VarKind::Integer, 1);
         M.addEqual("odd", {{X, 2}, {Y, 4}}, 5);
         return M;
       },
       SolveStatus::Infeasible},
      {"inverted ranged row",
       [] {
         Model M;
         VarId X = M.addVariable("x", 0, 10, VarKind::Continuous, 1);
         M.addConstraint("bad", {{X, 1}}, 3, 2);
         return M;
       },
       SolveStatus::Infeasible},
      {"unbounded LP",
       [] {
         Model M;
         M.setSense(Sense::Maximize);
         VarId X = M.addVariable("x", 0, Inf, VarKind::Continuous, 1);
         VarId Y = M.addVariable("y", 0, Inf, VarKind::Continuous, 1);
         M.addLessEqual("diff", {{X, 1}, {Y, -1}}, 1);
         return M;
       },
       SolveStatus::Unbounded},
      {"unbounded MIP",
       [] {
         Model M;
         VarId X = M.addVariable("x", -Inf, Inf, VarKind::Integer, 1);
         VarId Y = M.addVariable("y", 0, 3, VarKind::Continuous, 1);
         M.addLessEqual("r", {{X, 1}, {Y, 1}}, 5);
         return M;
       },
       SolveStatus::Unbounded},
  };
  for (const StatusCase &Case : Cases) {
    CAPTURE(Case.Title);
    Solution S = solveWithCbc(Case.Build(), quickOptions());
    CAPTURE(S.Message);
    CHECK(statusName(S.Status) == statusName(Case.Expected));
    CHECK_FALSE(S.hasValues());
    CHECK(S.Values.empty());
    CHECK(std::isnan(S.Objective));
  }
}

TEST_CASE("solveWithCbc honours a warm start under a tiny time limit") {
  Model M = knapsack();
  SolveOptions O;
  O.TimeLimitSeconds = 0.01;
  O.WarmStart = greedyStart(M);
  double StartObjective = objectiveOf(M, O.WarmStart);
  REQUIRE(StartObjective > 0);
  Solution S = solveWithCbc(M, O);
  CAPTURE(S.Message);
  CAPTURE(statusName(S.Status));
  REQUIRE(
      (S.Status == SolveStatus::Feasible || S.Status == SolveStatus::Optimal));
  CHECK(S.Objective >= StartObjective - 1e-9);
  CHECK(S.Objective == doctest::Approx(objectiveOf(M, S.Values)));
  // Maximisation: a known bound is never below the incumbent.
  CHECK((std::isnan(S.BestBound) || S.BestBound >= S.Objective - 1e-6));
  for (double V : S.Values)
    CHECK((V == 0.0 || V == 1.0));
  CHECK(S.Seconds < 5);
}

TEST_CASE("solveWithCbc returns a feasible warm start when time runs out") {
  // With 0.1 ms CBC stops in preprocessing, before it reads the warm start.
  for (unsigned Items : {60u, 100u}) {
    CAPTURE(Items);
    Model M = knapsack(Items);
    SolveOptions O;
    O.TimeLimitSeconds = 0.0001;
    O.WarmStart = greedyStart(M);
    Solution S = solveWithCbc(M, O);
    CAPTURE(S.Message);
    CAPTURE(statusName(S.Status));
    REQUIRE(S.hasValues());
    CHECK(S.Objective >= objectiveOf(M, O.WarmStart) - 1e-9);
    CHECK(M.maxViolation(S.Values) <= 1e-7);
    // Stopped by the clock, and says so (a flag, not only a message).
    if (S.Status == SolveStatus::Feasible)
      CHECK(S.HitTimeLimit);
    CHECK(S.HitTimeLimit != (S.Status == SolveStatus::Optimal));
  }
}

TEST_CASE("solveWithCbc keeps to SolveOptions::Until") {
  Model M = knapsack(100);
  SolveOptions O;
  O.TimeLimitSeconds = 60;
  O.WarmStart = greedyStart(M);
  // No time left: the warm start, at once, without CBC.
  O.Until = tacclc::Deadline::after(-1);
  Solution S = solveWithCbc(M, O);
  CAPTURE(S.Message);
  REQUIRE(S.Status == SolveStatus::Feasible);
  CHECK(S.HitTimeLimit);
  CHECK(S.Values == O.WarmStart);
  CHECK(S.Seconds < 1);
  CHECK(S.PeakMemoryBytes == 0);
  // A little time left: CBC stops at its next search node after it (with
  // its incumbent), or its process is stopped shortly after.
  O.Until = tacclc::Deadline::after(0.5);
  S = solveWithCbc(M, O);
  CAPTURE(S.Message);
  REQUIRE(S.hasValues());
  CHECK(S.Seconds < 0.5 + 0.6 + 1);
  CHECK(S.Objective >= objectiveOf(M, O.WarmStart) - 1e-9);
  CHECK(S.PeakMemoryBytes > 0);
}

TEST_CASE("solveWithCbc falls back to the warm start when CBC runs out of "
          "memory") {
  Model M = knapsack(100);
  SolveOptions O;
  O.TimeLimitSeconds = 30;
  O.WarmStart = greedyStart(M);
  O.MemoryLimitBytes = 1; // nothing beyond what the child inherits
  Solution S = solveWithCbc(M, O);
  CAPTURE(S.Message);
  REQUIRE(S.Status == SolveStatus::Feasible);
  CHECK(S.Message.find("ran out of memory") != std::string::npos);
  CHECK(S.Values == O.WarmStart);
  O.WarmStart.clear();
  S = solveWithCbc(M, O);
  CHECK(S.Status == SolveStatus::Error);
  CHECK(S.Message.find("ran out of memory") != std::string::npos);
}

TEST_CASE("solveWithCbc ignores an infeasible warm start") {
  Model M = knapsack(40, 20);
  std::vector<double> AllIn(M.numVariables(), 1.0); // far over capacity
  REQUIRE(M.maxViolation(AllIn) > 1);
  for (double Seconds : {0.0001, 20.0}) {
    CAPTURE(Seconds);
    SolveOptions O;
    O.TimeLimitSeconds = Seconds;
    O.WarmStart = AllIn;
    Solution S = solveWithCbc(M, O);
    CAPTURE(S.Message);
    if (S.hasValues()) {
      CHECK(S.Values != AllIn);
      CHECK(M.maxViolation(S.Values) <= 1e-7);
    } else {
      CHECK(S.Status == SolveStatus::NoSolution);
    }
  }
}

TEST_CASE("solveWithCbc never calls a timed-out model infeasible") {
  // CBC's preprocessing says "infeasible" when the time limit expires in it
  // (seen with 100 items and 0.1 ms); these models are all feasible (x = 0).
  struct TimeoutCase {
    unsigned Items;
    double Seconds;
  };
  const TimeoutCase Cases[] = {{60, 0.001}, {100, 0.0001}, {200, 0.001}};
  for (const TimeoutCase &Case : Cases) {
    CAPTURE(Case.Items);
    CAPTURE(Case.Seconds);
    Model M = knapsack(Case.Items);
    SolveOptions O;
    O.TimeLimitSeconds = Case.Seconds;
    Solution S = solveWithCbc(M, O);
    CAPTURE(S.Message);
    CAPTURE(statusName(S.Status));
    CHECK((S.Status == SolveStatus::NoSolution ||
           S.Status == SolveStatus::Feasible ||
           S.Status == SolveStatus::Optimal));
    CHECK(S.hasValues() == !S.Values.empty());
    if (S.Status == SolveStatus::NoSolution)
      CHECK(S.HitTimeLimit);
    if (S.Status == SolveStatus::Optimal)
      CHECK_FALSE(S.HitTimeLimit);
  }
}

TEST_CASE("solveWithCbc is deterministic with one thread") {
  Model M = knapsack(40, 20);
  SolveOptions O = quickOptions();
  O.RelativeGap = 1e-4;
  Solution First = solveWithCbc(M, O);
  Solution Second = solveWithCbc(M, O);
  REQUIRE(First.Status == SolveStatus::Optimal);
  CHECK(Second.Status == First.Status);
  CHECK(Second.Objective == First.Objective);
  CHECK(Second.BestBound == First.BestBound);
  CHECK(Second.Values == First.Values);
}

TEST_CASE("solveWithCbc prints nothing on stdout") {
  Model Infeasible;
  VarId B = Infeasible.addBinary("b", 1);
  Infeasible.addGreaterEqual("r", {{B, 1}}, 2);
  Model Small = smallMax();
  Small.addLessEqual("cap", {{VarId{0}, 2}, {VarId{1}, 1}, {VarId{2}, 3}}, 10);

  std::string Out = captureFd(STDOUT_FILENO, [&] {
    std::printf("before ");
    SolveOptions O = quickOptions();
    CHECK(solveWithCbc(Small, O).Status == SolveStatus::Optimal);
    CHECK(solveWithCbc(Infeasible, O).Status == SolveStatus::Infeasible);
    O.TimeLimitSeconds = 0.01;
    O.WarmStart.clear();
    Model K = knapsack();
    O.WarmStart = greedyStart(K);
    CHECK(solveWithCbc(K, O).hasValues());
    std::printf("after");
  });
  CHECK(Out == "before after");

  SUBCASE("the log goes to stderr") {
    SolveOptions O = quickOptions();
    O.Log = true;
    std::string Err;
    std::string LogOut = captureFd(STDOUT_FILENO, [&] {
      Err = captureFd(STDERR_FILENO, [&] {
        CHECK(solveWithCbc(Small, O).Status == SolveStatus::Optimal);
      });
    });
    CHECK(LogOut.empty());
    CHECK(Err.find("Optimal") != std::string::npos);
  }
}

TEST_CASE("solveWithCbc rejects bad options and handles empty models") {
  SUBCASE("warm start of the wrong size") {
    Model M = smallMax();
    SolveOptions O = quickOptions();
    O.WarmStart = {1, 2};
    Solution S = solveWithCbc(M, O);
    CHECK(S.Status == SolveStatus::Error);
    CHECK(S.Message == "warm start has 2 values for 3 variables");
    CHECK_FALSE(S.hasValues());
  }
  SUBCASE("negative gap") {
    SolveOptions O = quickOptions();
    O.RelativeGap = -1;
    CHECK(solveWithCbc(smallMax(), O).Status == SolveStatus::Error);
  }
  SUBCASE("no variables, satisfiable rows") {
    Model M;
    M.setObjectiveOffset(4);
    M.addConstraint("trivial", {}, -1, 1);
    Solution S = solveWithCbc(M, quickOptions());
    CHECK(S.Status == SolveStatus::Optimal);
    CHECK(S.Objective == 4);
    CHECK(S.Values.empty());
  }
  SUBCASE("no variables, unsatisfiable row") {
    Model M;
    M.addGreaterEqual("impossible", {}, 1);
    CHECK(solveWithCbc(M, quickOptions()).Status == SolveStatus::Infeasible);
  }
  SUBCASE("variables but no rows") {
    Model M = smallMax();
    Solution S = solveWithCbc(M, quickOptions());
    REQUIRE(S.Status == SolveStatus::Optimal);
    CHECK(S.Objective == 5 + 24 + 30);
  }
}

TEST_CASE("statusName gives stable names") {
  const std::pair<SolveStatus, const char *> Names[] = {
      {SolveStatus::Optimal, "optimal"},
      {SolveStatus::Feasible, "feasible"},
      {SolveStatus::Infeasible, "infeasible"},
      {SolveStatus::Unbounded, "unbounded"},
      {SolveStatus::NoSolution, "no-solution"},
      {SolveStatus::Error, "error"},
  };
  for (auto [Status, Name] : Names)
    CHECK(statusName(Status) == Name);
}
