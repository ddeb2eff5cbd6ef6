//===- solver/CbcSolver.cpp - Solve a Model with COIN-OR CBC --------------===//
//
// The only file in tacclc that includes CBC headers. solveWithCbc copies a
// solver::Model into a CoinModel, loads it into CLP (OsiClpSolverInterface),
// and runs CBC's own command-line driver (CbcMain0/CbcMain1), which adds
// presolve, cut generators and heuristics that a bare CbcModel lacks.
//
// CBC quirks handled here:
//  * CBC prints to stdout (printf, std::cout and its message handlers). Log
//    level 0 plus noPrinting_ kept every case we tried silent, but fd 1 is
//    still redirected during the solve (to /dev/null, or to stderr for the
//    log) so that stray output can never corrupt the compiler's own stdout.
//  * A time limit that expires during CBC's preprocessing makes it claim
//    "infeasible"; when the limit has been used up that claim is reported as
//    NoSolution instead.
//  * Loading a model with no columns trips an assertion in CLP, so empty
//    models are decided here without CBC.
//  * The fd redirection is process-wide and CbcMain1 is not documented as
//    reentrant, so solves are serialised by a mutex.
//  * Progress comes from a CbcEventHandler passed in between CbcMain0 and
//    CbcMain1 (as in CBC's examples/driver4.cpp); CbcMain1 clones it into the
//    model it searches, whose objective it may have negated.
//
//===----------------------------------------------------------------------===//
#include "solver/Model.h"
#include "solver/Progress.h"
#include "solver/SolutionCodec.h"
#include "solver/Solver.h"
#include "solver/Subprocess.h"

#include <fmt/format.h>

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcSolver.hpp"
#include "CoinError.hpp"
#include "CoinModel.hpp"
#include "OsiClpSolverInterface.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

using namespace tacclc::solver;
using tacclc::Deadline;

namespace {

using Clock = std::chrono::steady_clock;

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
/// Integer values this close to an integer are rounded to it.
constexpr double IntegerRounding = 1e-6;
/// Largest Model::maxViolation of a warm start that counts as feasible.
constexpr double WarmStartTolerance = 1e-6;
/// With less time than this left before SolveOptions::Until, the solver is
/// not started.
constexpr double MinSolveSeconds = 0.1;

double secondsSince(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

bool hasTimeLimit(const SolveOptions &Options) {
  return Options.TimeLimitSeconds > 0 &&
         std::isfinite(Options.TimeLimitSeconds);
}

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

/// CbcMain1 wants a callback; we need none.
int noCallback(CbcModel *, int) { return 0; }

double toCoinBound(double V) {
  if (V >= Model::Infinity)
    return COIN_DBL_MAX;
  if (V <= -Model::Infinity)
    return -COIN_DBL_MAX;
  return V;
}

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

void loadCoinModel(const Model &M, CoinModel &CM) {
  CM.setOptimizationDirection(M.getSense() == Sense::Maximize ? -1.0 : 1.0);
  for (const Variable &V : M.variables())
    CM.addColumn(0, nullptr, nullptr, toCoinBound(V.Lower),
                 toCoinBound(V.Upper), V.Objective, V.Name.c_str(),
                 V.Kind != VarKind::Continuous);
  std::vector<int> Index;
  std::vector<double> Value;
  for (const Constraint &C : M.constraints()) {
    Index.clear();
    Value.clear();
    for (const Term &T : C.Terms) {
      Index.push_back(static_cast<int>(T.Var.Index));
      Value.push_back(T.Coef);
    }
    CM.addRow(static_cast<int>(Index.size()), Index.data(), Value.data(),
              toCoinBound(C.Lower), toCoinBound(C.Upper), C.Name.c_str());
  }
}

/// The argument vector of CbcMain1 (argv[0] is a dummy program name).
std::vector<std::string> cbcArguments(const SolveOptions &Options) {
  std::vector<std::string> Args = {"tacclc", "-log", Options.Log ? "1" : "0"};
  if (hasTimeLimit(Options)) {
    Args.insert(Args.end(),
                {"-sec", fmt::format("{}", Options.TimeLimitSeconds)});
  }
  unsigned Threads = Options.Threads <= 1 ? 0 : Options.Threads;
  Args.insert(Args.end(),
              {"-threads", std::to_string(Threads), "-ratioGap",
               fmt::format("{}", Options.RelativeGap), "-timeMode", "elapsed"});
  if (Options.Seed > 0) {
    std::string Seed = std::to_string(Options.Seed);
    Args.insert(Args.end(), {"-randomCbcSeed", Seed, "-randomSeed", Seed});
  }
  Args.insert(Args.end(), {"-solve", "-quit"});
  return Args;
}

/// Copies CBC's incumbent into \p S, rounding near-integral integer values,
/// and recomputes the objective from the copied values.
void takeValues(Solution &S, const Model &M, const double *X) {
  const std::vector<Variable> &Vars = M.variables();
  S.Values.assign(X, X + Vars.size());
  double Objective = M.getObjectiveOffset();
  for (size_t I = 0; I < Vars.size(); ++I) {
    double &V = S.Values[I];
    if (Vars[I].Kind != VarKind::Continuous) {
      double R = std::round(V);
      if (std::fabs(V - R) <= IntegerRounding)
        V = R;
    }
    if (V == 0.0)
      V = 0.0; // no "-0" in any output
    Objective += Vars[I].Objective * V;
  }
  S.Objective = Objective;
}

/// CBC reports "no bound" as +-COIN_DBL_MAX and "no incumbent" as 1e50.
double boundOrNaN(double Bound, double Offset) {
  if (!std::isfinite(Bound) || std::fabs(Bound) >= 1e29)
    return NaN;
  return Bound + Offset;
}

/// Seconds an isolated CBC may run past its time limit before it is
/// stopped, and how long before SolveOptions::Until it is asked to stop.
/// Searching, CBC stops at its next node, well within this; in
/// preprocessing or the root LP it checks no clock at all (for minutes on a
/// large model), and waiting longer would only eat the time of what comes
/// after the solve.
double graceSeconds(double Limit) { return 0.25 + 0.025 * Limit; }

/// Feeds CBC's incumbent and bound to a ProgressReporter (when there is
/// one), and stops the search at the next node once SolveOptions::Until
/// has passed, as CBC stops at its own time limit: with its incumbent.
/// Clones made for the sub-searches of heuristics (models with a parent)
/// stay quiet. Every other answer is the base class's (no action), so the
/// search is unchanged until then.
class SolveEvents : public CbcEventHandler {
public:
  SolveEvents(ProgressReporter *Reporter, const Model &M, Deadline Until,
              bool &Stopped)
      : Reporter(Reporter), Maximize(M.getSense() == Sense::Maximize),
        Offset(M.getObjectiveOffset()), Until(Until), Stopped(&Stopped) {}
  CbcAction event(CbcEvent Event) override {
    observe(Event);
    return stopsNow(Event) ? stop : CbcEventHandler::event(Event);
  }
  CbcAction event(CbcEvent Event, void *Data) override {
    observe(Event);
    return stopsNow(Event) ? stop : CbcEventHandler::event(Event, Data);
  }
  CbcEventHandler *clone() const override { return new SolveEvents(*this); }

private:
  bool stopsNow(CbcEvent Event) const {
    if ((Event != node && Event != treeStatus) || !Until.hasPassed())
      return false;
    *Stopped = true;
    return true;
  }

  void observe(CbcEvent Event) const {
    // beforeSolution events show a candidate in the incumbent's place.
    if (!Reporter || !model_ || model_->parentModel() || !model_->solver() ||
        Event == beforeSolution1 || Event == beforeSolution2)
      return;
    // CbcMain1 may minimise -objective instead of maximising the objective.
    double Sign = Maximize && model_->solver()->getObjSense() > 0 ? -1 : 1;
    double Incumbent =
        model_->bestSolution() ? boundOrNaN(model_->getObjValue(), 0) : NaN;
    double Bound = boundOrNaN(model_->getBestPossibleObjValue(), 0);
    Reporter->update(Sign * Incumbent + Offset, Sign * Bound + Offset);
  }

  ProgressReporter *Reporter;
  bool Maximize;
  double Offset;
  Deadline Until;
  bool *Stopped;
};

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
                  : "time limit reached; returning the warm start";
  S.Status = SolveStatus::Feasible;
  S.Values = std::move(Start.Values);
  S.Objective = Start.Objective;
}

/// Runs CBC on \p M and classifies the outcome. May throw CoinError.
Solution runCbc(const Model &M, const SolveOptions &Options,
                Clock::time_point Start, ProgressReporter &Progress) {
  CoinModel CM;
  loadCoinModel(M, CM);

  OsiClpSolverInterface Lp;
  Lp.messageHandler()->setLogLevel(Options.Log ? 1 : 0);
  if (Lp.loadFromCoinModel(CM) != 0)
    throw CoinError("loadFromCoinModel failed", "runCbc", "CbcSolver.cpp");

  CbcModel Cbc(Lp);
  Cbc.setLogLevel(Options.Log ? 1 : 0);
  if (!Options.WarmStart.empty()) {
    std::vector<const char *> Names;
    Names.reserve(M.numVariables());
    for (const Variable &V : M.variables())
      Names.push_back(V.Name.c_str());
    Cbc.setMIPStart(static_cast<int>(Names.size()), Names.data(),
                    Options.WarmStart.data());
  }

  CbcSolverUsefulData Data;
  CbcMain0(Cbc, Data);
  Data.noPrinting_ = !Options.Log;
  Data.useSignalHandler_ = false;
  bool StoppedAtDeadline = false;
  if (Progress.enabled() || Options.Until.isSet()) {
    // Asked to stop a grace before Until, by when an isolated CBC that
    // could not stop is killed.
    double Left = Options.Until.secondsLeft();
    Deadline StopAt = Options.Until.isSet()
                          ? Deadline::after(Left - graceSeconds(Left))
                          : Deadline();
    SolveEvents Events(Progress.enabled() ? &Progress : nullptr, M, StopAt,
                       StoppedAtDeadline);
    Cbc.passInEventHandler(&Events); // stores a clone
  }

  std::vector<std::string> Args = cbcArguments(Options);
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  int Rc = CbcMain1(static_cast<int>(Argv.size()), Argv.data(), Cbc, noCallback,
                    Data);
  double Elapsed = secondsSince(Start);

  Solution S;
  if (Rc != 0) {
    S.Status = SolveStatus::Error;
    S.Message = fmt::format("CbcMain1 returned {}", Rc);
    return S;
  }
  if (Cbc.getNumCols() != static_cast<int>(M.numVariables())) {
    S.Status = SolveStatus::Error;
    S.Message = fmt::format("CBC returned {} columns for {} variables",
                            Cbc.getNumCols(), M.numVariables());
    return S;
  }

  const double *X = Cbc.bestSolution();
  double Offset = M.getObjectiveOffset();
  bool TimedOut =
      Cbc.isSecondsLimitReached() || StoppedAtDeadline ||
      (hasTimeLimit(Options) && Elapsed >= Options.TimeLimitSeconds);
  if (Cbc.isAbandoned()) {
    S.Status = SolveStatus::Error;
    S.Message = "CBC abandoned the search (numerical difficulties)";
  } else if (X && Cbc.isProvenOptimal()) {
    S.Status = SolveStatus::Optimal;
    takeValues(S, M, X);
    S.BestBound = boundOrNaN(Cbc.getBestPossibleObjValue(), Offset);
  } else if (X) {
    S.Status = SolveStatus::Feasible;
    takeValues(S, M, X);
    S.BestBound = boundOrNaN(Cbc.getBestPossibleObjValue(), Offset);
    S.Message = TimedOut ? "time limit reached"
                         : fmt::format("CBC stopped early (status {}/{})",
                                       Cbc.status(), Cbc.secondaryStatus());
  } else if (Cbc.isProvenInfeasible() && TimedOut) {
    // CBC's preprocessing says "infeasible" when it runs out of time.
    S.Status = SolveStatus::NoSolution;
    S.Message = "time limit reached (CBC claimed infeasibility after the "
                "limit, which is not trusted)";
  } else if (Cbc.isProvenInfeasible()) {
    S.Status = SolveStatus::Infeasible;
  } else if (Cbc.isContinuousUnbounded() || Cbc.isProvenDualInfeasible()) {
    S.Status = SolveStatus::Unbounded;
  } else if (TimedOut) {
    S.Status = SolveStatus::NoSolution;
    S.Message = "time limit reached";
    S.BestBound = boundOrNaN(Cbc.getBestPossibleObjValue(), Offset);
  } else {
    S.Status = SolveStatus::Error;
    S.Message = fmt::format("CBC ended without a verdict (status {}/{})",
                            Cbc.status(), Cbc.secondaryStatus());
  }
  S.HitTimeLimit = TimedOut && (S.Status == SolveStatus::Feasible ||
                                S.Status == SolveStatus::NoSolution);
  return S;
}

/// runCbc with CBC's exceptions turned into SolveStatus::Error.
Solution runCbcOnce(const Model &M, const SolveOptions &Options,
                    Clock::time_point Start, ProgressReporter &Progress) {
  Solution S;
  try {
    S = runCbc(M, Options, Start, Progress);
  } catch (const CoinError &E) {
    S.Status = SolveStatus::Error;
    S.Message = "CBC error in " + E.className() + "::" + E.methodName() + ": " +
                E.message();
  } catch (const std::exception &E) {
    S.Status = SolveStatus::Error;
    S.Message = std::string("exception during CBC solve: ") + E.what();
  } catch (...) {
    S.Status = SolveStatus::Error;
    S.Message = "unknown exception during CBC solve";
  }
  return S;
}

/// Runs CBC with the warm-start fallback and the progress report;
/// exceptions become Error.
Solution runCbcCaught(const Model &M, const SolveOptions &Options,
                      Clock::time_point Start) {
  ProgressReporter Progress(Options.Progress, Options.ProgressLabel, Start);
  Solution S = runCbcOnce(M, Options, Start, Progress);
  // CBC 2.10's MIP-start code can fail on a model its preprocessing has
  // changed (it asks for the name of a column that is gone). Solve again
  // without the start, in the time left; the start still competes below.
  double Left = hasTimeLimit(Options)
                    ? Options.TimeLimitSeconds - secondsSince(Start)
                    : Options.TimeLimitSeconds;
  if (S.Status == SolveStatus::Error && !Options.WarmStart.empty() &&
      (!hasTimeLimit(Options) || Left > 0)) {
    SolveOptions Retry = Options;
    Retry.WarmStart.clear();
    Retry.TimeLimitSeconds = Left;
    Solution Again = runCbcOnce(M, Retry, Start, Progress);
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
  bool Failed = S.Status == SolveStatus::Error;
  Progress.finish(S.hasValues() ? S.Objective : NaN,
                  Failed ? NaN : S.BestBound);
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

/// Runs CBC in a child process (Subprocess.h). A crash, overrun or memory
/// exhaustion of the child falls back to a feasible warm start, else it is
/// an Error.
Solution runIsolated(const Model &M, const SolveOptions &Options,
                     Clock::time_point Start) {
  std::string Error;
  ChildLimits Limits;
  Limits.MemoryBytes = Options.MemoryLimitBytes;
  // CBC stops itself at its limit (or a grace before Until) at its next
  // search node; the child is stopped a grace after its limit, or at Until.
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
        Solution S = runCbcCaught(M, Options, Start);
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
  } else if (Options.Progress == ProgressMode::Line) {
    clearProgressLine(STDERR_FILENO); // the child died mid-line
  }
  Solution S;
  S.Status = SolveStatus::Error;
  S.HitTimeLimit = Error.find("time limit") != std::string::npos;
  S.PeakMemoryBytes = Report.PeakBytes;
  S = warmStartOr(std::move(S), M, Options, Error);
  if (!S.hasValues())
    S.HitTimeLimit = false;
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
    S = Options.Isolate ? runIsolated(M, Options, Start)
                        : runCbcCaught(M, Options, Start);
  }
  if (!S.hasValues())
    S.Values.clear();
  if (S.Status == SolveStatus::Error)
    S.Objective = S.BestBound = NaN;
  S.Seconds = secondsSince(Start);
  return S;
}
