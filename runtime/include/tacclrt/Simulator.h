//===- runtime/include/tacclrt/Simulator.h - Alpha-beta simulator -*- C++ -*-=//
//
// Predicts how long a TACCL-EF plan takes on a modelled machine, without a
// GPU. The plan runs as the MSCCL runtime runs it: the whole program once
// per slice of the buffer (the runtime's loop), each threadblock's steps in
// order, dependencies on published steps, sends and receives paired per
// (sender, receiver, channel) connection through FIFOs of a few messages.
// Each message crosses the machine's link between its two ranks: alpha
// first, then its bytes at the link's bandwidth, shared equally with the
// other messages on that link and on every shared port it uses (a NIC's
// send or receive side, a switch port), so concurrent transfers slow each
// other down. Local copies and reductions are free.
//
// The machine is a plain description (ranks, links, shared ports) so that
// this layer does not depend on the compiler; tools build it from a
// topology.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLRT_SIMULATOR_H
#define TACCLRT_SIMULATOR_H

#include "tacclrt/Diagnostic.h"
#include "tacclrt/Plan.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tacclrt {

/// A port several links share: its bandwidth is split among them.
struct SimPort {
  /// For messages and timelines ("nic 0 send", "switch nvs 3 in").
  std::string Name;
  /// Inverse bandwidth, microseconds per byte.
  double BetaUsPerB = 0;
};

/// A directed link between two ranks.
struct SimLink {
  /// Sending rank.
  int Src = 0;
  /// Receiving rank.
  int Dst = 0;
  /// Latency per message, microseconds.
  double AlphaUs = 0;
  /// Inverse bandwidth of one physical link, microseconds per byte.
  double BetaUsPerB = 0;
  /// Parallel physical links: the bandwidth is this many times 1/beta.
  unsigned Multiplicity = 1;
  /// The shared ports (indices into SimMachine::Ports) the link uses.
  std::vector<int> Ports;
};

/// The modelled machine.
struct SimMachine {
  /// For messages.
  std::string Name;
  /// Number of ranks.
  int NRanks = 0;
  /// At most one link per ordered rank pair.
  std::vector<SimLink> Links;
  /// Shared ports.
  std::vector<SimPort> Ports;
};

/// Options of one simulated call.
struct SimOptions {
  /// Call size as the runtime selects algorithms by (count x sizeMultiplier
  /// x type size).
  std::uint64_t Bytes = 1 << 20;
  /// Element size in bytes (the runtime slices in elements).
  unsigned TypeSize = 4;
  /// Slice of every chunk per loop iteration, bytes; 0 = the protocol's
  /// (Simple 2 MiB, LL 32 KiB, LL128 576000 B).
  std::uint64_t SliceBytes = 0;
  /// Messages a connection holds before a send waits; 0 = the protocol's
  /// (Simple 2: a message of a full slice takes 4 of NCCL's 8 steps; LL and
  /// LL128 8).
  unsigned FifoMessages = 0;
  /// Record every transfer (for timelines).
  bool RecordTransfers = false;
};

/// One message as it crossed its link.
struct SimTransfer {
  /// Sending and receiving rank.
  int Src = 0, Dst = 0;
  /// Index into SimMachine::Links.
  int Link = 0;
  /// The sending threadblock and step.
  int Tb = 0, Step = 0;
  /// Loop iteration.
  long Iteration = 0;
  /// First chunk offset and chunk count of the sending step.
  int Chunk = 0, Cnt = 1;
  /// Bytes moved.
  double Bytes = 0;
  /// When the send started (after its wait for FIFO room) and when the
  /// last byte arrived, microseconds.
  double StartUs = 0, EndUs = 0;
};

/// What one simulation found.
struct SimResult {
  /// True when the plan ran to the end.
  bool Ok = false;
  /// Time of the whole call, microseconds.
  double TimeUs = 0;
  /// Loop iterations the call needed.
  long Iterations = 0;
  /// Every message (with SimOptions::RecordTransfers).
  std::vector<SimTransfer> Transfers;
  /// Problems (a connection without a link, a deadlock, bad sizes).
  Report Issues;
};

/// Simulates one call of \p A on \p M. \p FileName labels issues.
SimResult simulate(const Algo &A, const SimMachine &M, const SimOptions &Opts,
                   std::string_view FileName = {});

} // namespace tacclrt

#endif // TACCLRT_SIMULATOR_H
