//===- codegen/SimMachine.h - A sketch's machine, simulated -----*- C++ -*-===//
//
// The bridge from the compiler's machine model (ir::Topology) to the
// simulator's (sim/Simulator.h): links with their costs and
// multiplicities, NIC sides and switch ports as shared ports. Code
// generation uses it to time the variants it chooses between; the driver
// uses it to report a compiled program's time and to simulate files on a
// named machine.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CODEGEN_SIMMACHINE_H
#define TACCLC_CODEGEN_SIMMACHINE_H

#include "ir/Sketch.h"
#include "ir/Topology.h"

#include "format/Plan.h"
#include "sim/Simulator.h"

#include <optional>

namespace tacclc {

/// The simulator's view of \p T, with class costs taken at \p ChunkBytes.
tacclrt::SimMachine toSimMachine(ir::Topology T, double ChunkBytes);

/// A call of a program on a sketch's machine at the sketch's size.
struct SketchCall {
  /// The machine, with costs at the call's chunk size.
  tacclrt::SimMachine Machine;
  /// The call: its size rounded up to a whole number of 4-byte elements
  /// per chunk.
  tacclrt::SimOptions Options;
};

/// The call of \p A at \p S's size on \p S's machine; nothing when \p A
/// has no chunks.
std::optional<SketchCall> sketchCall(const tacclrt::Algo &A,
                                     const ir::Sketch &S);

/// The in-house simulation's time of \p A on \p S's machine at the
/// sketch's size, or nothing if it cannot run or the deadline
/// (support/Deadline.h) passes first: a prediction is never worth failing
/// for.
std::optional<double> simulatedUs(const tacclrt::Algo &A, const ir::Sketch &S);

/// simulatedUs() with the whole result of the simulation (only one that
/// ran to the end: Ok). With \p MaxFlowUpdates, a simulation stops there
/// (tacclrt::SimOptions::MaxFlowUpdates): nothing, and \p Stopped set.
std::optional<tacclrt::SimResult> simulatedCall(const tacclrt::Algo &A,
                                                const ir::Sketch &S,
                                                long MaxFlowUpdates = 0,
                                                bool *Stopped = nullptr);

} // namespace tacclc

#endif // TACCLC_CODEGEN_SIMMACHINE_H
