//===- tests/unit/runtime/SimulatorTest.cpp - Alpha-beta simulator --------===//
//
// Closed forms on hand-built machines: the ring allgather, the direct
// alltoall, links shared by two messages, a shared port, the runtime's
// loop over slices (pipelining), steps of several chunks split as the runtime
// splits them, the errors (no link, wrong rank count), and the work budget.
//
//===----------------------------------------------------------------------===//
#include "sim/Simulator.h"

#include "RuntimeTestUtil.h"

#include <doctest/doctest.h>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {
SimOptions raw() { return rawSimOptions(); }
SimMachine ring(int N, double Alpha, double Beta, bool Full = false) {
  return ringMachine(N, Alpha, Beta, Full);
}
} // namespace

TEST_CASE("sim: ring allgather takes (N-1)(alpha + beta M/N)") {
  Algo A = loadFixture("allgather_ring4.xml");
  const double Alpha = 0.7, Beta = 46e-6; // us, us per byte
  for (std::uint64_t Bytes : {std::uint64_t(4096), std::uint64_t(1) << 20}) {
    SimOptions O = raw();
    O.Bytes = Bytes;
    SimResult R = simulate(A, ring(4, Alpha, Beta), O, "ring.xml");
    REQUIRE_MESSAGE(R.Ok, R.Issues.str());
    CHECK(R.Iterations == 1);
    CHECK(R.TimeUs == doctest::Approx(3 * (Alpha + Beta * Bytes / 4.0)));
  }
}

TEST_CASE("sim: slices pipeline along the ring") {
  Algo A = loadFixture("allgather_ring4.xml");
  SimOptions O = raw();
  O.Bytes = 4 << 20; // 1 MiB per chunk
  O.SliceBytes = 256 << 10;
  O.FifoMessages = 8;
  O.RecordTransfers = true;
  const double Beta = 1e-3; // alpha 0: each slice takes 262.144 us a hop
  SimResult R = simulate(A, ring(4, 0, Beta), O, "ring.xml");
  REQUIRE(R.Ok);
  CHECK(R.Iterations == 4);
  // Unpipelined the ring would take 3 hops x 4 slices; the slices of one
  // chunk follow each other around it, so the link is busy 3 x 4 slices,
  // each of the three chunks waits for the one before: 12 slice times.
  double Slice = Beta * (256 << 10);
  CHECK(R.TimeUs == doctest::Approx(12 * Slice));
  CHECK(R.Transfers.size() == 4 * 4 * 3);
}

TEST_CASE("sim: a work budget stops the simulation, counted") {
  Algo A = loadFixture("allgather_ring4.xml");
  SimOptions O = raw();
  O.Bytes = 4 << 20;
  O.SliceBytes = 256 << 10;
  SimResult Full = simulate(A, ring(4, 0.7, 1e-3), O, "ring.xml");
  REQUIRE(Full.Ok);
  CHECK(!Full.Stopped);
  // Stopped just short of the whole run's work, then exactly at it.
  O.MaxFlowUpdates = Full.FlowUpdates - 1;
  SimResult Short = simulate(A, ring(4, 0.7, 1e-3), O, "ring.xml");
  CHECK(!Short.Ok);
  CHECK(Short.Stopped);
  CHECK(Short.Issues.empty());
  O.MaxFlowUpdates = Full.FlowUpdates;
  SimResult Enough = simulate(A, ring(4, 0.7, 1e-3), O, "ring.xml");
  CHECK(Enough.Ok);
  CHECK(Enough.TimeUs == Full.TimeUs);
}

TEST_CASE("sim: direct alltoall, and two messages sharing one link") {
  Algo A = loadFixture("alltoall3.xml");
  const double Alpha = 1, Beta = 1e-3;
  SimOptions O = raw();
  O.Bytes = 3 * 3000 * 4; // 3000 floats per chunk
  SimResult Direct = simulate(A, ring(3, Alpha, Beta, true), O, "a.xml");
  REQUIRE_MESSAGE(Direct.Ok, Direct.Issues.str());
  // Every pair at once on its own link: one chunk time.
  CHECK(Direct.TimeUs == doctest::Approx(Alpha + Beta * 12000));
  // Route 0 -> 1 and 0 -> 2 through one shared port: half the bandwidth.
  SimMachine Shared = ring(3, Alpha, Beta, true);
  Shared.Ports.push_back({"nic 0 send", Beta});
  for (SimLink &L : Shared.Links)
    if (L.Src == 0)
      L.Ports.push_back(0);
  SimResult Slow = simulate(A, Shared, O, "a.xml");
  REQUIRE(Slow.Ok);
  CHECK(Slow.TimeUs == doctest::Approx(Alpha + 2 * Beta * 12000));
  // Parallel links double a link's bandwidth.
  SimMachine Double = ring(3, Alpha, 2 * Beta, true);
  for (SimLink &L : Double.Links)
    L.Multiplicity = 2;
  CHECK(simulate(A, Double, O, "a.xml").TimeUs ==
        doctest::Approx(Direct.TimeUs));
}

TEST_CASE("sim: a missing link or a wrong machine is an error") {
  Algo A = loadFixture("alltoall3.xml");
  SimOptions O = raw();
  O.Bytes = 3 * 4 * 1000;
  SimResult R = simulate(A, ring(3, 1, 1e-3), O, "a.xml");
  CHECK_FALSE(R.Ok);
  CHECK(findIssue(R.Issues, "but machine 'ring' has no link"));
  R = simulate(A, ring(4, 1, 1e-3, true), O, "a.xml");
  CHECK(findIssue(R.Issues, "the plan has 3 ranks, machine 'ring' has 4"));
  SimOptions Odd = raw();
  Odd.Bytes = 3 * 4 + 4; // 4 elements: not 3 equal chunks
  R = simulate(A, ring(3, 1, 1e-3, true), Odd, "a.xml");
  CHECK(findIssue(R.Issues, "do not divide into nchunksperloop=3"));
}

TEST_CASE("sim: a tiny last slice late in a long call still lands") {
  // 50 full slices and one of a single element per chunk: the last
  // messages are 4 bytes at a time of tens of milliseconds, where rounding
  // in the clock used to leave a message never quite landed (a hang).
  Algo A = loadFixture("allgather_ring4.xml");
  SimOptions O = raw();
  O.Bytes = std::uint64_t(4) * 4 * (524288 * 50 + 1);
  SimResult R = simulate(A, ring(4, 2.6, 105e-6), O, "ring.xml");
  REQUIRE(R.Ok);
  CHECK(R.Iterations == 51);
  CHECK(R.TimeUs > 0);
}

TEST_CASE("sim: a step of several chunks is one message only while they "
          "fit in a slice") {
  // Two ranks swap two consecutive chunks each with one cnt=2 step.
  const std::string Xml =
      R"(<algo name="cnt2" proto="Simple" nchannels="1" nchunksperloop="4" ngpus="2" coll="allgather" inplace="0" outofplace="1" minBytes="0" maxBytes="0">
  <gpu id="0" i_chunks="2" o_chunks="4" s_chunks="0">
    <tb id="0" send="1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="2" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="2" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="-1" recv="1" chan="0">
      <step s="0" type="r" srcbuf="o" srcoff="2" dstbuf="o" dstoff="2" cnt="2" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="2" o_chunks="4" s_chunks="0">
    <tb id="0" send="0" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="2" cnt="2" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="s" srcbuf="o" srcoff="2" dstbuf="o" dstoff="2" cnt="2" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="-1" recv="0" chan="0">
      <step s="0" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="2" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";
  Loaded L = load(Xml);
  REQUIRE_MESSAGE(L.A, L.R.str());
  const double Alpha = 5, Beta = 1e-3;
  SimOptions O = raw();
  O.SliceBytes = 4096;
  // 1 KiB chunks: both fit in a 4 KiB slice, one message.
  O.Bytes = 4 * 1024;
  SimResult Small = simulate(*L.A, ring(2, Alpha, Beta), O, "cnt2.xml");
  REQUIRE_MESSAGE(Small.Ok, Small.Issues.str());
  CHECK(Small.TimeUs == doctest::Approx(Alpha + Beta * 2048));
  // 8 KiB chunks: two slices each, and the runtime sends the two chunks of
  // each slice as two messages. Four messages of 4 KiB are posted at once
  // (the FIFO holds them) and overlap their latency: one alpha.
  O.Bytes = 4 * 8192;
  O.FifoMessages = 8;
  O.RecordTransfers = true;
  SimResult Big = simulate(*L.A, ring(2, Alpha, Beta), O, "cnt2.xml");
  REQUIRE_MESSAGE(Big.Ok, Big.Issues.str());
  CHECK(Big.Iterations == 2);
  CHECK(Big.Transfers.size() == 2 * 2 * 2);
  CHECK(Big.TimeUs == doctest::Approx(Alpha + Beta * 16384));
  // With room for one message only, each waits for the one before to be
  // received: four alphas per rank, one after the other.
  O.FifoMessages = 1;
  SimResult Tight = simulate(*L.A, ring(2, Alpha, Beta), O, "cnt2.xml");
  REQUIRE(Tight.Ok);
  CHECK(Tight.TimeUs == doctest::Approx(4 * (Alpha + Beta * 4096)));
}

TEST_CASE("sim: successive messages on a connection overlap their latency") {
  // One slow hop (0 -> 1, alpha 10) on a ring of fast ones. Rank 0 forwards
  // three chunks over it; each is ready long before the one before lands,
  // so the sends overlap and the call takes one slow latency, not three.
  Algo A = loadFixture("allgather_ring4.xml");
  SimMachine M = ring(4, 0.1, 1e-6);
  M.Links[0].AlphaUs = 10;
  SimOptions O = raw();
  O.Bytes = 4096;
  O.FifoMessages = 8;
  SimResult R = simulate(A, M, O, "ring.xml");
  REQUIRE_MESSAGE(R.Ok, R.Issues.str());
  CHECK(R.TimeUs == doctest::Approx(10 + 2 * 0.1).epsilon(1e-3));
  // A FIFO of two messages: the third send waits for the first to be
  // received, one slow latency later.
  O.FifoMessages = 2;
  R = simulate(A, M, O, "ring.xml");
  REQUIRE(R.Ok);
  CHECK(R.TimeUs == doctest::Approx(20).epsilon(1e-3));
}

TEST_CASE("sim: protocols charge their wire bytes and latencies") {
  Algo A = loadFixture("alltoall3.xml");
  const double Alpha = 0.2, Beta = 1e-3;
  SimOptions O;
  O.Bytes = 3 * 3000 * 4;
  for (Protocol P : {Protocol::Simple, Protocol::LL, Protocol::LL128}) {
    A.Proto = P;
    ProtocolCosts C = protocolCosts(P);
    SimResult R = simulate(A, ring(3, Alpha, Beta, true), O, "a.xml");
    REQUIRE_MESSAGE(R.Ok, R.Issues.str());
    CHECK(R.TimeUs == doctest::Approx(C.LaunchUs + std::max(Alpha, C.HopUs[0]) +
                                      Beta * 12000 * C.WirePerDataByte));
  }
  CHECK(protocolCosts(Protocol::LL).WirePerDataByte == 2);
  CHECK(protocolCosts(Protocol::LL128).WirePerDataByte ==
        doctest::Approx(128.0 / 120.0));
  // A link across nodes takes the protocol's network latency.
  A.Proto = Protocol::Simple;
  SimMachine Net = ring(3, Alpha, Beta, true);
  for (SimLink &L : Net.Links)
    L.Kind = LinkKind::Net;
  SimResult R = simulate(A, Net, O, "a.xml");
  REQUIRE(R.Ok);
  CHECK(R.TimeUs == doctest::Approx(8.4 + 14.0 + Beta * 12000));
}

TEST_CASE("sim: ports are shared max-min fairly, or serve one message at a "
          "time") {
  // Rank 0 sends to ranks 1 and 2 through its NIC port; the link to rank 2
  // is four times slower than the port.
  Algo A = loadFixture("alltoall3.xml");
  const double Beta = 1e-3;
  SimMachine M = sharedPortMachine(Beta);
  SimOptions O = raw();
  O.Bytes = 3 * 3000 * 4;
  O.RecordTransfers = true;
  auto endOf = [](const SimResult &R, int Src, int Dst) {
    for (const SimTransfer &T : R.Transfers)
      if (T.Src == Src && T.Dst == Dst)
        return T.EndUs;
    return -1.0;
  };
  // Max-min: 0 -> 2 is held to a quarter of the port by its link, so
  // 0 -> 1 gets the other three quarters (an equal split would give it
  // half).
  SimResult Fair = simulate(A, M, O, "a.xml");
  REQUIRE_MESSAGE(Fair.Ok, Fair.Issues.str());
  CHECK(endOf(Fair, 0, 1) == doctest::Approx(12000 * Beta * 4 / 3));
  CHECK(Fair.TimeUs == doctest::Approx(12000 * 4 * Beta));
  // Serial: 0 -> 1 first, whole, at the port's rate; 0 -> 2 waits for it.
  O.Service = PortService::Serial;
  SimResult Serial = simulate(A, M, O, "a.xml");
  REQUIRE(Serial.Ok);
  CHECK(endOf(Serial, 0, 1) == doctest::Approx(12000 * Beta));
  CHECK(Serial.TimeUs == doctest::Approx(12000 * Beta + 12000 * 4 * Beta));
}
