//===- solver/CbcRun.cpp - One CBC search in this process -----------------===//
//
// The only file in tacclc that includes CBC headers. runCbcOnce copies a
// solver::Model into a CoinModel, loads it into CLP (OsiClpSolverInterface),
// and runs CBC's own command-line driver (CbcMain0/CbcMain1), which adds
// presolve, cut generators and heuristics that a bare CbcModel lacks.
//
// CBC quirks handled here:
//  * A time limit that expires during CBC's preprocessing makes it claim
//    "infeasible"; when the limit has been used up that claim is reported as
//    NoSolution instead.
//  * Progress comes from a CbcEventHandler passed in between CbcMain0 and
//    CbcMain1 (as in CBC's examples/driver4.cpp); CbcMain1 clones it into the
//    model it searches, whose objective it may have negated.
//
//===----------------------------------------------------------------------===//
#include "solver/CbcRun.h"

#include <fmt/format.h>

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcSolver.hpp"
#include "CoinError.hpp"
#include "CoinModel.hpp"
#include "OsiClpSolverInterface.hpp"

#include <cmath>
#include <exception>
#include <string>
#include <vector>

using namespace tacclc::solver;
using namespace tacclc::solver::cbc;
using tacclc::Deadline;

namespace {

/// Integer values this close to an integer are rounded to it.
constexpr double IntegerRounding = 1e-6;

/// CbcMain1 wants a callback; we need none.
int noCallback(CbcModel *, int) { return 0; }

double toCoinBound(double V) {
  if (V >= Model::Infinity)
    return COIN_DBL_MAX;
  if (V <= -Model::Infinity)
    return -COIN_DBL_MAX;
  return V;
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

/// CBC reports "no bound" as +-COIN_DBL_MAX and "no incumbent" as 1e50.
double boundOrNaN(double Bound, double Offset) {
  if (!std::isfinite(Bound) || std::fabs(Bound) >= 1e29)
    return NaN;
  return Bound + Offset;
}

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

/// Gives \p Cbc the warm start of \p Options (if any), by column name.
void setWarmStart(CbcModel &Cbc, const Model &M, const SolveOptions &Options) {
  if (Options.WarmStart.empty())
    return;
  std::vector<const char *> Names;
  Names.reserve(M.numVariables());
  for (const Variable &V : M.variables())
    Names.push_back(V.Name.c_str());
  Cbc.setMIPStart(static_cast<int>(Names.size()), Names.data(),
                  Options.WarmStart.data());
}

/// Passes a SolveEvents handler to \p Cbc when there is progress to report
/// or a deadline to keep; \p StoppedAtDeadline is set if it stops CBC.
void passInEvents(CbcModel &Cbc, const Model &M, const SolveOptions &Options,
                  ProgressReporter &Progress, bool &StoppedAtDeadline) {
  if (!Progress.enabled() && !Options.Until.isSet())
    return;
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

/// Runs CBC's command-line driver on \p Cbc with cbcArguments(); returns
/// CbcMain1's result.
int callCbcMain(CbcModel &Cbc, CbcSolverUsefulData &Data,
                const SolveOptions &Options) {
  std::vector<std::string> Args = cbcArguments(Options);
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  return CbcMain1(static_cast<int>(Argv.size()), Argv.data(), Cbc, noCallback,
                  Data);
}

/// The verdict on a search CBC has finished without error; \p TimedOut
/// says whether it ran out of time.
Solution classifyOutcome(CbcModel &Cbc, const Model &M, bool TimedOut) {
  Solution S;
  const double *X = Cbc.bestSolution();
  double Offset = M.getObjectiveOffset();
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
  setWarmStart(Cbc, M, Options);

  CbcSolverUsefulData Data;
  CbcMain0(Cbc, Data);
  Data.noPrinting_ = !Options.Log;
  Data.useSignalHandler_ = false;
  bool StoppedAtDeadline = false;
  passInEvents(Cbc, M, Options, Progress, StoppedAtDeadline);
  int Rc = callCbcMain(Cbc, Data, Options);
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
  bool TimedOut =
      Cbc.isSecondsLimitReached() || StoppedAtDeadline ||
      (hasTimeLimit(Options) && Elapsed >= Options.TimeLimitSeconds);
  return classifyOutcome(Cbc, M, TimedOut);
}

} // namespace

void cbc::takeValues(Solution &S, const Model &M, const double *X) {
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

Solution cbc::runCbcOnce(const Model &M, const SolveOptions &Options,
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
