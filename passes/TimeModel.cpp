//===- passes/TimeModel.cpp - What a transfer costs, as tacclc sim charges
//-===//
//
// Costs per link from the runtime's protocol figures; the prediction of a
// call from a schedule: launch, the schedule (one slice of every chunk),
// and each further slice at the busiest link's or port's pace.
//
//===----------------------------------------------------------------------===//
#include "passes/TimeModel.h"

#include "sim/Simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace tacclc;
using namespace tacclc::ir;

TimeModel::TimeModel(const Sketch &S) {
  tacclrt::Protocol P =
      tacclrt::parseProtocol(S.Protocol).value_or(tacclrt::Protocol::Simple);
  const tacclrt::ProtocolCosts Costs = tacclrt::protocolCosts(P);
  const tacclrt::SimOptions Charged; // protocol costs on, as `tacclc sim`
  const double Chunk = S.chunkBytes();
  // Each instance moves its part of a chunk; the runtime cuts that part
  // into slices of the protocol's size.
  const double Part = Chunk / std::max(1u, S.Instances);
  const double Slice = double(tacclrt::protocolSliceBytes(P));
  Slices = unsigned(std::max(1.0, std::ceil(Part / Slice - 1e-9)));
  Instances = std::max(1u, S.Instances);
  Unit = Chunk / Slices;
  LaunchUs = tacclrt::launchLatencyUs(P, Charged);
  StepBytes = Costs.StepBytes;
  FifoSteps = std::max(1u, Costs.FifoSteps);
  const double Wire = tacclrt::wireBytes(Unit, P, Charged);
  const Topology &T = S.Topo;
  for (const Link &L : T.links()) {
    tacclrt::SimLink SL;
    SL.AlphaUs = L.AlphaUs;
    SL.BetaUsPerB = L.BetaUsPerB;
    SL.Multiplicity = L.Multiplicity;
    SL.Kind = T.nodeOf(L.Src) == T.nodeOf(L.Dst) ? tacclrt::LinkKind::Intra
                                                 : tacclrt::LinkKind::Net;
    Hop.push_back(tacclrt::hopLatencyUs(SL, P, Charged));
    Data.push_back(L.BetaUsPerB * Wire);
  }
}

unsigned TimeModel::stepsOf(unsigned Chunks) const {
  // Each instance sends its part of a message on a connection of its own.
  double Bytes = Unit / Instances * std::max(1u, Chunks);
  double Steps = std::ceil(Bytes / std::max(1.0, StepBytes) - 1e-9);
  return unsigned(std::clamp(Steps, 1.0, double(FifoSteps)));
}

unsigned TimeModel::fifoMessages(unsigned Chunks) const {
  return std::max(1u, FifoSteps / stepsOf(Chunks));
}

CallPrediction tacclc::predictCall(const Sketch &S, const Schedule &Sched) {
  const TimeModel TM(S);
  const Topology &Topo = S.Topo;
  CallPrediction P;
  P.LaunchUs = TM.launchUs();
  P.ScheduleUs = Sched.MakespanUs;
  P.Slices = TM.slices();
  // The wire time of one slice on every link (its lanes together) and
  // every shared port.
  std::vector<double> OnLink(Topo.links().size(), 0.0);
  for (const Transfer &T : Sched.Transfers)
    OnLink[T.Link.index()] += TM.dataUs(T.Link);
  for (size_t L = 0; L < OnLink.size(); ++L) {
    double Us = OnLink[L] / std::max(1u, Topo.links()[L].Multiplicity);
    if (Us > P.SliceUs) {
      P.SliceUs = Us;
      P.Busiest = fmt::format("link {}->{}", Topo.links()[L].Src.index(),
                              Topo.links()[L].Dst.index());
      P.BusiestLanes = Topo.links()[L].Multiplicity;
    }
  }
  for (const Resource &R : Topo.resources()) {
    double Us = 0;
    for (LinkId L : R.Links)
      Us += OnLink[L.index()];
    if (Us > P.SliceUs) {
      P.SliceUs = Us;
      P.Busiest = R.Name;
      P.BusiestLanes = 0;
    }
  }
  // The critical chain: from the transfer that lands last, back through
  // the transfers that brought its chunk to its sender (the one landing
  // last before it started, for partial sums that gather several).
  const auto &Ts = Sched.Transfers;
  std::map<std::pair<unsigned, unsigned>, std::vector<size_t>> Into;
  for (size_t I = 0; I < Ts.size(); ++I)
    Into[{Ts[I].Chunk.index(), Topo.link(Ts[I].Link).Dst.index()}].push_back(I);
  size_t Last = Ts.size();
  for (size_t I = 0; I < Ts.size(); ++I)
    if (Last == Ts.size() || Ts[I].EndUs > Ts[Last].EndUs)
      Last = I;
  for (size_t Cur = Last, Guard = 0; Cur < Ts.size() && Guard <= Ts.size();
       ++Guard) {
    ++P.CriticalHops;
    P.CriticalLatencyUs += TM.hopUs(Ts[Cur].Link);
    const double Tol = 1e-9 * std::max(1.0, Ts[Cur].StartUs);
    size_t Before = Ts.size();
    auto It =
        Into.find({Ts[Cur].Chunk.index(), Topo.link(Ts[Cur].Link).Src.index()});
    if (It != Into.end())
      for (size_t J : It->second)
        if (Ts[J].EndUs <= Ts[Cur].StartUs + Tol &&
            (Before == Ts.size() || Ts[J].EndUs > Ts[Before].EndUs))
          Before = J;
    Cur = Before;
  }
  P.FifoMessages = TM.fifoMessages(1);
  // Messages: a transfer that starts with the one before it on its lane
  // shares its message.
  std::map<std::pair<unsigned, unsigned>, double> LaneStart;
  for (const Transfer &T : Sched.Transfers) {
    auto [It, New] = LaneStart.insert({{T.Link.index(), T.Lane}, T.StartUs});
    if (New || It->second != T.StartUs)
      ++P.Messages;
    It->second = T.StartUs;
  }
  P.Lanes = unsigned(LaneStart.size());
  P.TotalUs = P.LaunchUs + P.ScheduleUs + (P.Slices - 1) * P.SliceUs;
  return P;
}

bool tacclc::timesDisagree(double A, double B, double Tolerance) {
  double Low = std::min(A, B);
  return std::fabs(A - B) > Tolerance * std::max(Low, 1e-12);
}

std::optional<Disagreement> tacclc::explainDisagreement(const CallPrediction &P,
                                                        const MeasuredCall &M,
                                                        double Tolerance) {
  if (!timesDisagree(P.TotalUs, M.TimeUs, Tolerance))
    return std::nullopt;
  auto Us = [](double V) { return fmt::format("{:.4g} us", V); };
  const double Gap = M.TimeUs - P.TotalUs;
  // 1. Several slices: does the gap lie in the first slice or in the pace
  //    of the further ones?
  if (P.Slices > 1 && M.Slices > 1 && M.OneSliceUs > 0) {
    const double PredFirst = P.LaunchUs + P.ScheduleUs;
    const double Pace = (M.TimeUs - M.OneSliceUs) / (M.Slices - 1);
    const double PaceGap = (M.Slices - 1) * Pace - (P.Slices - 1) * P.SliceUs;
    const double FirstGap = M.OneSliceUs - PredFirst;
    if (std::fabs(PaceGap) >= std::fabs(FirstGap))
      return Disagreement{
          "pipeline",
          fmt::format("pipelining over {} slices: the prediction paces each "
                      "further slice at {} (the wire time of {} per slice), "
                      "{} at {}; one slice alone takes {} there, {} predicted",
                      P.Slices, Us(P.SliceUs), P.Busiest, M.Engine, Us(Pace),
                      Us(M.OneSliceUs), Us(PredFirst))};
  }
  // 2. The program's order: fused relays ordered for fewer messages in
  //    flight than the schedule overlaps wait for receives the schedule
  //    lets them pass.
  if (Gap > 0 && M.OrderedForFifo > 0 && M.OrderedForFifo < P.FifoMessages)
    return Disagreement{
        "fifo-order",
        fmt::format("the program orders its fused relays for {} message{} in "
                    "flight per connection ({}), where the schedule overlaps "
                    "up to {}; {} is {} longer",
                    M.OrderedForFifo, M.OrderedForFifo == 1 ? "" : "s",
                    M.FifoAsAsked
                        ? std::string("as it was lowered")
                        : fmt::format("the order for {} did not verify with "
                                      "a FIFO of one",
                                      P.FifoMessages),
                    P.FifoMessages, M.Engine, Us(Gap))};
  // 3. Ports: served one message at a time, does the simulation land near
  //    the prediction?
  //    Or, slower than predicted where the busiest resource is a port that
  //    the simulation shares among links: its messages land together, late,
  //    where the schedule lands them one by one (serial service in posting
  //    order need not be the schedule's order, so it may not confirm).
  const bool SerialNear =
      M.SerialUs && std::fabs(*M.SerialUs - P.TotalUs) <= 0.5 * std::fabs(Gap);
  const bool SharedBottleneck = Gap > 0 && P.BusiestLanes == 0;
  if (M.PortSharing > 1 && (SerialNear || SharedBottleneck))
    return Disagreement{
        "port-sharing",
        fmt::format("the schedule model serialises shared ports, {} shares "
                    "them fairly (up to {} links at once through {}){}",
                    M.Engine, M.PortSharing, M.SharedPort,
                    M.SerialUs ? fmt::format("; served one message at a time "
                                             "in posting order it takes {}",
                                             Us(*M.SerialUs))
                               : std::string())};
  // 4. The program has more room for small messages than the schedule:
  //    fewer of them (codegen merges chunks that the schedule sends back to
  //    back where stage 3 may not, into scratch), or more connections
  //    (threadblocks of at most 64 steps split a busy link), each with its
  //    own FIFO.
  if (Gap < 0 && M.ProgramMessages > 0 && M.ProgramMessages < 0.9 * P.Messages)
    return Disagreement{
        "merges",
        fmt::format("the program sends {} messages where the schedule sends "
                    "{} (codegen merges chunks the schedule sends back to "
                    "back), so fewer wait for a FIFO of {}; {} is {} shorter",
                    M.ProgramMessages, P.Messages, P.FifoMessages, M.Engine,
                    Us(-Gap))};
  if (Gap < 0 && M.ProgramConnections > 1.1 * P.Lanes)
    return Disagreement{
        "segments",
        fmt::format("the program spreads the schedule's {} lanes over {} "
                    "connections (threadblocks of bounded steps), each with "
                    "its own FIFO of {} messages; {} is {} shorter",
                    P.Lanes, M.ProgramConnections, P.FifoMessages, M.Engine,
                    Us(-Gap))};
  // 5. Lanes: the schedule moves a message on one of a link's parallel
  //    lanes; alone on the link, the simulation gives it all of them.
  if (Gap < 0 && P.BusiestLanes > 1)
    return Disagreement{
        "lanes",
        fmt::format("the schedule moves each message over one of the {} "
                    "parallel links of {}, {} over all {} while it is alone "
                    "there; {} is {} shorter",
                    P.BusiestLanes, P.Busiest, M.Engine, P.BusiestLanes,
                    M.Engine, Us(-Gap))};
  // 6. Latency: the hops of the critical chain and the launch.
  if (P.latencyShare() >= 0.5 && P.CriticalHops > 0) {
    const double Hop = P.CriticalLatencyUs / P.CriticalHops;
    return Disagreement{
        "latency",
        fmt::format("latency-bound: the schedule charges {} hops in sequence "
                    "({} of hop latency; with the {} launch {:.0f}% of the "
                    "prediction); {} is {} {}, {:.1f} hops' worth",
                    P.CriticalHops, Us(P.CriticalLatencyUs), Us(P.LaunchUs),
                    100 * P.latencyShare(), M.Engine, Us(std::fabs(Gap)),
                    Gap > 0 ? "longer" : "shorter", std::fabs(Gap) / Hop)};
  }
  // 7. Bandwidth: the busiest link or port.
  const double Busy = P.Slices * P.SliceUs;
  return Disagreement{
      "bandwidth",
      fmt::format("bandwidth-bound: {} carries {} of data ({:.0f}% of the "
                  "prediction); {} is {} {}",
                  P.Busiest.empty() ? std::string("no link") : P.Busiest,
                  Us(Busy), P.TotalUs > 0 ? 100 * Busy / P.TotalUs : 0.0,
                  M.Engine, Us(std::fabs(Gap)),
                  Gap > 0 ? "longer" : "shorter")};
}
