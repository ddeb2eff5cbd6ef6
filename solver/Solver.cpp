//===- solver/Solver.cpp - Solver-independent parts of Solver.h -----------===//
//
// Status names and Solution helpers; the CBC back end is in CbcSolver.cpp and
// CbcRun.cpp.
//
//===----------------------------------------------------------------------===//
#include "solver/Solver.h"

#include "llvm/Support/ErrorHandling.h"

using namespace tacclc::solver;

bool Solution::hasValues() const {
  return Status == SolveStatus::Optimal || Status == SolveStatus::Feasible;
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
