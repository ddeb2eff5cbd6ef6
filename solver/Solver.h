//===- solver/Solver.h - Solving a Model ------------------------*- C++ -*-===//
//
// The solver-facing interface of the solver layer: options, the outcome of a
// solve, and solveWithCbc, which runs COIN-OR CBC on a solver::Model. Only
// CbcRun.cpp sees CBC's headers; everything else in tacclc goes through
// this file.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_SOLVER_H
#define TACCLC_SOLVER_SOLVER_H

#include "support/Deadline.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tacclc::solver {

class Model;
class ProgressReporter;

/// Whether and how solveWithCbc shows live progress on stderr.
enum class ProgressMode {
  /// Print nothing (the default).
  Off,
  /// One status line, rewritten in place with '\r' about twice a second and
  /// cleared ("\r\033[K") when the stage ends; for a terminal.
  Line,
  /// Full lines, for a log (-v without a terminal): one when a phase has
  /// lasted a second, at most one more every 10 s, and a last line with
  /// the final incumbent and bound of a solve that was shown.
  Lines,
};

/// Settings for one solve.
struct SolveOptions {
  /// Wall-clock limit in seconds; <= 0 or +inf means no limit.
  double TimeLimitSeconds = 60;
  /// When the solve must be over (the stage's share of the compile's time),
  /// if before TimeLimitSeconds runs out. CBC is given the earlier of the
  /// two as its own limit, less a margin (0.25 s + 2.5% of the time left),
  /// and is also asked to stop by its event handler after each node and
  /// heuristic and between presolve and search (with its incumbent, as at
  /// its own limit); an isolated solver still running at Until (in parts of
  /// presolve or an LP, where CBC reads no clock) is stopped and the warm
  /// start returned; a solve with almost no time left returns the warm
  /// start without starting CBC. Unset: only TimeLimitSeconds.
  Deadline Until;
  /// Bytes the isolated solver may allocate (its process's data limit);
  /// 0 means no limit of its own. Running out is an Error (or the warm
  /// start, when it is feasible).
  uint64_t MemoryLimitBytes = 0;
  /// Stop when (incumbent - bound) / |incumbent| is at most this (CBC's
  /// `ratioGap`); such a solution is reported as Optimal.
  double RelativeGap = 1e-4;
  /// Search threads; 0 and 1 both mean CBC's serial search, which is the only
  /// reproducible one.
  unsigned Threads = 1;
  /// Seed for CBC's heuristics and CLP's tie-breaking; <= 0 keeps CBC's
  /// built-in (also deterministic) seeds.
  int Seed = 1;
  /// Let CBC print its log. The log goes to stderr, never stdout.
  bool Log = false;
  /// Live progress on stderr while CBC runs (solver/Progress.h): its phase
  /// (presolve, root node, search), seconds, and once known the incumbent,
  /// bound and gap, in the model's terms (sense and objective offset).
  /// Models decided without CBC (no variables) print nothing. Progress
  /// never changes the solution.
  ProgressMode Progress = ProgressMode::Off;
  /// The stage's reporter to show the solve on; nullptr: a reporter of the
  /// solve's own, in the style of Progress.
  ProgressReporter *Reporter = nullptr;
  /// What the progress lines start with, in brackets (e.g. "routing");
  /// empty shows as "cbc". Used without a Reporter.
  std::string ProgressLabel;
  /// A starting solution, one value per variable index; empty means none.
  /// CBC fixes the integer variables to these values and derives the
  /// continuous ones; an infeasible start is ignored. If CBC stops without
  /// an incumbent at least as good as a feasible start (e.g. the time limit
  /// expires before CBC reads it), the start itself is returned as Feasible.
  std::vector<double> WarmStart;
  /// Run the solver in a child process, so that a solver crash or overrun
  /// becomes an error (or the warm start, when it is feasible) instead of
  /// killing the caller.
  bool Isolate = true;
};

/// How a solve ended.
enum class SolveStatus {
  Optimal,    ///< Proven optimal within SolveOptions::RelativeGap.
  Feasible,   ///< Stopped early (time limit) with an incumbent.
  Infeasible, ///< Proven infeasible.
  Unbounded,  ///< The LP relaxation is unbounded.
  NoSolution, ///< Stopped early (time limit) without an incumbent.
  Error,      ///< Bad input or solver failure; see Solution::Message.
};

/// The outcome of a solve.
struct Solution {
  /// How the solve ended.
  SolveStatus Status = SolveStatus::Error;
  /// Objective of Values, including the model's offset; NaN without values.
  double Objective = std::numeric_limits<double>::quiet_NaN();
  /// Best proven bound on the optimum, including the offset; NaN if unknown.
  double BestBound = std::numeric_limits<double>::quiet_NaN();
  /// One value per variable index when hasValues(); integer and binary
  /// values within 1e-6 of an integer are rounded to it.
  std::vector<double> Values;
  /// Wall-clock seconds spent in the solve.
  double Seconds = 0.0;
  /// Why the status was chosen, for logs and errors; may be empty.
  std::string Message;
  /// The solve stopped at SolveOptions::TimeLimitSeconds (then the status is
  /// Feasible or NoSolution).
  bool HitTimeLimit = false;
  /// Peak resident memory of the isolated solver's process, in bytes (0
  /// when it did not run in a child).
  uint64_t PeakMemoryBytes = 0;

  /// True for Optimal and Feasible, the statuses that carry Values.
  bool hasValues() const;
  /// The relative gap |Objective - BestBound| / |Objective|; NaN when
  /// either is unknown (or the objective is 0 and the bound is not).
  double gap() const;
};

/// "gap 3.10%", or "no bound known" when the gap is unknown.
std::string describeGap(const Solution &S);

/// A short lower-case name: "optimal", "feasible", "infeasible", "unbounded",
/// "no-solution" or "error".
llvm::StringRef statusName(SolveStatus Status);

/// Solves \p M with CBC's own driver (presolve, cuts, heuristics). With
/// Threads <= 1 the result depends only on the model and the options (and on
/// the time limit, if it is reached). Calls are serialised process-wide.
/// While CBC runs, file descriptor 1 is redirected (to /dev/null, or to
/// stderr when Log is set), so nothing the solver prints reaches stdout;
/// stderr gets CBC's log (Log) and the progress lines (Progress) only.
/// Never aborts: solver failures come back as SolveStatus::Error.
Solution solveWithCbc(const Model &M, const SolveOptions &Options);

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_SOLVER_H
