//===- solver/Progress.h - Live progress of a solve -------------*- C++ -*-===//
//
// ProgressReporter shows how a running MILP solve is doing (elapsed time,
// incumbent, bound, gap) in the styles of SolveOptions::Progress. The solver
// back end feeds it from the solver's own thread through update(); a ticker
// thread does all the printing, so the clock keeps moving on screen while the
// solver is in a phase that reports nothing (preprocessing, the root LP), and
// the solver never waits on a slow terminal. The reporter only reads what it
// is given, so it cannot change the solve. Internal to the solver layer; the
// rest of tacclc sets SolveOptions::Progress instead.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_PROGRESS_H
#define TACCLC_SOLVER_PROGRESS_H

#include "solver/Solver.h"

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

namespace tacclc::solver {

/// One progress line without line ending, e.g.
/// `[routing] 3.2 s  incumbent 38.457  bound 26.366  gap 31.2%`. A NaN
/// incumbent or bound prints as '-', and so does the gap unless both are
/// known and the incumbent is not 0. An empty \p Label prints as "cbc".
std::string formatProgress(llvm::StringRef Label, double Seconds,
                           double Incumbent, double Bound);

/// Clears a progress line left by ProgressMode::Line on \p Fd.
void clearProgressLine(int Fd);

/// Prints the progress of one solve to a file descriptor while alive. With
/// ProgressMode::Off it starts no thread and prints nothing.
class ProgressReporter {
public:
  using Clock = std::chrono::steady_clock;

  /// Starts reporting for a solve that began at \p Start, on \p Fd (stderr
  /// unless a test says otherwise).
  ProgressReporter(ProgressMode Mode, std::string Label,
                   Clock::time_point Start, int Fd = 2);
  /// Stops the ticker; a Line is cleared, Lines print nothing more (finish()
  /// prints the last line).
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter &) = delete;
  ProgressReporter &operator=(const ProgressReporter &) = delete;

  /// Records the solver's current incumbent and bound, in the model's terms
  /// (NaN: none or unknown). Cheap; safe to call at every search node.
  void update(double Incumbent, double Bound);
  /// Ends the report with the final values: Lines print a last line, a Line
  /// is cleared. Later calls do nothing.
  void finish(double Incumbent, double Bound);

  /// True unless the mode is Off.
  bool enabled() const { return Mode != ProgressMode::Off; }

private:
  void run();
  void stop(bool PrintLast);
  void emit(const std::string &Text) const;

  const ProgressMode Mode;
  const std::string Label;
  const Clock::time_point Start;
  const int Fd;

  std::mutex Mutex;
  std::condition_variable Wake;
  bool Stopping = false;
  bool Finished = false;
  bool Printed = false;
  double Incumbent = std::numeric_limits<double>::quiet_NaN();
  double Bound = std::numeric_limits<double>::quiet_NaN();
  /// The incumbent changed since the last line was printed.
  bool Improved = false;
  std::thread Ticker;
};

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_PROGRESS_H
