//===- solver/Progress.h - Live progress of a stage ------------*- C++ -*-===//
//
// ProgressReporter shows what a synthesis stage is doing while it runs: its
// phase (computing a warm start, building a model of a given size, then the
// solver's presolve, root node and search), the seconds since the stage
// began and, once known, the incumbent, the bound and the gap. The stage
// names its own phases (phase()); during a solve the solver writes a
// LiveSolve, from its child process through shared memory, which the
// reporter reads (watch()). A ticker thread does all the printing, so the
// clock keeps moving in phases that report nothing and neither the stage
// nor the solver ever waits on a slow terminal; the reporter only reads
// what it is given, so it cannot change the solve.
//
// Styles (ProgressMode): Line rewrites one line in place about twice a
// second, for a terminal, and clears it at the end; Lines, for a log,
// prints a line when a phase has lasted a second, at most one more every
// 10 s while it lasts, and one when a solve that was shown ends. Quick
// stages print nothing. An unknown value is left out of the line, never
// printed as '-' or "nan".
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_PROGRESS_H
#define TACCLC_SOLVER_PROGRESS_H

#include "solver/Solver.h"

#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

namespace tacclc::solver {

/// Where a running solve is: CBC's phases, in order.
enum class SolvePhase : int {
  Starting, ///< Starting the solver and loading the model.
  Presolve, ///< CBC's presolve, preprocessing and first LP relaxation.
  Root,     ///< The root node: cuts and heuristics.
  Search,   ///< Branch and bound.
};

/// The phase as a progress line names it ("presolve", "search", ...).
llvm::StringRef solvePhaseName(SolvePhase Phase);

/// What a running solve has reached, in the model's terms (sense and
/// objective offset); NaN: not known yet. Written by the solver, in this
/// process or in its child through shared memory (hence lock-free atomics
/// only), and read by a ProgressReporter.
struct LiveSolve {
  std::atomic<int> Phase{int(SolvePhase::Starting)};
  std::atomic<double> Incumbent{std::numeric_limits<double>::quiet_NaN()};
  std::atomic<double> Bound{std::numeric_limits<double>::quiet_NaN()};
  static_assert(std::atomic<int>::is_always_lock_free &&
                    std::atomic<double>::is_always_lock_free,
                "LiveSolve is shared with a child process");

  void setPhase(SolvePhase P) { Phase.store(int(P)); }
  SolvePhase phase() const { return SolvePhase(Phase.load()); }
};

/// The values of one progress line; NaN values are unknown and left out.
struct ProgressValues {
  std::string Phase; ///< E.g. "building the model (120 variables, 80 rows)".
  double Incumbent = std::numeric_limits<double>::quiet_NaN();
  double Bound = std::numeric_limits<double>::quiet_NaN();
  /// The objective of the solve's warm start, shown while there is no
  /// incumbent (it is what the stage falls back to).
  double WarmStart = std::numeric_limits<double>::quiet_NaN();
};

/// One progress line without line ending, e.g.
/// `[routing] 3.2 s  search  incumbent 38.457  bound 26.366  gap 31.4%`.
/// Unknown values are left out; the gap appears when the incumbent and
/// the bound are known and the incumbent is not 0. An empty \p Label
/// prints as "cbc".
std::string formatProgress(llvm::StringRef Label, double Seconds,
                           const ProgressValues &V);

/// Prints the progress of one stage (or of one solve) to a file descriptor
/// while alive. With ProgressMode::Off it starts no thread and prints
/// nothing.
class ProgressReporter {
public:
  using Clock = std::chrono::steady_clock;

  /// Starts reporting for \p Label (a stage's name), whose seconds count
  /// from \p Start, on \p Fd.
  explicit ProgressReporter(ProgressMode Mode, std::string Label,
                            Clock::time_point Start = Clock::now(), int Fd = 2);
  /// Stops the ticker; a Line is cleared.
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter &) = delete;
  ProgressReporter &operator=(const ProgressReporter &) = delete;

  /// The stage enters a phase of its own, e.g. "computing the warm start";
  /// the values of an earlier solve are dropped.
  void phase(std::string Text);
  /// A solve starts: its phase, incumbent and bound come from \p Live
  /// (which must outlive the watch, until finish()); \p WarmStart is the
  /// objective of its warm start (NaN: none).
  void watch(const LiveSolve *Live, double WarmStart);
  /// The solve ends with \p Outcome (e.g. "optimal", "stopped at the time
  /// limit") and its final values: Lines prints a line at once if any was
  /// printed before, a Line shows it until the next phase or the end.
  void finish(std::string Outcome, double Incumbent, double Bound);

  /// True unless the mode is Off.
  bool enabled() const { return Mode != ProgressMode::Off; }

private:
  void run();
  /// The line for the current state, and its phase; under Mutex.
  std::string lineLocked(std::string &Phase) const;
  /// Prints the current state if a line is due (\p Final: the end of a
  /// solve, in Lines, due when anything was printed before).
  void printIfDue(bool Final);
  void emit(const std::string &Text);

  const ProgressMode Mode;
  const std::string Label;
  const Clock::time_point Start;
  const int Fd;

  /// Guards the state below but for what only printIfDue touches.
  mutable std::mutex Mutex;
  std::condition_variable Wake;
  bool Stopping = false;
  bool Changed = false;
  ProgressValues Values;
  const LiveSolve *Live = nullptr;

  /// Serialises printing; held while a line is formatted and written, so
  /// lines are never printed out of order.
  std::mutex PrintMutex;
  bool Printed = false;
  /// The phase of the last line printed, and when that was.
  std::string LastPhase;
  Clock::time_point LastLine;
  /// The phase the ticker saw last, and since when.
  std::string SeenPhase;
  Clock::time_point SeenSince;
  std::thread Ticker;
};

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_PROGRESS_H
