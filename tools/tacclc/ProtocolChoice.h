//===- tools/tacclc/ProtocolChoice.h - `protocol auto` ----------*- C++ -*-===//
//
// How the compiler picks a protocol for a sketch that says `protocol auto`.
// Two steps, both on the cost model the rest of the compiler uses:
//   1. before the stages: the protocol whose time model (passes/TimeModel.h:
//      launch, per-hop latency, wire bytes per data byte) makes one chunk
//      cheapest on the sketch's slowest link, so routing, ordering and
//      scheduling weigh latency and bandwidth as that protocol will;
//   2. after lowering: the program simulated under each protocol (tacclc
//      sim) at the sketch's size, and across its size range (its ends and
//      the powers of two between); the protocol with the least
//      geometric-mean time wins, and is the one a single program is
//      written for; each simulation runs on the trial simulations' work
//      budget (codegen/EmitVerified.h), and a protocol whose simulation
//      stops there is not chosen;
//   3. where the compile writes files, a protocol per part of the range:
//      wherever another protocol is the fastest by more than 2%, the range
//      splits at the first sampled size of its run, and each part gets its
//      own program (docs/synthesis.md, "Choosing the protocol").
// A sketch that names a protocol per size range gets those parts as given.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_PROTOCOLCHOICE_H
#define TACCLC_TOOLS_TACCLC_PROTOCOLCHOICE_H

#include "ir/Sketch.h"

#include "format/Plan.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// One program of a compile: the protocol it is written for and the sizes
/// it serves, in the sketch's bytes (both ends included; MaxBytes 0: every
/// larger size, MinBytes 0: every smaller one).
struct ProtocolPiece {
  tacclrt::Protocol Proto = tacclrt::Protocol::Simple;
  std::uint64_t MinBytes = 0, MaxBytes = 0;
};

/// The protocol the stages assume for \p S under `protocol auto` (step 1).
std::string stageProtocol(const ir::Sketch &S);

/// The simulated times of one program under every protocol.
struct ProtocolChoice {
  /// The sizes compared, in bytes (the design point first).
  std::vector<std::uint64_t> Sizes;
  /// Per protocol (Simple, LL128, LL): its time at each size in
  /// microseconds (infinity where it was not simulated: already 1.5x
  /// slower at a smaller size than a protocol with fewer wire bytes), or
  /// nothing where the simulation failed.
  std::vector<std::pair<tacclrt::Protocol, std::vector<double>>> Times;
  /// Protocols whose simulation stopped at the work budget (not in Times).
  std::vector<tacclrt::Protocol> Stopped;
  /// The winner.
  tacclrt::Protocol Best = tacclrt::Protocol::Simple;
};

/// Simulates \p Plan (lowered for \p S) under each protocol (step 2),
/// each simulation stopped after \p MaxFlowUpdates messages in flight
/// summed over its events (tacclrt::SimOptions::MaxFlowUpdates; 0: no
/// limit). Where every simulation stopped there, the protocol \p S's
/// stages assumed is the winner; nothing when no protocol could be
/// simulated at all.
std::optional<ProtocolChoice> chooseProtocol(const tacclrt::Algo &Plan,
                                             const ir::Sketch &S,
                                             long MaxFlowUpdates = 0);

/// The programs to write for \p S: one per part of its `protocol` list;
/// under `protocol auto` with a size range and \p Split, one per run of
/// sizes in \p C that share a fastest protocol (step 3), unless C's winner
/// is within 2% of the fastest at every size; else one, for the whole
/// range.
std::vector<ProtocolPiece> protocolPieces(const ir::Sketch &S,
                                          const ProtocolChoice *C, bool Split);

/// The summary's `protocol` line: the winner and every protocol's times.
void printProtocolChoice(llvm::raw_ostream &OS, const ProtocolChoice &C);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_PROTOCOLCHOICE_H
