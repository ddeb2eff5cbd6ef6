//===- frontend/Eval.cpp - Integer expression evaluation ------------------===//
//
// Checked 64-bit arithmetic: + - * with overflow detection, / and % with a
// division-by-zero error and mathematical (non-negative) modulo, so that
// `(n - 1) % nodes` wraps around as a designer expects.
//
//===----------------------------------------------------------------------===//
#include "frontend/Eval.h"

#include "llvm/Support/Casting.h"

using namespace tacclc;
using namespace tacclc::ast;

bool Scope::define(llvm::StringRef Name, int64_t Value, llvm::SMRange Loc) {
  if (lookup(Name))
    return false;
  Frames.back()[Name] = {Value, Loc};
  return true;
}

std::optional<int64_t> Scope::lookup(llvm::StringRef Name) const {
  for (auto It = Frames.rbegin(); It != Frames.rend(); ++It) {
    auto Found = It->find(Name);
    if (Found != It->end())
      return Found->second.Value;
  }
  return std::nullopt;
}

llvm::SMRange Scope::definition(llvm::StringRef Name) const {
  for (auto It = Frames.rbegin(); It != Frames.rend(); ++It) {
    auto Found = It->find(Name);
    if (Found != It->end())
      return Found->second.Loc;
  }
  return {};
}

std::string Scope::closest(llvm::StringRef Name) const {
  std::string Best;
  unsigned BestDist = 3;
  for (const auto &Frame : Frames)
    for (const auto &E : Frame) {
      unsigned D = Name.edit_distance(E.getKey(), true, BestDist);
      if (D < BestDist ||
          (D == BestDist && !Best.empty() && E.getKey() < Best)) {
        BestDist = D;
        Best = E.getKey().str();
      }
    }
  return BestDist < 3 ? Best : std::string();
}

std::optional<int64_t> tacclc::evalExpr(const Expr &E, const Scope &S,
                                        DiagnosticEngine &Diags) {
  S.addWork();
  if (const auto *I = llvm::dyn_cast<IntExpr>(&E)) {
    if (I->Value.Overflow || I->Value.Value > uint64_t(INT64_MAX)) {
      Diags.report(DiagId::IntegerOverflow, I->getRange(), I->Value.Spelling);
      return std::nullopt;
    }
    return static_cast<int64_t>(I->Value.Value);
  }
  if (const auto *N = llvm::dyn_cast<NameExpr>(&E)) {
    if (auto V = S.lookup(N->Name))
      return V;
    Diagnostic &D = Diags.report(DiagId::UnknownName, N->getRange(), N->Name);
    std::string Close = S.closest(N->Name);
    if (!Close.empty())
      Diags.suggest(D, N->getRange(), Close, S.definition(Close));
    return std::nullopt;
  }
  if (const auto *Ng = llvm::dyn_cast<NegExpr>(&E)) {
    auto V = evalExpr(*Ng->Operand, S, Diags);
    if (!V)
      return std::nullopt;
    if (*V == INT64_MIN) {
      Diags.report(DiagId::IntegerOverflow, E.getRange(), printExpr(E));
      return std::nullopt;
    }
    return -*V;
  }
  const auto &B = llvm::cast<BinaryExpr>(E);
  auto L = evalExpr(*B.Lhs, S, Diags);
  auto R = evalExpr(*B.Rhs, S, Diags);
  if (!L || !R)
    return std::nullopt;
  int64_t Out = 0;
  bool Overflow = false;
  switch (B.Op) {
  case '+':
    Overflow = __builtin_add_overflow(*L, *R, &Out);
    break;
  case '-':
    Overflow = __builtin_sub_overflow(*L, *R, &Out);
    break;
  case '*':
    Overflow = __builtin_mul_overflow(*L, *R, &Out);
    break;
  case '/':
  case '%':
    if (*R == 0) {
      Diags.report(DiagId::DivisionByZero, B.Rhs->getRange(),
                   printExpr(*B.Rhs));
      return std::nullopt;
    }
    if (*L == INT64_MIN && *R == -1) {
      Overflow = true;
      break;
    }
    if (B.Op == '/') {
      Out = *L / *R;
    } else {
      Out = *L % *R;
      // Non-negative result; Out - R cannot overflow when R < 0 < -Out.
      if (Out < 0)
        Out = *R > 0 ? Out + *R : Out - *R;
    }
    break;
  }
  if (Overflow) {
    Diags.report(DiagId::IntegerOverflow, E.getRange(), printExpr(E));
    return std::nullopt;
  }
  return Out;
}
