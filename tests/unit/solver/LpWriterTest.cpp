//===- tests/unit/solver/LpWriterTest.cpp - LP writer unit tests ----------===//
//
// Golden text for small models, one line per kind of bound and row, and line
// wrapping. Every expected string here was also fed to `cbc file.lp solve`
// by hand to confirm that CBC reads it as intended.
//
//===----------------------------------------------------------------------===//
#include "solver/LpWriter.h"
#include "solver/Model.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <doctest/doctest.h>

using namespace tacclc::solver;

namespace {

constexpr double Inf = Model::Infinity;

/// The lines of \p Text between the line \p From and the next section
/// header (a line that does not start with a blank), exclusive.
std::vector<std::string> section(const std::string &Text,
                                 llvm::StringRef From) {
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  llvm::StringRef(Text).split(Lines, '\n', -1, false);
  std::vector<std::string> Out;
  bool In = false;
  for (llvm::StringRef L : Lines) {
    if (In && !L.startswith(" "))
      break;
    if (In)
      Out.push_back(L.str());
    if (L == From)
      In = true;
  }
  return Out;
}

} // namespace

TEST_CASE("writeLp golden text for a small mixed model") {
  Model M;
  M.setSense(Sense::Maximize);
  VarId B = M.addBinary("b", 5);
  VarId Y = M.addVariable("y", 0, 6, VarKind::Integer, 4);
  VarId Z = M.addVariable("z", 0, 10, VarKind::Continuous, 3);
  M.addVariable("w", -Inf, 3, VarKind::Continuous); // appears nowhere
  VarId F = M.addVariable("f", -Inf, Inf, VarKind::Continuous);
  M.addLessEqual("cap", {{B, 2}, {Y, 1}, {Z, 3}}, 10);
  M.addConstraint("range", {{B, -1}, {Z, 1e-7}, {F, 1}}, -100, 100);
  M.addEqual("fix", {{F, 1}, {Y, -0.5}}, 0.25);
  M.addGreaterEqual("low", {{Y, 1}, {Z, 1}, {Y, 0}}, 1);
  M.setObjectiveOffset(2.5);

  const char *Expected =
      R"(\ tacclc MILP: 5 variables (2 integer), 4 constraints, 10 nonzeros
Maximize
 obj: 5 b + 4 y + 3 z + 0 w + 2.5
Subject To
 cap: 2 b + y + 3 z <= 10
 range_lo: - b + 1e-07 z + f >= -100
 range_hi: - b + 1e-07 z + f <= 100
 fix: f - 0.5 y = 0.25
 low: y + z >= 1
Bounds
 0 <= y <= 6
 0 <= z <= 10
 -inf <= w <= 3
 f free
Generals
 y
Binaries
 b
End
)";
  CHECK(toLpString(M) == Expected);
}

TEST_CASE("writeLp golden text for a minimisation with negative leading "
          "terms") {
  Model M;
  VarId X = M.addVariable("x", 0, Inf, VarKind::Integer, -1);
  VarId Y = M.addVariable("y", 2, Inf, VarKind::Continuous, 0.1);
  M.addGreaterEqual("c1", {{X, -1.5}, {Y, -1}}, -12);
  M.setObjectiveOffset(-7);

  const char *Expected =
      R"(\ tacclc MILP: 2 variables (1 integer), 1 constraints, 2 nonzeros
Minimize
 obj: - x + 0.1 y - 7
Subject To
 c1: - 1.5 x - y >= -12
Bounds
 y >= 2
Generals
 x
End
)";
  CHECK(toLpString(M) == Expected);
}

TEST_CASE("writeLp writes each kind of row") {
  struct RowCase {
    const char *Title;
    double Lower, Upper;
    std::vector<std::string> Lines;
  };
  const RowCase Cases[] = {
      {"less-equal", -Inf, 4, {" r: x + 2 y <= 4"}},
      {"greater-equal", -4, Inf, {" r: x + 2 y >= -4"}},
      {"equality", 0.5, 0.5, {" r: x + 2 y = 0.5"}},
      {"ranged", -1, 1, {" r_lo: x + 2 y >= -1", " r_hi: x + 2 y <= 1"}},
      {"inverted range (infeasible) is kept",
       3,
       2,
       {" r_lo: x + 2 y >= 3", " r_hi: x + 2 y <= 2"}},
      {"free row becomes a comment", -Inf, Inf, {}},
  };
  for (const RowCase &Case : Cases) {
    CAPTURE(Case.Title);
    Model M;
    VarId X = M.addVariable("x", 0, 1, VarKind::Continuous, 1);
    VarId Y = M.addVariable("y", 0, 1, VarKind::Continuous, 1);
    M.addConstraint("r", {{X, 1}, {Y, 2}}, Case.Lower, Case.Upper);
    CHECK(section(toLpString(M), "Subject To") == Case.Lines);
  }
}

TEST_CASE("writeLp writes each kind of bound") {
  struct BoundCase {
    const char *Title;
    double Lower, Upper;
    VarKind Kind;
    std::vector<std::string> Lines;
  };
  const BoundCase Cases[] = {
      {"default continuous", 0, Inf, VarKind::Continuous, {}},
      {"default integer", 0, Inf, VarKind::Integer, {}},
      {"default binary", 0, 1, VarKind::Binary, {}},
      {"fixed binary", 1, 1, VarKind::Binary, {" v = 1"}},
      {"free", -Inf, Inf, VarKind::Continuous, {" v free"}},
      {"free integer", -Inf, Inf, VarKind::Integer, {" v free"}},
      {"lower only", -3.5, Inf, VarKind::Continuous, {" v >= -3.5"}},
      {"upper only", -Inf, 8, VarKind::Integer, {" -inf <= v <= 8"}},
      {"both", 1, 2, VarKind::Continuous, {" 1 <= v <= 2"}},
      {"fixed", 0.1, 0.1, VarKind::Continuous, {" v = 0.1"}},
      {"large", -1e20, 1e20, VarKind::Continuous, {" -1e+20 <= v <= 1e+20"}},
  };
  for (const BoundCase &Case : Cases) {
    CAPTURE(Case.Title);
    Model M;
    VarId V = M.addVariable("v", Case.Lower, Case.Upper, Case.Kind, 1);
    M.addLessEqual("r", {{V, 1}}, 100);
    std::string Text = toLpString(M);
    CHECK(section(Text, "Bounds") == Case.Lines);
    CHECK((Text.find("\nBounds\n") != std::string::npos) ==
          !Case.Lines.empty());
  }
}

TEST_CASE("writeLp wraps long expressions below 80 columns") {
  Model M;
  std::vector<Term> Terms;
  for (int I = 0; I < 40; ++I) {
    VarId V = M.addBinary("flow_c" + std::to_string(I) + "_l12", 1.25);
    Terms.push_back({V, 3.5});
  }
  M.addLessEqual("load_link_12", Terms, 17);
  std::string Text = toLpString(M);

  llvm::SmallVector<llvm::StringRef, 64> Lines;
  llvm::StringRef(Text).split(Lines, '\n', -1, false);
  size_t Continuations = 0;
  for (llvm::StringRef L : Lines) {
    CAPTURE(L.str());
    CHECK(L.size() <= 79);
    if (L.startswith("   "))
      ++Continuations;
  }
  CHECK(Continuations > 10);
  // Tokens are never split: every term still reads "<coef> <name>".
  CHECK(Text.find("+ 3.5 flow_c39_l12 <= 17") != std::string::npos);
  CHECK(Text.find(" load_link_12: 3.5 flow_c0_l12 + 3.5 flow_c1_l12") !=
        std::string::npos);
}

TEST_CASE("writeLp handles degenerate models") {
  SUBCASE("no variables") {
    Model M;
    CHECK(toLpString(M) == "\\ tacclc MILP: 0 variables (0 integer), 0 "
                           "constraints, 0 nonzeros\nMinimize\n obj: 0\n"
                           "Subject To\nEnd\n");
  }
  SUBCASE("empty row uses a zero multiple of the first variable") {
    Model M;
    VarId X = M.addVariable("x", 0, 1, VarKind::Continuous, 1);
    M.addGreaterEqual("cancelled", {{X, 1}, {X, -1}}, 0.5);
    CHECK(section(toLpString(M), "Subject To") ==
          std::vector<std::string>{" cancelled: 0 x >= 0.5"});
  }
  SUBCASE("no objective terms") {
    Model M;
    VarId X = M.addVariable("x", 0, 1, VarKind::Continuous);
    M.addLessEqual("r", {{X, 1}}, 1);
    CHECK(section(toLpString(M), "Minimize") ==
          std::vector<std::string>{" obj: 0"});
  }
}

TEST_CASE("writeLp is deterministic") {
  auto Build = [] {
    Model M;
    std::vector<Term> Terms;
    for (int I = 0; I < 50; ++I) {
      VarId V = M.addVariable("x" + std::to_string(49 - I), -I, I * 0.3,
                              I % 3 ? VarKind::Continuous : VarKind::Integer,
                              1.0 / (I + 1));
      Terms.push_back({V, I * 1e-3 - 0.01});
    }
    M.addConstraint("sum", Terms, -1.0 / 3, 2.0 / 3);
    return toLpString(M);
  };
  std::string First = Build();
  CHECK(First == Build());
  // Shortest round-trip formatting.
  CHECK(First.find("0.3333333333333333") != std::string::npos);
  CHECK(First.find("-0 ") == std::string::npos);
}
