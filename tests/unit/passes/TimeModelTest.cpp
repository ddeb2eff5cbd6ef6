//===- tests/unit/passes/TimeModelTest.cpp - The stages' cost model -------===//
//
// TimeModel charges what the simulator charges (its protocol figures), the
// slicing and FIFO arithmetic, predictCall's parts, and which cause
// explainDisagreement names for which measured quantities.
//
//===----------------------------------------------------------------------===//
#include "passes/TimeModel.h"
#include "passes/ListSchedule.h"

#include "sim/Simulator.h"

#include "format/LineFormat.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Two nodes of two GPUs: a link inside node 0 (0 -> 1) and two between
/// the nodes (0 -> 2, 1 -> 3), an allgather of \p SizeBytes.
Sketch twoNodes(uint64_t SizeBytes, const char *Protocol = "Simple") {
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("box", 2, 2);
  S.Topo.addLink({RankId(0), RankId(1), 0.5, 10e-6});   // inside node 0
  S.Topo.addLink({RankId(0), RankId(2), 20.0, 100e-6}); // between nodes
  S.Topo.addLink({RankId(1), RankId(3), 1.0, 100e-6});
  S.Coll = Collective::allGather(4, 1);
  S.SizeBytes = SizeBytes;
  S.Protocol = Protocol;
  return S;
}
} // namespace

TEST_CASE("the time model charges the simulator's protocol figures") {
  for (const char *Name : {"Simple", "LL", "LL128"}) {
    CAPTURE(Name);
    tacclrt::Protocol P = *tacclrt::parseProtocol(Name);
    tacclrt::ProtocolCosts C = tacclrt::protocolCosts(P);
    Sketch S = twoNodes(4000, Name);
    TimeModel TM(S);
    CHECK(TM.launchUs() == C.LaunchUs);
    // A hop costs the link's alpha, at least the protocol's per-hop
    // latency of its kind (inside a node, between nodes).
    CHECK(TM.hopUs(LinkId(0)) == std::max(0.5, C.HopUs[0]));
    CHECK(TM.hopUs(LinkId(1)) == std::max(20.0, C.HopUs[1]));
    CHECK(TM.hopUs(LinkId(2)) == std::max(1.0, C.HopUs[1]));
    // The wire carries the protocol's bytes: the 1000 B chunk, as 125
    // LL lines of 16 B or 9 LL128 lines of 128 B (the last one padded).
    CHECK(TM.dataUs(LinkId(1)) ==
          doctest::Approx(100e-6 * tacclrt::lineWireBytes(P, 1000)));
    CHECK(tacclrt::lineWireBytes(P, 1000) == (P == tacclrt::Protocol::LL ? 2000
                                              : P == tacclrt::Protocol::LL128
                                                  ? 1152
                                                  : 1000));
    CHECK(TM.costUs(LinkId(1)) ==
          doctest::Approx(TM.hopUs(LinkId(1)) + TM.dataUs(LinkId(1))));
  }
}

TEST_CASE("the time model schedules one slice of a chunk") {
  // Simple slices of 2 MiB: a 5 MiB chunk runs as three slices.
  Sketch S = twoNodes(4 * (5 << 20));
  TimeModel TM(S);
  CHECK(TM.slices() == 3);
  CHECK(TM.unitBytes() == doctest::Approx((5 << 20) / 3.0));
  // Two instances halve the part each connection carries: two slices.
  S.Instances = 2;
  CHECK(TimeModel(S).slices() == 2);
  // LL slices of 32 KiB.
  Sketch L = twoNodes(4 * (64 << 10), "LL");
  CHECK(TimeModel(L).slices() == 2);
}

TEST_CASE("a connection's FIFO holds eight steps of messages") {
  // Small messages take one step each; a full Simple slice (2 MiB) four of
  // the 512 KiB steps, so two fit; a merged message of three small chunks
  // still one step.
  TimeModel Small(twoNodes(4000));
  CHECK(Small.stepsOf(1) == 1);
  CHECK(Small.fifoMessages(1) == 8);
  CHECK(Small.fifoMessages(3) == 8);
  TimeModel Full(twoNodes(4 * (2 << 20)));
  CHECK(Full.stepsOf(1) == 4);
  CHECK(Full.fifoMessages(1) == 2);
  CHECK(Full.stepsOf(5) == 8); // at most the whole FIFO
  // The load of a small chunk on a lane is the FIFO's pace, on a port its
  // wire time.
  CHECK(Small.laneLoadUs(LinkId(1)) ==
        doctest::Approx(Small.costUs(LinkId(1)) / 8));
  CHECK(Small.portLoadUs(LinkId(1)) ==
        doctest::Approx(Small.dataUs(LinkId(1))));
  CHECK(Full.laneLoadUs(LinkId(1)) == doctest::Approx(Full.dataUs(LinkId(1))));
}

TEST_CASE("a prediction is launch, schedule and further slices") {
  // Rank 0 sends its chunk to rank 1 (inside) and rank 2 (across), 3 MiB
  // chunks: two slices each.
  Sketch S = twoNodes(4 * (3 << 20));
  Routes R;
  R.Chunks.push_back({ChunkId(0), {LinkId(0), LinkId(1)}});
  for (unsigned C = 1; C < 4; ++C)
    R.Chunks.push_back({ChunkId(C), {}});
  Schedule Sch = scheduleTransfers(S, R);
  TimeModel TM(S);
  REQUIRE(TM.slices() == 2);
  CallPrediction P = predictCall(S, Sch);
  CHECK(P.LaunchUs == TM.launchUs());
  CHECK(P.ScheduleUs == doctest::Approx(TM.costUs(LinkId(1))));
  CHECK(P.Slices == 2);
  // The busiest resource per slice: the link across (100 us/MB).
  CHECK(P.SliceUs == doctest::Approx(TM.dataUs(LinkId(1))));
  CHECK(P.Busiest == "link 0->2");
  CHECK(P.TotalUs == doctest::Approx(P.LaunchUs + P.ScheduleUs + P.SliceUs));
  // The critical chain is the one hop across.
  CHECK(P.CriticalHops == 1);
  CHECK(P.CriticalLatencyUs == TM.hopUs(LinkId(1)));
  CHECK(P.FifoMessages == 2);
}

TEST_CASE("disagreements are explained by what the simulation measured") {
  CallPrediction P;
  P.LaunchUs = 8.4;
  P.ScheduleUs = 20;
  P.Slices = 1;
  P.SliceUs = 2;
  P.Busiest = "link 0->1";
  P.BusiestLanes = 1;
  P.CriticalHops = 3;
  P.CriticalLatencyUs = 10.2;
  P.FifoMessages = 8;
  P.TotalUs = 28.4;
  MeasuredCall M;
  M.TimeUs = 30; // within 15%
  CHECK_FALSE(explainDisagreement(P, M));
  CHECK_FALSE(timesDisagree(28.4, 30));
  CHECK(timesDisagree(28.4, 40));

  // A program ordered for one message in flight where the schedule
  // overlaps eight.
  M.TimeUs = 45;
  M.OrderedForFifo = 1;
  auto D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "fifo-order");
  CHECK(D->Reason.find("for 1 message in flight") != std::string::npos);

  // Ports served one at a time bring the simulation to the prediction.
  M.OrderedForFifo = 8;
  M.PortSharing = 3;
  M.SharedPort = "nic 0 send";
  M.SerialUs = 29;
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "port-sharing");
  CHECK(D->Reason.find("up to 3 links at once through nic 0 send") !=
        std::string::npos);

  // Slower where the busiest resource is a port the simulation shares,
  // even when serving in posting order does not land near the prediction.
  M.SerialUs = 45;
  P.Busiest = "nic 0 send";
  P.BusiestLanes = 0;
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "port-sharing");
  CHECK(D->Reason.find("in posting order it takes 45 us") != std::string::npos);
  P.Busiest = "link 0->1";
  P.BusiestLanes = 1;

  // Latency: launch and hops are most of the prediction; the gap is
  // counted in hops.
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "latency");
  CHECK(D->Reason.find("3 hops in sequence") != std::string::npos);
  CHECK(D->Reason.find("4.9 hops' worth") != std::string::npos);

  // Bandwidth: little of the prediction is latency.
  P.CriticalLatencyUs = 1;
  P.LaunchUs = 1;
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "bandwidth");
  CHECK(D->Reason.find("link 0->1") != std::string::npos);

  // Faster than predicted: the program sends fewer messages than the
  // schedule, or spreads them over more connections.
  M.TimeUs = 20;
  P.Messages = 100;
  P.Lanes = 4;
  M.ProgramMessages = 60;
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "merges");
  CHECK(D->Reason.find("sends 60 messages where the schedule sends 100") !=
        std::string::npos);
  M.ProgramMessages = 100;
  M.ProgramConnections = 8;
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "segments");
  CHECK(D->Reason.find("4 lanes over 8 connections") != std::string::npos);
  M.ProgramConnections = 4;

  // Faster than predicted on a link of two lanes.
  P.BusiestLanes = 2;
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "lanes");
  CHECK(D->Reason.find("one of the 2 parallel links of link 0->1") !=
        std::string::npos);
  P.BusiestLanes = 1;

  // Several slices: the pace of the further ones, when it accounts for
  // more of the gap than the first slice.
  P.Slices = M.Slices = 11;
  P.TotalUs = P.LaunchUs + P.ScheduleUs + 10 * P.SliceUs; // 41
  M.OneSliceUs = 21; // the first slice as predicted
  M.TimeUs = 61;     // 4 us per further slice, not 2
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "pipeline");
  CHECK(D->Reason.find("pipelining over 11 slices") != std::string::npos);
  CHECK(D->Reason.find("at 4 us") != std::string::npos);
}

TEST_CASE("a program ordered for a FIFO of one explains its gap by how it "
          "was lowered") {
  CallPrediction P;
  P.TotalUs = 100;
  P.FifoMessages = 8;
  MeasuredCall M;
  M.TimeUs = 200;
  M.OrderedForFifo = 1;
  std::optional<Disagreement> D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "fifo-order");
  CHECK(D->Reason.find("the order for 8 did not verify") != std::string::npos);
  M.FifoAsAsked = true; // a baseline, lowered for one message from the start
  D = explainDisagreement(P, M);
  REQUIRE(D);
  CHECK(D->Class == "fifo-order");
  CHECK(D->Reason.find("(as it was lowered)") != std::string::npos);
  CHECK(D->Reason.find("did not verify") == std::string::npos);
}
