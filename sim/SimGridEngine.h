//===- sim/SimGridEngine.h - One run on SimGrid -----------------*- C++ -*-===//
//
// Internal to the SimGrid engines: one simulated call executed on SimGrid in
// this process, and what it found. SimGrid allows one simulation per
// process, so SimGridRun.cpp calls this in a child process and carries the
// outcome back; the plan and its shape were checked before.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMGRIDENGINE_H
#define TACCLC_SIM_SIMGRIDENGINE_H

#include "format/Program.h"
#include "sim/SimCall.h"
#include "sim/SimGrid.h"

#include <string>
#include <vector>

namespace tacclrt {

/// A threadblock that could not finish.
struct SgStuck {
  int Rank = 0, Tb = 0, Pos = 0;
  long Iteration = 0;
  /// 0: a dependency, 1: a message, 2: room to send.
  int What = 0;
};

/// What one SimGrid run found.
struct SgOutcome {
  /// Every threadblock ran to the end.
  bool Ok = false;
  /// The simulated clock at the end, microseconds.
  double TimeUs = 0;
  /// Every message (with SimOptions::RecordTransfers).
  std::vector<SimTransfer> Transfers;
  /// The threadblocks left waiting (a deadlock), at most a few.
  std::vector<SgStuck> Stuck;
};

/// Runs one call of \p A (its program \p P, sizes \p Shape) on \p M under
/// SimGrid's model \p K. Call at most once per process.
SgOutcome runOnSimGrid(const Algo &A, const Program &P,
                       const SimCallShape &Shape, const SimMachine &M,
                       const SimOptions &O, SimEngineKind K);

} // namespace tacclrt

#endif // TACCLC_SIM_SIMGRIDENGINE_H
