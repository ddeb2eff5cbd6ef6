//===- solver/LpWriter.cpp - Write a Model as a CPLEX LP file -------------===//
//
// Implements writeLp. Expressions are emitted token by token through a small
// line wrapper; numbers go through fmt's shortest round-trip formatting so
// that the text is stable across platforms and reads back exactly.
//
//===----------------------------------------------------------------------===//
#include "solver/LpWriter.h"
#include "solver/Model.h"

#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

using namespace tacclc::solver;

namespace {

/// Lines are broken before this column (a courtesy; LP readers accept long
/// lines, but some cap them at a few hundred characters).
constexpr size_t MaxLineWidth = 79;

/// Shortest text that reads back as \p V; never "-0".
std::string formatNumber(double V) {
  if (V == 0.0)
    return "0";
  return fmt::format("{}", V);
}

/// "c x", "- c x", "+ c x"; the coefficient is left out when it is 1.
std::string formatTerm(double Coef, llvm::StringRef Name, bool First) {
  double Mag = std::fabs(Coef);
  std::string Body =
      Mag == 1.0 ? Name.str() : formatNumber(Mag) + " " + Name.str();
  if (Coef < 0.0)
    return "- " + Body;
  return First ? Body : "+ " + Body;
}

/// Collects tokens into lines no wider than MaxLineWidth (unless a single
/// token is wider), indenting continuation lines.
class LineWrapper {
public:
  explicit LineWrapper(llvm::raw_ostream &OS) : OS(OS) {}

  /// Starts a new logical line with \p Prefix (e.g. " c1:").
  void start(llvm::StringRef Prefix) {
    Line = Prefix.str();
    Tokens = 0;
  }
  /// Appends \p Token, separated by a space.
  void add(llvm::StringRef Token) {
    if (Tokens > 0 && Line.size() + 1 + Token.size() > MaxLineWidth) {
      OS << Line << '\n';
      Line = "  ";
    }
    Line += ' ';
    Line += Token.str();
    ++Tokens;
  }
  /// Ends the logical line.
  void finish() {
    OS << Line << '\n';
    Line.clear();
    Tokens = 0;
  }

private:
  llvm::raw_ostream &OS;
  std::string Line;
  size_t Tokens = 0;
};

/// Writes one row "Name: Terms Op Rhs".
void writeRow(LineWrapper &W, const Model &M, llvm::StringRef Name,
              const Constraint &C, llvm::StringRef Op, double Rhs) {
  W.start(" " + Name.str() + ":");
  if (C.Terms.empty()) {
    // LP rows need a variable; a zero multiple of any one keeps the meaning.
    W.add("0 " + M.variables().front().Name);
  } else {
    bool First = true;
    for (const Term &T : C.Terms) {
      W.add(formatTerm(T.Coef, M.variable(T.Var).Name, First));
      First = false;
    }
  }
  W.add(Op.str() + " " + formatNumber(Rhs));
  W.finish();
}

void writeObjective(LineWrapper &W, const Model &M) {
  const std::vector<Variable> &Vars = M.variables();
  std::vector<bool> InSomeRow(Vars.size(), false);
  for (const Constraint &C : M.constraints())
    for (const Term &T : C.Terms)
      InSomeRow[T.Var.Index] = true;

  W.start(" obj:");
  bool First = true;
  for (size_t I = 0; I < Vars.size(); ++I) {
    const Variable &V = Vars[I];
    if (V.Objective != 0.0) {
      W.add(formatTerm(V.Objective, V.Name, First));
      First = false;
    } else if (!InSomeRow[I]) {
      // Otherwise readers would not know the variable exists.
      W.add((First ? "0 " : "+ 0 ") + V.Name);
      First = false;
    }
  }
  double Offset = M.getObjectiveOffset();
  if (Offset != 0.0 || First) {
    std::string Num = formatNumber(std::fabs(Offset));
    if (Offset < 0.0)
      W.add("- " + Num);
    else
      W.add(First ? Num : "+ " + Num);
  }
  W.finish();
}

void writeConstraints(LineWrapper &W, llvm::raw_ostream &OS, const Model &M) {
  constexpr double Inf = Model::Infinity;
  for (const Constraint &C : M.constraints()) {
    bool HasLower = C.Lower > -Inf, HasUpper = C.Upper < Inf;
    if (!HasLower && !HasUpper) {
      OS << "\\ " << C.Name << ": free row, omitted\n";
      continue;
    }
    if (C.Terms.empty() && M.variables().empty()) {
      OS << "\\ " << C.Name << ": empty row without variables, omitted\n";
      continue;
    }
    if (HasLower && HasUpper && C.Lower == C.Upper)
      writeRow(W, M, C.Name, C, "=", C.Lower);
    else if (HasLower && HasUpper) {
      writeRow(W, M, C.Name + "_lo", C, ">=", C.Lower);
      writeRow(W, M, C.Name + "_hi", C, "<=", C.Upper);
    } else if (HasLower)
      writeRow(W, M, C.Name, C, ">=", C.Lower);
    else
      writeRow(W, M, C.Name, C, "<=", C.Upper);
  }
}

void writeBounds(llvm::raw_ostream &OS, const Model &M) {
  constexpr double Inf = Model::Infinity;
  bool Header = false;
  for (const Variable &V : M.variables()) {
    double DefaultUpper = V.Kind == VarKind::Binary ? 1.0 : Inf;
    if (V.Lower == 0.0 && V.Upper == DefaultUpper)
      continue;
    if (!Header) {
      OS << "Bounds\n";
      Header = true;
    }
    bool HasLower = V.Lower > -Inf, HasUpper = V.Upper < Inf;
    OS << ' ';
    if (!HasLower && !HasUpper)
      OS << V.Name << " free";
    else if (V.Lower == V.Upper)
      OS << V.Name << " = " << formatNumber(V.Lower);
    else if (!HasUpper)
      OS << V.Name << " >= " << formatNumber(V.Lower);
    else
      OS << (HasLower ? formatNumber(V.Lower) : "-inf") << " <= " << V.Name
         << " <= " << formatNumber(V.Upper);
    OS << '\n';
  }
}

void writeKind(LineWrapper &W, llvm::raw_ostream &OS, const Model &M,
               VarKind Kind, llvm::StringRef Section) {
  bool Any = false;
  for (const Variable &V : M.variables()) {
    if (V.Kind != Kind)
      continue;
    if (!Any) {
      OS << Section << '\n';
      W.start("");
      Any = true;
    }
    W.add(V.Name);
  }
  if (Any)
    W.finish();
}

} // namespace

void tacclc::solver::writeLp(const Model &M, llvm::raw_ostream &OS) {
  OS << "\\ tacclc MILP: " << M.numVariables() << " variables ("
     << M.numIntegerVariables() << " integer), " << M.numConstraints()
     << " constraints, " << M.numNonzeros() << " nonzeros\n";
  LineWrapper W(OS);
  OS << (M.getSense() == Sense::Maximize ? "Maximize\n" : "Minimize\n");
  writeObjective(W, M);
  OS << "Subject To\n";
  writeConstraints(W, OS, M);
  writeBounds(OS, M);
  writeKind(W, OS, M, VarKind::Integer, "Generals");
  writeKind(W, OS, M, VarKind::Binary, "Binaries");
  OS << "End\n";
}

std::string tacclc::solver::toLpString(const Model &M) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeLp(M, OS);
  OS.flush();
  return Text;
}
