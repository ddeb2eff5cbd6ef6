//===- solver/Model.cpp - Solver-neutral MILP model -----------------------===//
//
// Implements Model: name checking, bound normalisation and the merging of
// repeated terms. Misuse (bad names, NaNs, dangling VarIds) is a bug in the
// pass that builds the model and ends the process with a fatal error.
//
//===----------------------------------------------------------------------===//
#include "solver/Model.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tacclc::solver;

namespace {

/// Words with a meaning in CPLEX LP files (compared case-insensitively).
constexpr llvm::StringLiteral Keywords[] = {
    "min",      "max",     "minimize", "maximize", "minimise", "maximise",
    "minimum",  "maximum", "st",       "s.t.",     "subject",  "to",
    "such",     "that",    "bound",    "bounds",   "gen",      "general",
    "generals", "int",     "integer",  "integers", "bin",      "binary",
    "binaries", "semi",    "semis",    "sos",      "end",      "free",
    "inf",      "infinity"};

bool isNameChar(char C) {
  if (llvm::isAlnum(C))
    return true;
  switch (C) {
  case '_':
  case '.':
  case '(':
  case ')':
  case '{':
  case '}':
  case '!':
  case '#':
  case '$':
  case '%':
  case '&':
  case '?':
  case '@':
  case '~':
    return true;
  default:
    return false;
  }
}

[[noreturn]] void fatal(const llvm::Twine &Msg) {
  llvm::report_fatal_error("tacclc::solver::Model: " + Msg);
}

/// Maps values at or beyond +-Infinity (including IEEE infinities) to exactly
/// +-Infinity; NaN is a fatal error.
double normalizeBound(double Value, llvm::StringRef What,
                      llvm::StringRef Name) {
  if (std::isnan(Value))
    fatal("NaN " + What + " for '" + Name + "'");
  if (Value >= Model::Infinity)
    return Model::Infinity;
  if (Value <= -Model::Infinity)
    return -Model::Infinity;
  return Value;
}

void checkCoef(double Coef, llvm::StringRef Where) {
  if (!std::isfinite(Coef) || std::fabs(Coef) >= Model::Infinity)
    fatal("non-finite coefficient in '" + Where + "'");
}

} // namespace

bool Model::isValidName(llvm::StringRef Name) {
  if (Name.empty() || Name.size() > MaxNameLength)
    return false;
  if (!llvm::isAlpha(Name.front()) && Name.front() != '_')
    return false;
  if ((Name.front() == 'e' || Name.front() == 'E') && Name.size() > 1 &&
      llvm::isDigit(Name[1]))
    return false;
  for (char C : Name)
    if (!isNameChar(C))
      return false;
  for (llvm::StringRef Keyword : Keywords)
    if (Name.equals_insensitive(Keyword))
      return false;
  return true;
}

VarId Model::addVariable(llvm::StringRef Name, double Lower, double Upper,
                         VarKind Kind, double Objective) {
  if (!isValidName(Name))
    fatal("invalid variable name '" + Name + "'");
  if (Vars.size() >= UINT32_MAX)
    fatal("too many variables");
  Lower = normalizeBound(Lower, "lower bound", Name);
  Upper = normalizeBound(Upper, "upper bound", Name);
  checkCoef(Objective, Name);
  if (Kind == VarKind::Binary && (Lower < 0.0 || Upper > 1.0))
    fatal("binary variable '" + Name + "' has bounds outside [0, 1]");

  VarId Id{static_cast<uint32_t>(Vars.size())};
  if (!VarIndex.try_emplace(Name, Id.Index).second)
    fatal("duplicate variable name '" + Name + "'");
  Vars.push_back(Variable{Name.str(), Lower, Upper, Kind, Objective});
  if (Kind != VarKind::Continuous)
    ++NumIntegers;
  return Id;
}

VarId Model::addBinary(llvm::StringRef Name, double Objective) {
  return addVariable(Name, 0.0, 1.0, VarKind::Binary, Objective);
}

void Model::checkRowName(llvm::StringRef Name) {
  if (!isValidName(Name) || Name == "obj")
    fatal("invalid constraint name '" + Name + "'");
  if (!RowNames.insert(Name).second)
    fatal("duplicate constraint name '" + Name + "'");
}

void Model::addConstraint(llvm::StringRef Name, std::vector<Term> Terms,
                          double Lower, double Upper) {
  Lower = normalizeBound(Lower, "lower bound", Name);
  Upper = normalizeBound(Upper, "upper bound", Name);
  checkRowName(Name);
  // A ranged row becomes two LP rows; reserve their names too.
  if (Lower > -Infinity && Upper < Infinity && Lower != Upper) {
    checkRowName((Name + "_lo").str());
    checkRowName((Name + "_hi").str());
  }

  // Sum repeated variables into the slot of their first occurrence.
  llvm::DenseMap<uint32_t, size_t> Slot;
  std::vector<Term> Merged;
  Merged.reserve(Terms.size());
  for (const Term &T : Terms) {
    if (T.Var.Index >= Vars.size())
      fatal("constraint '" + Name + "' uses an unknown variable");
    checkCoef(T.Coef, Name);
    auto [It, Inserted] = Slot.try_emplace(T.Var.Index, Merged.size());
    if (Inserted)
      Merged.push_back(T);
    else
      Merged[It->second].Coef += T.Coef;
  }
  Merged.erase(std::remove_if(Merged.begin(), Merged.end(),
                              [](const Term &T) { return T.Coef == 0.0; }),
               Merged.end());

  NumNonzeros += Merged.size();
  Rows.push_back(Constraint{Name.str(), std::move(Merged), Lower, Upper});
}

void Model::addLessEqual(llvm::StringRef Name, std::vector<Term> Terms,
                         double Rhs) {
  addConstraint(Name, std::move(Terms), -Infinity, Rhs);
}

void Model::addGreaterEqual(llvm::StringRef Name, std::vector<Term> Terms,
                            double Rhs) {
  addConstraint(Name, std::move(Terms), Rhs, Infinity);
}

void Model::addEqual(llvm::StringRef Name, std::vector<Term> Terms,
                     double Rhs) {
  addConstraint(Name, std::move(Terms), Rhs, Rhs);
}

void Model::setObjectiveCoef(VarId Var, double Coef) {
  if (Var.Index >= Vars.size())
    fatal("setObjectiveCoef on an unknown variable");
  checkCoef(Coef, Vars[Var.Index].Name);
  Vars[Var.Index].Objective = Coef;
}

void Model::setObjectiveOffset(double Offset) {
  checkCoef(Offset, "objective offset");
  ObjOffset = Offset;
}

const Variable &Model::variable(VarId Var) const {
  if (Var.Index >= Vars.size())
    fatal("variable() on an unknown variable");
  return Vars[Var.Index];
}

std::optional<VarId> Model::lookup(llvm::StringRef Name) const {
  auto It = VarIndex.find(Name);
  if (It == VarIndex.end())
    return std::nullopt;
  return VarId{It->second};
}

double Model::maxViolation(llvm::ArrayRef<double> Values) const {
  constexpr double Unbounded = std::numeric_limits<double>::infinity();
  if (Values.size() != Vars.size())
    return Unbounded;
  // Amount by which Value leaves [Lower, Upper], relative to the bound.
  auto Outside = [](double Value, double Lower, double Upper) {
    if (Lower > -Infinity && Value < Lower)
      return (Lower - Value) / std::max(1.0, std::fabs(Lower));
    if (Upper < Infinity && Value > Upper)
      return (Value - Upper) / std::max(1.0, std::fabs(Upper));
    return 0.0;
  };
  double Worst = 0.0;
  for (size_t I = 0; I < Vars.size(); ++I) {
    const Variable &V = Vars[I];
    double X = Values[I];
    if (!std::isfinite(X))
      return Unbounded;
    Worst = std::max(Worst, Outside(X, V.Lower, V.Upper));
    if (V.Kind != VarKind::Continuous)
      Worst = std::max(Worst, std::fabs(X - std::round(X)));
  }
  for (const Constraint &C : Rows) {
    double Activity = 0.0;
    for (const Term &T : C.Terms)
      Activity += T.Coef * Values[T.Var.Index];
    Worst = std::max(Worst, Outside(Activity, C.Lower, C.Upper));
  }
  return Worst;
}
