//===- solver/CbcRun.cpp - One CBC search in this process -----------------===//
//
// The only file in tacclc that includes CBC headers. runCbcOnce copies a
// solver::Model into a CoinModel, loads it into CLP (OsiClpSolverInterface),
// and runs CBC's own command-line driver (CbcMain0/CbcMain1), which adds
// presolve, cut generators and heuristics that a bare CbcModel lacks.
//
// Time: CBC's own limit (`-sec`, elapsed time) is the earlier of the
// solve's limit and its deadline less a margin; CBC reads it in presolve,
// between cut passes, in its heuristics and at every node. A
// CbcEventHandler also stops the search at the first node, heuristic or
// solution event past the deadline, and the callback CbcMain1 calls
// between its steps stops it between presolve and search. Neither changes
// a search that ends in time: CBC uses its time limit only to stop.
//
// CBC quirks handled here:
//  * A time limit that expires during CBC's preprocessing makes it claim
//    "infeasible"; when the limit has been used up that claim is reported as
//    NoSolution instead.
//  * Progress comes from a CbcEventHandler passed in between CbcMain0 and
//    CbcMain1 (as in CBC's examples/driver4.cpp); CbcMain1 clones it into the
//    model it searches, whose objective it may have negated.
//  * CbcMain1's callback gets no user data: the solve it belongs to is a
//    file-level pointer (solves are serialised, solver/CbcSolver.cpp).
//
//===----------------------------------------------------------------------===//
#include "solver/CbcRun.h"

#include <fmt/format.h>

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcSolver.hpp"
#include "ClpSimplex.hpp"
#include "CoinError.hpp"
#include "CoinModel.hpp"
#include "OsiClpSolverInterface.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <vector>

using namespace tacclc::solver;
using namespace tacclc::solver::cbc;
using tacclc::Deadline;

namespace {

/// Integer values this close to an integer are rounded to it.
constexpr double IntegerRounding = 1e-6;

/// What CbcMain1's callback needs of the solve in progress.
struct RunState {
  LiveSolve *Live;
  Deadline StopAt;
  bool *Stopped;
};
RunState *ActiveRun = nullptr;

/// CbcMain1 calls this between its steps: 2 after preprocessing, 3 just
/// before branch and bound. Past the deadline, a non-zero answer ends the
/// solve there (CBC then returns it).
int betweenSteps(CbcModel *, int WhereFrom) {
  if (!ActiveRun || (WhereFrom != 2 && WhereFrom != 3))
    return 0;
  if (ActiveRun->StopAt.hasPassed()) {
    *ActiveRun->Stopped = true;
    return 1;
  }
  if (WhereFrom == 3)
    ActiveRun->Live->setPhase(SolvePhase::Root);
  return 0;
}

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

/// When CBC is asked to stop: a margin before SolveOptions::Until, by when
/// an isolated CBC that has not stopped is killed.
Deadline stopAt(const SolveOptions &Options) {
  if (!Options.Until.isSet())
    return Deadline();
  double Left = Options.Until.secondsLeft();
  return Deadline::after(Left - graceSeconds(Left));
}

/// The argument vector of CbcMain1 (argv[0] is a dummy program name); CBC's
/// time limit is the earlier of the solve's own and \p StopAt.
std::vector<std::string> cbcArguments(const SolveOptions &Options,
                                      const Deadline &StopAt) {
  std::vector<std::string> Args = {"tacclc", "-log", Options.Log ? "1" : "0"};
  double Seconds = hasTimeLimit(Options)
                       ? Options.TimeLimitSeconds
                       : std::numeric_limits<double>::infinity();
  Seconds = std::min(Seconds, StopAt.secondsLeft());
  if (std::isfinite(Seconds))
    Args.insert(Args.end(),
                {"-sec", fmt::format("{}", std::max(Seconds, 1e-3))});
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

/// Writes CBC's phase, incumbent and bound into a LiveSolve, and stops the
/// search at the first node, heuristic or solution event once the stop
/// time has passed, as CBC stops at its own time limit: with its
/// incumbent. Clones made for the sub-searches of heuristics (models with
/// a parent) stay quiet. Every other answer is the base class's (no
/// action), so the search is unchanged until then.
class SolveEvents : public CbcEventHandler {
public:
  SolveEvents(LiveSolve &Live, const Model &M, Deadline StopAt, bool &Stopped)
      : Live(&Live), Maximize(M.getSense() == Sense::Maximize),
        Offset(M.getObjectiveOffset()), StopAt(StopAt), Stopped(&Stopped) {}
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
    bool Stoppable = Event == node || Event == treeStatus ||
                     Event == solution || Event == heuristicSolution ||
                     Event == afterHeuristic;
    if (!Stoppable || !StopAt.hasPassed())
      return false;
    *Stopped = true;
    return true;
  }

  void observe(CbcEvent Event) const {
    // beforeSolution events show a candidate in the incumbent's place.
    if (!model_ || model_->parentModel() || !model_->solver() ||
        Event == beforeSolution1 || Event == beforeSolution2)
      return;
    if (Event == node || Event == treeStatus)
      Live->setPhase(SolvePhase::Search);
    // CbcMain1 may minimise -objective instead of maximising the objective.
    double Sign = Maximize && model_->solver()->getObjSense() > 0 ? -1 : 1;
    double Incumbent =
        model_->bestSolution() ? boundOrNaN(model_->getObjValue(), 0) : NaN;
    double Bound = boundOrNaN(model_->getBestPossibleObjValue(), 0);
    Live->Incumbent.store(Sign * Incumbent + Offset);
    Live->Bound.store(Sign * Bound + Offset);
  }

  LiveSolve *Live;
  bool Maximize;
  double Offset;
  Deadline StopAt;
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

/// Runs CBC's command-line driver on \p Cbc with cbcArguments() and a
/// SolveEvents handler; returns CbcMain1's result. \p Stopped is set if
/// CBC was stopped at \p StopAt by the handler or the callback.
int callCbcMain(CbcModel &Cbc, CbcSolverUsefulData &Data, const Model &M,
                const SolveOptions &Options, LiveSolve &Live,
                const Deadline &StopAt, bool &Stopped) {
  SolveEvents Events(Live, M, StopAt, Stopped);
  Cbc.passInEventHandler(&Events); // stores a clone
  std::vector<std::string> Args = cbcArguments(Options, StopAt);
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  RunState State{&Live, StopAt, &Stopped};
  ActiveRun = &State;
  Live.setPhase(SolvePhase::Presolve);
  int Rc = CbcMain1(static_cast<int>(Argv.size()), Argv.data(), Cbc,
                    betweenSteps, Data);
  ActiveRun = nullptr;
  return Rc;
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
    S.Message = TimedOut ? "stopped at its time limit with its best solution"
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
                Clock::time_point Start, LiveSolve &Live) {
  CoinModel CM;
  loadCoinModel(M, CM);

  OsiClpSolverInterface Lp;
  Lp.messageHandler()->setLogLevel(Options.Log ? 1 : 0);
  if (Lp.loadFromCoinModel(CM) != 0)
    throw CoinError("loadFromCoinModel failed", "runCbc", "CbcSolver.cpp");
  Deadline StopAt = stopAt(Options);
  if (StopAt.isSet()) {
    // CLP's own wall clock, for the LPs CBC solves without reading its
    // clock (the first relaxation, for one): half the margin after CBC is
    // asked to stop, so CBC has seen its own limit by then.
    double Left = Options.Until.secondsLeft();
    Lp.getModelPtr()->setMaximumWallSeconds(
        std::max(0.0, StopAt.secondsLeft() + graceSeconds(Left) / 2));
  }

  CbcModel Cbc(Lp);
  Cbc.setLogLevel(Options.Log ? 1 : 0);
  setWarmStart(Cbc, M, Options);

  CbcSolverUsefulData Data;
  CbcMain0(Cbc, Data);
  Data.noPrinting_ = !Options.Log;
  Data.useSignalHandler_ = false;
  bool StoppedAtDeadline = false;
  int Rc = callCbcMain(Cbc, Data, M, Options, Live, StopAt, StoppedAtDeadline);
  double Elapsed = secondsSince(Start);

  Solution S;
  if (Rc != 0 && StoppedAtDeadline) {
    // Stopped between presolve and search: CBC kept nothing.
    S.Status = SolveStatus::NoSolution;
    S.HitTimeLimit = true;
    S.Message = "time limit reached before the search began";
    return S;
  }
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
                         Clock::time_point Start, LiveSolve &Live) {
  Solution S;
  try {
    S = runCbc(M, Options, Start, Live);
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
