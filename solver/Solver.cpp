//===- solver/Solver.cpp - Solver-independent parts of Solver.h -----------===//
//
// Status names and Solution helpers; the CBC back end is in CbcSolver.cpp and
// CbcRun.cpp.
//
//===----------------------------------------------------------------------===//
#include "solver/Solver.h"

#include "llvm/Support/ErrorHandling.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

using namespace tacclc::solver;

bool Solution::hasValues() const {
  return Status == SolveStatus::Optimal || Status == SolveStatus::Feasible;
}

double Solution::gap() const {
  if (!std::isfinite(Objective) || !std::isfinite(BestBound))
    return std::numeric_limits<double>::quiet_NaN();
  if (Objective == BestBound)
    return 0;
  if (Objective == 0)
    return std::numeric_limits<double>::quiet_NaN();
  return std::fabs(Objective - BestBound) / std::fabs(Objective);
}

std::string tacclc::solver::describeGap(const Solution &S) {
  double Gap = S.gap();
  if (std::isnan(Gap))
    return "no bound known";
  return fmt::format("gap {:.2f}%", 100 * Gap);
}

llvm::StringRef tacclc::solver::statusName(SolveStatus Status) {
  switch (Status) {
  case SolveStatus::Optimal:
    return "optimal";
  case SolveStatus::Feasible:
    return "feasible";
  case SolveStatus::Infeasible:
    return "infeasible";
  case SolveStatus::Unbounded:
    return "unbounded";
  case SolveStatus::NoSolution:
    return "no-solution";
  case SolveStatus::Error:
    return "error";
  }
  llvm_unreachable("unknown SolveStatus");
}
