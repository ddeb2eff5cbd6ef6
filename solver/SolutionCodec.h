//===- solver/SolutionCodec.h - A Solution as bytes -------------*- C++ -*-===//
//
// The isolated solver (CbcSolver.cpp) runs in a child process and hands its
// Solution back through a pipe: these two functions turn the fields that
// cross that boundary into bytes and back. Internal to the solver layer.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_SOLUTIONCODEC_H
#define TACCLC_SOLVER_SOLUTIONCODEC_H

#include "solver/Solver.h"

#include <optional>
#include <string>

namespace tacclc::solver {

/// The status, time-limit flag, objective, bound, message and values of
/// \p S as bytes.
std::string encodeSolution(const Solution &S);

/// The inverse of encodeSolution; nothing if \p In is malformed.
std::optional<Solution> decodeSolution(const std::string &In);

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_SOLUTIONCODEC_H
