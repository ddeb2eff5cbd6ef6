//===- sim/Simulator.h - Alpha-beta simulator -------------------*- C++ -*-===//
//
// Predicts how long a TACCL-EF plan takes on a modelled machine, without a
// GPU. The plan runs as the MSCCL runtime runs it: the whole program once
// per slice of the buffer (the runtime's loop), each threadblock's steps in
// order, dependencies on published steps, sends and receives paired per
// (sender, receiver, channel) connection through FIFOs of a few messages.
// A send waits for a free FIFO slot, not for the message to land, so
// successive messages on a connection overlap their latency. Each message
// crosses the machine's link between its two ranks: its hop latency first
// (the link's alpha, at least the protocol's per-hop latency), then its
// bytes on the wire (LL and LL128 carry flags) at a max-min fair share of
// its link and of every shared port it uses (a NIC's send or receive side,
// a switch port), so concurrent transfers slow each other down. A call
// starts after the protocol's launch latency. Local copies and reductions
// are free.
//
// protocolCosts() holds the protocol figures; every engine (this one and
// the SimGrid referee) charges them through the same functions.
//
// The machine is a plain description (ranks, links, shared ports) so that
// this layer does not depend on the compiler; tools build it from a
// topology.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMULATOR_H
#define TACCLC_SIM_SIMULATOR_H

#include "format/Diagnostic.h"
#include "format/Plan.h"

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

/// What a link is made of, for the protocols' per-hop latencies.
enum class LinkKind {
  Intra, ///< Inside a node: NVLink, NVSwitch.
  Net,   ///< Between nodes, through NICs.
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
  /// Inside a node or across the network.
  LinkKind Kind = LinkKind::Intra;
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

/// How a link or shared port serves the messages that cross it at once.
enum class PortService {
  /// Max-min fair sharing of the bandwidth (flow-level models, SimGrid's).
  Fair,
  /// One message at a time, whole, in the order their data is ready; the
  /// others wait. A plan that relies on many concurrent flows sharing a
  /// port slows down under it.
  Serial,
};

/// A protocol's costs, as both simulation engines charge them.
struct ProtocolCosts {
  /// Bytes on the wire per data byte (LL: 16 per 8, LL128: 128 per 120).
  double WirePerDataByte = 1;
  /// Least latency of one hop, microseconds, by LinkKind (NCCL's per-hop
  /// latencies of its ring tuning model).
  double HopUs[2] = {0, 0};
  /// Latency of a call before its first step (NCCL's base latency).
  double LaunchUs = 0;
  /// Data bytes of one of the connection FIFO's steps; a message takes as
  /// many steps as its bytes need (at least one).
  double StepBytes = 1;
  /// Steps a connection's FIFO holds (NCCL_STEPS).
  unsigned FifoSteps = 8;
};

/// The costs of protocol \p P.
ProtocolCosts protocolCosts(Protocol P);

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
  /// Messages a connection holds before a send waits, each taking one
  /// FIFO step; 0 = the protocol's FIFO of 8 steps, a message taking as
  /// many steps as its bytes need (a full Simple slice takes 4).
  unsigned FifoMessages = 0;
  /// Charge the protocol's costs (wire overhead, per-hop and launch
  /// latency); off, a message costs exactly its link's alpha and beta.
  bool ProtocolOverheads = true;
  /// How links and ports serve concurrent messages.
  PortService Service = PortService::Fair;
  /// Record every transfer (for timelines).
  bool RecordTransfers = false;
  /// Stop once the messages in flight summed over events (SimResult's
  /// FlowUpdates, the simulation's work) pass this; 0: never. A stopped
  /// simulation is not Ok and says it stopped.
  long MaxFlowUpdates = 0;
};

/// The latency of one message on \p L under protocol \p P (the link's
/// alpha, at least the protocol's per-hop latency when \p O charges
/// protocol overheads).
double hopLatencyUs(const SimLink &L, Protocol P, const SimOptions &O);

/// The bytes on the wire of a message of \p DataBytes under \p P.
double wireBytes(double DataBytes, Protocol P, const SimOptions &O);

/// The latency before a call's first step under \p P.
double launchLatencyUs(Protocol P, const SimOptions &O);

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
  /// When the send was posted (after its wait for FIFO room), when its
  /// bytes started to move (after the hop latency) and when the last byte
  /// arrived, microseconds.
  double StartUs = 0, DataUs = 0, EndUs = 0;
};

/// What one simulation found.
struct SimResult {
  /// True when the plan ran to the end.
  bool Ok = false;
  /// Time of the whole call, microseconds.
  double TimeUs = 0;
  /// Loop iterations the call needed.
  long Iterations = 0;
  /// Events processed (times the clock advanced to a message leaving its
  /// latency or landing), and messages in flight summed over them: the
  /// simulation's work, counted.
  long Events = 0, FlowUpdates = 0;
  /// Stopped at SimOptions::MaxFlowUpdates before the end.
  bool Stopped = false;
  /// Every message (with SimOptions::RecordTransfers).
  std::vector<SimTransfer> Transfers;
  /// Problems (a connection without a link, a deadlock, bad sizes).
  Report Issues;
};

/// Simulates one call of \p A on \p M. \p FileName labels issues.
SimResult simulate(const Algo &A, const SimMachine &M, const SimOptions &Opts,
                   std::string_view FileName = {});

} // namespace tacclrt

#endif // TACCLC_SIM_SIMULATOR_H
