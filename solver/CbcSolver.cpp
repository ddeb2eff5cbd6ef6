//===- solver/CbcSolver.cpp - Solve a Model with COIN-OR CBC --------------===//
//
// solveWithCbc: checks the options, decides models without variables itself
// and runs one CBC search (CbcRun.cpp) in this process or, isolated, in a
// child process (Subprocess.h); a feasible warm start stands in when CBC
// fails, runs out of time before it finds better, or its child dies (or is
// stopped at SolveOptions::Until). The progress of a solve is printed by
// this process (solver/Progress.h), from a LiveSolve that CBC's event
// handler writes, in memory shared with the child.
//
// CBC quirks handled here:
//  * CBC prints to stdout (printf, std::cout and its message handlers). Log
//    level 0 plus noPrinting_ kept every case we tried silent, but fd 1 is
//    still redirected during the solve (to /dev/null, or to stderr for the
//    log) so that stray output can never corrupt the compiler's own stdout.
//  * Loading a model with no columns trips an assertion in CLP, so empty
//    models are decided here without CBC.
//  * The fd redirection is process-wide and CbcMain1 is not documented as
//    reentrant, so solves are serialised by a mutex.
//
//===----------------------------------------------------------------------===//
#include "solver/CbcRun.h"
#include "solver/Model.h"
#include "solver/Progress.h"
#include "solver/SolutionCodec.h"
#include "solver/Solver.h"
#include "solver/Subprocess.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace tacclc::solver;
using namespace tacclc::solver::cbc;

namespace {

/// Largest Model::maxViolation of a warm start that counts as feasible.
constexpr double WarmStartTolerance = 1e-6;
/// With less time than this left before SolveOptions::Until, the solver is
/// not started.
constexpr double MinSolveSeconds = 0.1;

/// Points file descriptor 1 at /dev/null (or at stderr) while alive. C and
/// C++ stdout buffers are flushed on both edges so that bytes written before
/// the solve still reach the real stdout and CBC's never do.
class StdoutRedirect {
public:
  explicit StdoutRedirect(bool ToStderr) {
    std::cout.flush();
    std::fflush(stdout);
    int Target = ToStderr ? ::dup(STDERR_FILENO)
                          : ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (Target < 0)
      return;
    Saved = ::dup(STDOUT_FILENO);
    if (Saved >= 0 && ::dup2(Target, STDOUT_FILENO) < 0) {
      ::close(Saved);
      Saved = -1;
    }
    ::close(Target);
  }
  ~StdoutRedirect() {
    if (Saved < 0)
      return;
    std::cout.flush();
    std::fflush(stdout);
    ::dup2(Saved, STDOUT_FILENO);
    ::close(Saved);
  }
  StdoutRedirect(const StdoutRedirect &) = delete;
  StdoutRedirect &operator=(const StdoutRedirect &) = delete;

private:
  int Saved = -1;
};

/// Returns a message if the options cannot be used with \p M.
std::string checkOptions(const Model &M, const SolveOptions &Options) {
  if (std::isnan(Options.TimeLimitSeconds))
    return "time limit is NaN";
  if (!(Options.RelativeGap >= 0))
    return fmt::format("relative gap {} is negative or NaN",
                       Options.RelativeGap);
  if (!Options.WarmStart.empty()) {
    if (Options.WarmStart.size() != M.numVariables())
      return fmt::format("warm start has {} values for {} variables",
                         Options.WarmStart.size(), M.numVariables());
    for (double V : Options.WarmStart)
      if (!std::isfinite(V))
        return "warm start contains a non-finite value";
  }
  return "";
}

/// A model without variables: every row reads 0 <= 0 <= 0.
Solution solveWithoutVariables(const Model &M) {
  Solution S;
  for (const Constraint &C : M.constraints()) {
    if (C.Lower > 1e-9 || C.Upper < -1e-9) {
      S.Status = SolveStatus::Infeasible;
      S.Message = "row '" + C.Name + "' cannot hold without variables";
      return S;
    }
  }
  S.Status = SolveStatus::Optimal;
  S.Objective = S.BestBound = M.getObjectiveOffset();
  S.Message = "model has no variables";
  return S;
}

/// CBC can run out of time before it even evaluates the warm start (its
/// preprocessing comes first), leaving no incumbent or a worse one. A
/// feasible warm start is then returned as the solution.
void fallBackToWarmStart(Solution &S, const Model &M,
                         const SolveOptions &Options) {
  if (Options.WarmStart.empty())
    return;
  bool NoIncumbent = S.Status == SolveStatus::NoSolution ||
                     S.Status == SolveStatus::Infeasible;
  if (!NoIncumbent && S.Status != SolveStatus::Feasible)
    return;
  if (M.maxViolation(Options.WarmStart) > WarmStartTolerance)
    return;
  Solution Start;
  takeValues(Start, M, Options.WarmStart.data());
  if (!NoIncumbent) {
    bool Better = M.getSense() == Sense::Maximize
                      ? Start.Objective > S.Objective
                      : Start.Objective < S.Objective;
    if (!Better)
      return;
  }
  S.Message = S.Status == SolveStatus::Infeasible
                  ? "CBC reported infeasible, but the warm start is feasible"
                  : "stopped at its time limit with nothing better than the "
                    "warm start; returning the warm start";
  S.Status = SolveStatus::Feasible;
  S.Values = std::move(Start.Values);
  S.Objective = Start.Objective;
}

/// Runs CBC with the warm-start fallback, reporting into \p Live;
/// exceptions become Error.
Solution runCbcCaught(const Model &M, const SolveOptions &Options,
                      Clock::time_point Start, LiveSolve &Live) {
  Solution S = runCbcOnce(M, Options, Start, Live);
  // CBC 2.10's MIP-start code can fail on a model its preprocessing has
  // changed (it asks for the name of a column that is gone). Solve again
  // without the start, in the time left; the start still competes below.
  double Left = hasTimeLimit(Options)
                    ? Options.TimeLimitSeconds - secondsSince(Start)
                    : Options.TimeLimitSeconds;
  bool TimeLeft = (!hasTimeLimit(Options) || Left > 0) &&
                  Options.Until.secondsLeft() > MinSolveSeconds;
  if (S.Status == SolveStatus::Error && !Options.WarmStart.empty() &&
      TimeLeft) {
    SolveOptions Retry = Options;
    Retry.WarmStart.clear();
    Retry.TimeLimitSeconds = Left;
    Live.setPhase(SolvePhase::Starting);
    Solution Again = runCbcOnce(M, Retry, Start, Live);
    if (Again.Status != SolveStatus::Error)
      S = std::move(Again);
  } else if (S.Status == SolveStatus::Error && !Options.WarmStart.empty()) {
    S.Status = SolveStatus::NoSolution; // out of time: the start may do
    S.HitTimeLimit = true;
  }
  if (S.Status != SolveStatus::Error) {
    fallBackToWarmStart(S, M, Options);
  } else if (!Options.WarmStart.empty() &&
             M.maxViolation(Options.WarmStart) <= WarmStartTolerance) {
    std::string Why = S.Message;
    takeValues(S, M, Options.WarmStart.data());
    S.Status = SolveStatus::Feasible;
    S.Message = Why + "; returning the warm start";
  }
  return S;
}

/// \p M's warm start as a Feasible solution stopped by the time limit, when
/// it is feasible; else \p S unchanged but for \p Why.
Solution warmStartOr(Solution S, const Model &M, const SolveOptions &Options,
                     const std::string &Why) {
  S.Message = Why;
  if (Options.WarmStart.empty() ||
      M.maxViolation(Options.WarmStart) > WarmStartTolerance)
    return S;
  takeValues(S, M, Options.WarmStart.data());
  S.Status = SolveStatus::Feasible;
  S.Message = Why + "; returning the warm start";
  return S;
}

/// A LiveSolve in memory shared with the child processes forked while it
/// lives (or, should mapping fail, in this process alone).
class SharedLiveSolve {
public:
  SharedLiveSolve() {
    void *Mem = ::mmap(nullptr, sizeof(LiveSolve), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    Shared = Mem != MAP_FAILED;
    Live = Shared ? new (Mem) LiveSolve() : new LiveSolve();
  }
  ~SharedLiveSolve() {
    Live->~LiveSolve();
    if (Shared)
      ::munmap(Live, sizeof(LiveSolve));
    else
      ::operator delete(Live);
  }
  SharedLiveSolve(const SharedLiveSolve &) = delete;
  SharedLiveSolve &operator=(const SharedLiveSolve &) = delete;

  LiveSolve &get() { return *Live; }

private:
  LiveSolve *Live;
  bool Shared;
};

/// What CBC was doing in \p Phase, for the message when it is stopped.
const char *stillDoing(SolvePhase Phase) {
  switch (Phase) {
  case SolvePhase::Starting:
    return "loading the model";
  case SolvePhase::Presolve:
    return "in its presolve";
  case SolvePhase::Root:
    return "at the root node";
  case SolvePhase::Search:
    return "searching";
  }
  return "running";
}

/// Runs CBC in a child process (Subprocess.h), which reports into \p Live.
/// A crash, overrun or memory exhaustion of the child falls back to a
/// feasible warm start, else it is an Error.
Solution runIsolated(const Model &M, const SolveOptions &Options,
                     Clock::time_point Start, LiveSolve &Live) {
  std::string Error;
  ChildLimits Limits;
  Limits.MemoryBytes = Options.MemoryLimitBytes;
  // CBC stops itself at its limit (or a margin before Until); the child is
  // stopped that margin after its limit, or at Until.
  double Hard =
      hasTimeLimit(Options)
          ? Options.TimeLimitSeconds + graceSeconds(Options.TimeLimitSeconds)
          : std::numeric_limits<double>::infinity();
  Hard = std::min(Hard, Options.Until.secondsLeft());
  if (std::isfinite(Hard))
    Limits.HardTimeoutSeconds = std::max(Hard, 1e-3);
  ChildReport Report;
  auto Bytes = runInChild(
      [&] {
        Solution S = runCbcCaught(M, Options, Start, Live);
        std::cout.flush(); // the child ends with _exit: flush CBC's log
        std::fflush(nullptr);
        return encodeSolution(S);
      },
      Limits, Error, &Report);
  if (Bytes) {
    if (auto S = decodeSolution(*Bytes)) {
      S->PeakMemoryBytes = Report.PeakBytes;
      return *S;
    }
    Error = "the solver process returned a malformed result";
  }
  Solution S;
  S.Status = SolveStatus::Error;
  S.HitTimeLimit = Report.TimedOut;
  if (Report.TimedOut)
    Error = fmt::format("CBC was still {} when its time ran out ({:.3g} s; "
                        "it reads no clock there) and was stopped",
                        stillDoing(Live.phase()), Hard);
  S.PeakMemoryBytes = Report.PeakBytes;
  S = warmStartOr(std::move(S), M, Options, Error);
  if (!S.hasValues())
    S.HitTimeLimit = false;
  return S;
}

/// What a solve came to, for the last progress line.
std::string outcomeText(const Solution &S) {
  switch (S.Status) {
  case SolveStatus::Optimal:
    return "optimal";
  case SolveStatus::Feasible:
    return S.HitTimeLimit ? "stopped at the time limit" : "feasible";
  case SolveStatus::NoSolution:
    return "no solution by the time limit";
  case SolveStatus::Infeasible:
    return "infeasible";
  case SolveStatus::Unbounded:
    return "unbounded";
  case SolveStatus::Error:
    return "solver failed";
  }
  return "";
}

/// The objective of \p Options' warm start in \p M, if it is feasible.
double warmStartObjective(const Model &M, const SolveOptions &Options) {
  if (Options.WarmStart.empty() ||
      M.maxViolation(Options.WarmStart) > WarmStartTolerance)
    return NaN;
  Solution Start;
  takeValues(Start, M, Options.WarmStart.data());
  return Start.Objective;
}

/// Runs CBC, in a child process or not, shown on the stage's reporter or on
/// one of the solve's own.
Solution runReported(const Model &M, const SolveOptions &Options,
                     Clock::time_point Start) {
  std::optional<ProgressReporter> Own;
  ProgressReporter *Progress = Options.Reporter;
  if (!Progress && Options.Progress != ProgressMode::Off)
    Progress = &Own.emplace(Options.Progress, Options.ProgressLabel, Start);
  SharedLiveSolve Shared;
  LiveSolve &Live = Shared.get();
  if (Progress)
    Progress->watch(&Live, warmStartObjective(M, Options));
  Solution S = Options.Isolate ? runIsolated(M, Options, Start, Live)
                               : runCbcCaught(M, Options, Start, Live);
  if (Progress)
    Progress->finish(outcomeText(S), S.hasValues() ? S.Objective : NaN,
                     S.Status == SolveStatus::Error ? NaN : S.BestBound);
  return S;
}

} // namespace

Solution tacclc::solver::solveWithCbc(const Model &M,
                                      const SolveOptions &Options) {
  static std::mutex SolveMutex;
  Clock::time_point Start = Clock::now();
  Solution S;

  std::string Problem = checkOptions(M, Options);
  if (!Problem.empty()) {
    S.Status = SolveStatus::Error;
    S.Message = std::move(Problem);
  } else if (M.numVariables() == 0) {
    S = solveWithoutVariables(M);
  } else if (Options.Until.secondsLeft() < MinSolveSeconds) {
    S.Status = SolveStatus::NoSolution;
    S.HitTimeLimit = true;
    S = warmStartOr(std::move(S), M, Options,
                    "no time was left for the solver");
  } else {
    std::lock_guard<std::mutex> Lock(SolveMutex);
    StdoutRedirect Redirect(/*ToStderr=*/Options.Log);
    S = runReported(M, Options, Start);
  }
  if (!S.hasValues())
    S.Values.clear();
  if (S.Status == SolveStatus::Error)
    S.Objective = S.BestBound = NaN;
  S.Seconds = secondsSince(Start);
  return S;
}
