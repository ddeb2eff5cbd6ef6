//===- codegen/EmitVerified.h - Lowering policy, verification --*- C++ -*-===//
//
// What every command that writes a program shares between a schedule and
// the text it writes: the lowering (LowerToProgram.cpp), the choices made
// around it, and the proof. emitVerified() decides whether a link's stream
// is split into waves (by simulating both programs when calls take several
// buffer slices), lowers with relays fused, and if the fused program fails
// the checker, lowers again with fewer ranks fused; it adjusts the program
// for the target dialect, prints it once, loads it once with the runtime's
// own loader and proves it once with the symbolic checker. A program that
// still fails is a compiler bug.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CODEGEN_EMITVERIFIED_H
#define TACCLC_CODEGEN_EMITVERIFIED_H

#include "codegen/Codegen.h"

#include "format/Plan.h"
#include "sim/Simulator.h"

#include <optional>
#include <string>

namespace tacclc {

/// Whether the program splits link streams into waves so that the
/// runtime's buffer slices overlap (codegen/Streams.cpp).
enum class SliceOverlap {
  Auto, ///< Where calls take several slices, whichever simulates faster.
  On,   ///< Where calls take several slices.
  Off,  ///< Never.
};

/// Whether a rank's sends through its NIC wait their turn
/// (codegen/PaceNics.cpp).
enum class NicPacing {
  Auto, ///< Where a port is shared, whichever simulates faster.
  On,   ///< Always.
  Off,  ///< Never.
};

/// What the caller decides about a program; the rest follows from the
/// sketch (its instances, size range and reduction-order demand).
struct EmitOptions {
  /// The runtime the program is for.
  tacclrt::Dialect Dialect = tacclrt::Dialect::Executor;
  /// Whether link streams are split into waves.
  SliceOverlap Overlap = SliceOverlap::Off;
  /// Whether sends through its NIC wait their turn.
  NicPacing Pacing = NicPacing::Off;
  /// Messages a connection's FIFO holds, as fused threadblocks may count
  /// on (CodegenOptions::FifoMessages); the first lowering's.
  unsigned FifoMessages = 1;
  /// A trial simulation's work budget: it stops once the messages in
  /// flight summed over its events pass this (codegen/EmitVerified.cpp);
  /// 2^30 is about 40 s of the in-house engine on one core.
  long TrialFlowUpdates = 1L << 30;
  /// What the program records about where it came from (format/Plan.h);
  /// printed with it, ignored by the runtimes.
  tacclrt::Provenance Origin;
};

/// A verified program, and how it was lowered.
struct EmittedProgram {
  /// The lowered program.
  ir::Program Program;
  /// Its TACCL-EF text.
  std::string Xml;
  /// The text as the runtime's loader read it.
  tacclrt::Algo Plan;
  /// The options of the lowering that was kept.
  CodegenOptions Options;
  /// Relay fusion was given up because the fused program did not verify.
  bool FusionDropped = false;
  /// Ranks were left unfused because the program ordered for the FIFO
  /// simulated faster than one fused for a FIFO of one message.
  bool UnfusedFaster = false;
  /// The in-house simulation of the program at the sketch's call
  /// (simulatedCall(), codegen/SimMachine.h), where a choice above ran it.
  std::optional<tacclrt::SimResult> Simulation;
  /// Trial simulations that stopped at their work budget, so that the
  /// candidate simulated to the end was kept (codegen/EmitVerified.cpp).
  unsigned TrialsStopped = 0;
  /// The kept program's own trial stopped (so Simulation is empty): a
  /// simulation to the end would cost more than the budget.
  bool SimulationStopped = false;

  /// The number of ranks left unfused.
  unsigned unfusedRanks() const;
  /// How relays were fused, for a summary line: empty when as planned,
  /// otherwise "; " and what changed and why.
  std::string fusionNote() const;
  /// Trial simulations stopped, for a summary line: empty when none,
  /// otherwise ", " and how many.
  std::string trialNote() const;
};

/// Lowers \p Sch of \p S for \p Opts, chooses among the lowerings described
/// above and verifies the result. Returns nothing after reporting to
/// \p Diags when the program breaks a runtime limit; a program that fails
/// verification is reported as an internal error.
std::optional<EmittedProgram> emitVerified(const ir::Sketch &S,
                                           const ir::Schedule &Sch,
                                           const EmitOptions &Opts,
                                           DiagnosticEngine &Diags);

} // namespace tacclc

#endif // TACCLC_CODEGEN_EMITVERIFIED_H
