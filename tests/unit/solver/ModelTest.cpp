//===- tests/unit/solver/ModelTest.cpp - solver::Model unit tests ---------===//
//
// Checks term merging, row bounds of the add* helpers, name rules, bound
// normalisation and the size counters of solver::Model.
//
//===----------------------------------------------------------------------===//
#include "solver/Model.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace tacclc::solver;

namespace {

/// A model with variables v0..v3.
Model fourVariables() {
  Model M;
  for (const char *Name : {"v0", "v1", "v2", "v3"})
    M.addVariable(Name, 0, 10, VarKind::Continuous);
  return M;
}

struct MergeCase {
  const char *Title;
  std::vector<Term> Input;
  std::vector<Term> Expected;
};

} // namespace

TEST_CASE("Model merges repeated terms and drops zeros, keeping order") {
  const VarId A{0}, B{1}, C{2}, D{3};
  const MergeCase Cases[] = {
      {"distinct terms are kept as given",
       {{C, 1}, {A, 2}, {B, 3}},
       {{C, 1}, {A, 2}, {B, 3}}},
      {"repeats are summed at the first occurrence",
       {{B, 1}, {A, 2}, {B, 0.5}, {A, -1}},
       {{B, 1.5}, {A, 1}}},
      {"zero coefficients are dropped", {{A, 0}, {B, 1}, {C, 0}}, {{B, 1}}},
      {"terms that cancel are dropped",
       {{D, 2}, {A, 1}, {D, -2}, {C, 4}},
       {{A, 1}, {C, 4}}},
      {"everything cancels", {{A, 1}, {A, -1}}, {}},
      {"empty stays empty", {}, {}},
  };
  for (const MergeCase &Case : Cases) {
    CAPTURE(Case.Title);
    Model M = fourVariables();
    M.addLessEqual("row", Case.Input, 1);
    const Constraint &Row = M.constraints().back();
    REQUIRE(Row.Terms.size() == Case.Expected.size());
    for (size_t I = 0; I < Row.Terms.size(); ++I) {
      CHECK(Row.Terms[I].Var == Case.Expected[I].Var);
      CHECK(Row.Terms[I].Coef == Case.Expected[I].Coef);
    }
    CHECK(M.numNonzeros() == Case.Expected.size());
  }
}

TEST_CASE("Model row helpers set the right sides") {
  constexpr double Inf = Model::Infinity;
  Model M = fourVariables();
  const VarId A{0};
  M.addLessEqual("le", {{A, 1}}, 3);
  M.addGreaterEqual("ge", {{A, 1}}, -2);
  M.addEqual("eq", {{A, 1}}, 7);
  M.addConstraint("rng", {{A, 1}}, 1, 2);
  M.addConstraint("huge", {{A, 1}}, -1e40,
                  std::numeric_limits<double>::infinity());
  struct Expect {
    const char *Name;
    double Lower, Upper;
  };
  const Expect Expected[] = {{"le", -Inf, 3},
                             {"ge", -2, Inf},
                             {"eq", 7, 7},
                             {"rng", 1, 2},
                             {"huge", -Inf, Inf}};
  REQUIRE(M.constraints().size() == std::size(Expected));
  for (size_t I = 0; I < std::size(Expected); ++I) {
    CAPTURE(Expected[I].Name);
    const Constraint &C = M.constraints()[I];
    CHECK(C.Name == Expected[I].Name);
    CHECK(C.Lower == Expected[I].Lower);
    CHECK(C.Upper == Expected[I].Upper);
  }
}

TEST_CASE("Model variables: kinds, bounds, counters and lookup") {
  Model M;
  VarId X = M.addVariable("x", -1e35, 1e31, VarKind::Continuous, 2.0);
  VarId B = M.addBinary("b", -1.0);
  VarId N = M.addVariable("n", 0, 6, VarKind::Integer);
  CHECK(X == VarId{0});
  CHECK(B == VarId{1});
  CHECK(N == VarId{2});
  CHECK(X < B);
  CHECK(B != N);

  CHECK(M.variable(X).Lower == -Model::Infinity);
  CHECK(M.variable(X).Upper == Model::Infinity);
  CHECK(M.variable(B).Lower == 0);
  CHECK(M.variable(B).Upper == 1);
  CHECK(M.variable(B).Kind == VarKind::Binary);
  CHECK(M.variable(B).Objective == -1.0);
  CHECK(M.numVariables() == 3);
  CHECK(M.numIntegerVariables() == 2);

  M.setObjectiveCoef(N, 4.5);
  CHECK(M.variables()[2].Objective == 4.5);
  CHECK(M.getSense() == Sense::Minimize);
  M.setSense(Sense::Maximize);
  CHECK(M.getSense() == Sense::Maximize);
  CHECK(M.getObjectiveOffset() == 0.0);
  M.setObjectiveOffset(-3.25);
  CHECK(M.getObjectiveOffset() == -3.25);

  REQUIRE(M.lookup("n").has_value());
  CHECK(*M.lookup("n") == N);
  CHECK_FALSE(M.lookup("N").has_value());
  CHECK_FALSE(M.lookup("missing").has_value());

  M.addLessEqual("r1", {{X, 1}, {N, 2}}, 4);
  M.addEqual("r2", {{B, 1}}, 1);
  CHECK(M.numConstraints() == 2);
  CHECK(M.numNonzeros() == 3);
}

TEST_CASE("Model::isValidName follows the LP file rules") {
  struct NameCase {
    const char *Name;
    bool Valid;
  };
  const NameCase Cases[] = {
      {"x", true},         {"x_0_3", true},    {"send.c3.r0(1)", true},
      {"_tmp", true},      {"T{max}#1", true}, {"edge_1", true},
      {"e", true},         {"E1x", false}, // reads like an exponent
      {"e5", false},                       // reads like an exponent
      {"", false},                         // empty
      {"1x", false},                       // leading digit
      {".x", false},                       // leading period
      {"x[0]", false},                     // CBC's LP reader rejects brackets
      {"x,y", false},                      // CBC's LP reader rejects commas
      {"a b", false},                      // blank
      {"a-b", false},                      // operator
      {"a+b", false},                      // operator
      {"a:b", false},                      // row-name separator
      {"a<b", false},                      // relation
      {"a\\b", false},                     // comment start
      {"a/b", false},                      // comment start for CBC
      {"end", false},                      // keyword
      {"Free", false},                     // keyword, any case
      {"INF", false},                      // keyword
      {"st", false},                       // keyword
      {"Subject", false},                  // keyword
      {"binaries", false},                 // keyword
      {"generals2", true},                 // not a keyword
  };
  for (const NameCase &Case : Cases) {
    CAPTURE(Case.Name);
    CHECK(Model::isValidName(Case.Name) == Case.Valid);
  }
  CHECK(Model::isValidName(std::string(Model::MaxNameLength, 'a')));
  CHECK_FALSE(Model::isValidName(std::string(Model::MaxNameLength + 1, 'a')));
}

TEST_CASE("Model keeps insertion order of variables and constraints") {
  Model M;
  const char *Names[] = {"zeta", "alpha", "mid", "beta"};
  for (const char *Name : Names)
    M.addBinary(Name);
  for (const char *Name : Names)
    M.addLessEqual(std::string("c_") + Name, {{*M.lookup(Name), 1}}, 1);
  for (size_t I = 0; I < std::size(Names); ++I) {
    CHECK(M.variables()[I].Name == Names[I]);
    CHECK(M.constraints()[I].Name == std::string("c_") + Names[I]);
  }
}

TEST_CASE("Model::maxViolation measures bounds, integrality and rows") {
  constexpr double Inf = Model::Infinity;
  Model M;
  VarId X = M.addVariable("x", 0, 4, VarKind::Continuous);
  VarId N = M.addVariable("n", -Inf, Inf, VarKind::Integer);
  VarId B = M.addBinary("b");
  M.addLessEqual("le", {{X, 1}, {N, 1}}, 110);
  M.addGreaterEqual("ge", {{X, 1}, {B, -1}}, -0.5);
  M.addEqual("eq", {{N, 2}, {B, 1}}, 200);
  struct ViolationCase {
    const char *Title;
    std::vector<double> Values;
    double Expected;
  };
  const ViolationCase Cases[] = {
      {"feasible", {0, 100, 0}, 0},
      {"upper bound", {4.5, 98, 4}, 3}, // b = 4 > 1 beats x = 4.5 > 4
      {"lower bound, relative to max(1, |bound|)", {-0.25, 100, 0}, 0.25},
      {"integrality", {0, 99.75, 0.5}, 0.5},         // b is 0.5 from an integer
      {"row, relative to |rhs|", {0, 102, 0}, 0.02}, // 2n + b = 204 vs 200
      {"row with small rhs", {0, 100, 1}, 0.5},      // x - b = -1 vs >= -0.5
      {"wrong size", {0, 100}, std::numeric_limits<double>::infinity()},
      {"NaN", {0, std::nan(""), 0}, std::numeric_limits<double>::infinity()},
  };
  for (const ViolationCase &Case : Cases) {
    CAPTURE(Case.Title);
    double Got = M.maxViolation(Case.Values);
    if (std::isinf(Case.Expected))
      CHECK(std::isinf(Got));
    else
      CHECK(Got == doctest::Approx(Case.Expected));
  }
}
