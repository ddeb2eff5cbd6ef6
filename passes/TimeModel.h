//===- passes/TimeModel.h - What a transfer costs ---------------*- C++ -*-===//
//
// The one cost model of the synthesis stages. A transfer of one chunk over
// a link costs what the simulator (sim/Simulator.h, `tacclc sim`)
// charges a message of the same size:
//   - its hop latency: the link's alpha, at least the protocol's per-hop
//     latency (tacclrt::hopLatencyUs);
//   - its wire time: the protocol's wire bytes (LL and LL128 carry flags,
//     tacclrt::wireBytes) times the link's beta.
// Only the wire time occupies the link lane and the shared ports: the
// latency of the next message on a lane overlaps the data of the one
// before it, as the runtime's connection FIFO lets it (a sender waits for
// a free FIFO step, not for its message to land), and a lane holds at most
// the FIFO's messages in flight.
//
// The runtime moves a chunk one slice per loop iteration (Simple: 2 MiB),
// running the whole program once per slice. The stages therefore schedule
// one slice of every chunk (unitBytes()); a call of several slices per
// chunk is predicted as that schedule plus, for every further slice, the
// wire time of the busiest link or port per slice (the pipeline's steady
// state), after the protocol's launch latency (predictCall()).
//
// The protocol figures are the runtime's (tacclrt::protocolCosts): the
// schedule and the simulator read them from one place.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_TIMEMODEL_H
#define TACCLC_PASSES_TIMEMODEL_H

#include "ir/Schedule.h"
#include "ir/Sketch.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// Costs of the transfers of one sketch at its size and protocol.
class TimeModel {
public:
  explicit TimeModel(const ir::Sketch &S);

  /// Slices the runtime cuts one chunk (of one instance) into at the
  /// sketch's size: the loop iterations of a call.
  unsigned slices() const { return Slices; }
  /// Data bytes of one chunk per slice: what one transfer of the schedule
  /// moves.
  double unitBytes() const { return Unit; }
  /// The protocol's latency before a call's first step.
  double launchUs() const { return LaunchUs; }
  /// Latency of one message over link \p L.
  double hopUs(ir::LinkId L) const { return Hop[L.index()]; }
  /// Time the wire bytes of \p Chunks units take on one lane of \p L.
  double dataUs(ir::LinkId L, double Chunks = 1) const {
    return Data[L.index()] * Chunks;
  }
  /// Latency plus wire time: one transfer alone.
  double costUs(ir::LinkId L) const { return hopUs(L) + dataUs(L); }
  /// How long one chunk (every slice of it) holds a lane of \p L: its wire
  /// time, or, where messages are small, the FIFO's pace (a lane moves at
  /// most fifoMessages() messages per latency and wire time).
  double laneLoadUs(ir::LinkId L) const {
    return Slices * std::max(dataUs(L), costUs(L) / fifoMessages(1));
  }
  /// How long one chunk holds each shared port of \p L: its wire time.
  double portLoadUs(ir::LinkId L) const { return Slices * dataUs(L); }
  /// Messages of \p Chunks units a connection holds in flight before the
  /// sender waits (its FIFO steps over the steps one message takes).
  unsigned fifoMessages(unsigned Chunks = 1) const;
  /// FIFO steps one message of \p Chunks units takes.
  unsigned stepsOf(unsigned Chunks) const;
  /// FIFO steps of one connection.
  unsigned fifoSteps() const { return FifoSteps; }

private:
  unsigned Slices = 1;
  unsigned Instances = 1;
  double Unit = 0;
  double LaunchUs = 0;
  double StepBytes = 1;
  unsigned FifoSteps = 8;
  std::vector<double> Hop, Data;
};

/// The time of a whole call as the stages' model predicts it.
struct CallPrediction {
  /// The protocol's launch latency.
  double LaunchUs = 0;
  /// The schedule's makespan: one slice of every chunk.
  double ScheduleUs = 0;
  /// Slices per chunk (loop iterations).
  unsigned Slices = 1;
  /// Each further slice: the wire time per slice of the busiest link lane
  /// or shared port.
  double SliceUs = 0;
  /// That link or port ("link 3->8", "nic 0 send").
  std::string Busiest;
  /// The busiest link's parallel links (lanes); 0 when it is a port.
  unsigned BusiestLanes = 0;
  /// The chain of hops that ends last in the schedule (the chunk's way
  /// from its source, through the transfers each waited for): their
  /// number and summed latency.
  unsigned CriticalHops = 0;
  double CriticalLatencyUs = 0;
  /// Messages of one slice a connection holds in flight, as the schedule
  /// overlaps them.
  unsigned FifoMessages = 1;
  /// The schedule's messages (transfers less merges) and the link lanes
  /// they use.
  unsigned Messages = 0, Lanes = 0;
  /// Launch + schedule + (slices - 1) x per-slice time.
  double TotalUs = 0;

  /// The share of the prediction that is latency (launch and the hops of
  /// the critical chain).
  double latencyShare() const {
    return TotalUs > 0 ? (LaunchUs + CriticalLatencyUs) / TotalUs : 0;
  }
};

/// The prediction for \p Sched, a schedule of \p S's transfers timed by
/// TimeModel(S) (the final schedule of a compile, reductions included).
CallPrediction predictCall(const ir::Sketch &S, const ir::Schedule &Sched);

/// What a simulation of the compiled program measured, beyond its time:
/// the quantities that tell why it differs from the prediction.
struct MeasuredCall {
  /// The engine, for the reason's wording ("the simulation").
  std::string Engine = "the simulation";
  /// The call's time.
  double TimeUs = 0;
  /// Loop iterations (slices per chunk) it ran.
  unsigned Slices = 1;
  /// The time of one slice of every chunk alone (a call of one slice per
  /// chunk), launch included; 0 when not measured.
  double OneSliceUs = 0;
  /// The most links whose messages moved data through one shared port at
  /// once, and that port; 0 when not measured.
  unsigned PortSharing = 0;
  std::string SharedPort;
  /// The call with every link and port serving one message at a time.
  std::optional<double> SerialUs;
  /// Messages per connection the program's fused threadblocks are ordered
  /// for (codegen's FIFO, CodegenOptions::FifoMessages); 0 when unknown.
  unsigned OrderedForFifo = 0;
  /// The program was lowered for OrderedForFifo messages from the start (a
  /// baseline), not after the order for more failed verification.
  bool FifoAsAsked = false;
  /// The program's sends of one slice (a step of several chunks is one)
  /// and its connections; 0 when not counted.
  unsigned ProgramMessages = 0, ProgramConnections = 0;
  /// Events the simulation processed and messages in flight summed over
  /// them (its work, counted); 0 when unknown.
  long Events = 0, FlowUpdates = 0;
};

/// Why a prediction and a measured time disagree.
struct Disagreement {
  /// The class of cause, one of the keys of docs/synthesis.md's table of
  /// known disagreements: "pipeline", "fifo-order", "port-sharing",
  /// "merges", "segments", "lanes", "latency", "bandwidth".
  std::string Class;
  /// One line, from the measured quantities.
  std::string Reason;
};

/// Predicted and measured times disagree when they differ by more than
/// \p Tolerance of the smaller.
bool timesDisagree(double A, double B, double Tolerance = 0.15);

/// The cause of the gap between \p P and \p M, chosen by which measured
/// quantity accounts for it: the further slices' pace (several slices), a
/// program ordered for fewer messages in flight than the schedule
/// overlaps (FIFO order), a simulation with ports served one message at a
/// time that lands near the prediction (port sharing), a faster program
/// that sends fewer messages than the schedule (merges) or spreads them
/// over more connections (segments), a faster simulation whose busiest
/// link has parallel lanes (lanes), the share of latency in the
/// prediction (latency), else the busiest link or port (bandwidth).
/// Nothing when they agree within \p Tolerance.
std::optional<Disagreement> explainDisagreement(const CallPrediction &P,
                                                const MeasuredCall &M,
                                                double Tolerance = 0.15);

} // namespace tacclc

#endif // TACCLC_PASSES_TIMEMODEL_H
