//===- tools/tacclc/ProgramTimes.h - A compiled program's times -*- C++ -*-===//
//
// What the compile reports about the time of its program: the in-house
// simulation (`tacclc sim`) and, where a build has it, the SimGrid
// referee, both on the sketch's machine at its size; and, when either
// disagrees with the schedule model's prediction, what the simulation
// measures to say why (passes/TimeModel.h, explainDisagreement).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_PROGRAMTIMES_H
#define TACCLC_TOOLS_TACCLC_PROGRAMTIMES_H

#include "ir/Sketch.h"
#include "passes/TimeModel.h"

#include "format/Plan.h"
#include "sim/Simulator.h"

#include <optional>
#include <string>

namespace tacclc {

/// A compiled program's times besides the prediction.
struct ProgramTimes {
  /// The in-house simulation, with the measures that explain a gap to the
  /// prediction when there is one.
  std::optional<MeasuredCall> Simulated;
  /// Why there is no in-house simulation, where it was not run.
  std::string SimNote;
  /// The referee's time, when this build has a referee and it ran.
  std::optional<double> RefereeUs;
  /// Why there is no referee time.
  std::string RefereeNote;
};

/// Simulates \p A as simulatedUs() (codegen/SimMachine.h) does; when the time
/// disagrees with \p Predicted, also measures what explains it (one slice
/// alone, ports served one message at a time, how many links share a port at
/// once). Then, with \p AskReferee, asks the referee. \p OrderedForFifo is
/// the FIFO (messages per connection) the program's fused relays were
/// ordered for. \p Known, when given, is that simulation already run
/// (EmittedProgram::Simulation), not run again; \p KnownStopped, that it
/// stopped at its work budget (EmittedProgram::SimulationStopped): then it
/// is not run to the end here either, and SimNote says so. The simulations
/// that explain a gap stop after \p ExplainFlowUpdates messages in flight
/// summed over their events (0: no limit), and a measure whose simulation
/// stops is left out: served one message at a time, messages wait in
/// flight, and a 512-GPU program at 1 MiB takes minutes.
ProgramTimes timeProgram(const tacclrt::Algo &A, const ir::Sketch &S,
                         const CallPrediction &Predicted,
                         unsigned OrderedForFifo, bool AskReferee = true,
                         const tacclrt::SimResult *Known = nullptr,
                         bool KnownStopped = false,
                         long ExplainFlowUpdates = 0);

/// The SimGrid referee's time of \p A on \p M (sim/SimGrid.h, engine
/// `simgrid`), or nothing with \p Why (a build without SimGrid, a failed
/// run). The one place the compile calls the referee.
std::optional<double> refereeUs(const tacclrt::Algo &A,
                                const tacclrt::SimMachine &M,
                                const tacclrt::SimOptions &O, std::string &Why);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_PROGRAMTIMES_H
