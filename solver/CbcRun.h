//===- solver/CbcRun.h - One CBC search in this process ---------*- C++ -*-===//
//
// Internal to the solver layer: the part of the CBC back end that talks to
// CBC itself (CbcRun.cpp, the only file that includes CBC headers), for
// CbcSolver.cpp, which decides when and where a search runs (in this
// process or a child), falls back to warm starts and serialises solves.
// Also the small clock and time-limit helpers both files share.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_CBCRUN_H
#define TACCLC_SOLVER_CBCRUN_H

#include "solver/Model.h"
#include "solver/Progress.h"
#include "solver/Solver.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace tacclc::solver::cbc {

using Clock = std::chrono::steady_clock;

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// Seconds of wall time since \p Start.
inline double secondsSince(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

/// Whether \p Options set a finite, positive time limit.
inline bool hasTimeLimit(const SolveOptions &Options) {
  return Options.TimeLimitSeconds > 0 &&
         std::isfinite(Options.TimeLimitSeconds);
}

/// Seconds an isolated CBC may run past its time limit before it is
/// stopped, and how long before SolveOptions::Until it is asked to stop.
/// Searching, CBC stops at its next node, well within this; in parts of
/// presolve and in an LP it reads no clock (for minutes on a large model),
/// and waiting longer would only eat the time of what comes after the
/// solve.
inline double graceSeconds(double Limit) { return 0.25 + 0.025 * Limit; }

/// Copies CBC's incumbent into \p S, rounding near-integral integer values,
/// and recomputes the objective from the copied values.
void takeValues(Solution &S, const Model &M, const double *X);

/// Runs CBC on \p M in this process and classifies the outcome; CBC's
/// exceptions become SolveStatus::Error. \p Start is when the solve began;
/// CBC's phase, incumbent and bound go to \p Live as it runs.
Solution runCbcOnce(const Model &M, const SolveOptions &Options,
                    Clock::time_point Start, LiveSolve &Live);

} // namespace tacclc::solver::cbc

#endif // TACCLC_SOLVER_CBCRUN_H
