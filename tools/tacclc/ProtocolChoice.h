//===- tools/tacclc/ProtocolChoice.h - `protocol auto` ----------*- C++ -*-===//
//
// How the compiler picks a protocol for a sketch that says `protocol auto`.
// Two steps, both on the cost model the rest of the compiler uses:
//   1. before the stages: the protocol whose time model (passes/TimeModel.h:
//      launch, per-hop latency, wire bytes per data byte) makes one chunk
//      cheapest on the sketch's slowest link, so routing, ordering and
//      scheduling weigh latency and bandwidth as that protocol will;
//   2. after lowering: the program simulated under each protocol (tacclc
//      sim) at the sketch's size, and at both ends of its size range; the
//      protocol with the least geometric-mean time wins and the program is
//      emitted for it.
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

/// The protocol the stages assume for \p S under `protocol auto` (step 1).
std::string stageProtocol(const ir::Sketch &S);

/// The simulated times of one program under every protocol.
struct ProtocolChoice {
  /// The sizes compared, in bytes (the design point first).
  std::vector<std::uint64_t> Sizes;
  /// Per protocol (Simple, LL, LL128): its time at each size in
  /// microseconds, or nothing where the simulation failed.
  std::vector<std::pair<tacclrt::Protocol, std::vector<double>>> Times;
  /// The winner.
  tacclrt::Protocol Best = tacclrt::Protocol::Simple;
};

/// Simulates \p Plan (lowered for \p S) under each protocol (step 2);
/// nothing when no protocol could be simulated.
std::optional<ProtocolChoice> chooseProtocol(const tacclrt::Algo &Plan,
                                             const ir::Sketch &S);

/// The summary's `protocol` line: the winner and every protocol's times.
void printProtocolChoice(llvm::raw_ostream &OS, const ProtocolChoice &C);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_PROTOCOLCHOICE_H
