//===- tests/unit/runtime/SimulatorTest.cpp - Alpha-beta simulator --------===//
//
// Closed forms on hand-built machines: the ring allgather, the direct
// alltoall, links shared by two messages, a shared port, the runtime's
// loop over slices (pipelining), steps of several chunks split as the runtime
// splits them, and the errors (no link, wrong rank count).
//
//===----------------------------------------------------------------------===//
#include "tacclrt/Simulator.h"

#include "RuntimeTestUtil.h"

#include <doctest/doctest.h>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {
/// A unidirectional ring (and, with \p Full, every other pair too).
SimMachine ring(int N, double Alpha, double Beta, bool Full = false) {
  SimMachine M;
  M.Name = "ring";
  M.NRanks = N;
  for (int R = 0; R < N; ++R)
    for (int D = 0; D < N; ++D)
      if (D != R && (Full || D == (R + 1) % N))
        M.Links.push_back({R, D, Alpha, Beta, 1, {}});
  return M;
}
} // namespace

TEST_CASE("sim: ring allgather takes (N-1)(alpha + beta M/N)") {
  Algo A = loadFixture("allgather_ring4.xml");
  const double Alpha = 0.7, Beta = 46e-6; // us, us per byte
  for (std::uint64_t Bytes : {std::uint64_t(4096), std::uint64_t(1) << 20}) {
    SimOptions O;
    O.Bytes = Bytes;
    SimResult R = simulate(A, ring(4, Alpha, Beta), O, "ring.xml");
    REQUIRE_MESSAGE(R.Ok, R.Issues.str());
    CHECK(R.Iterations == 1);
    CHECK(R.TimeUs == doctest::Approx(3 * (Alpha + Beta * Bytes / 4.0)));
  }
}

TEST_CASE("sim: slices pipeline along the ring") {
  Algo A = loadFixture("allgather_ring4.xml");
  SimOptions O;
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

TEST_CASE("sim: direct alltoall, and two messages sharing one link") {
  Algo A = loadFixture("alltoall3.xml");
  const double Alpha = 1, Beta = 1e-3;
  SimOptions O;
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
  SimOptions O;
  O.Bytes = 3 * 4 * 1000;
  SimResult R = simulate(A, ring(3, 1, 1e-3), O, "a.xml");
  CHECK_FALSE(R.Ok);
  CHECK(findIssue(R.Issues, "but machine 'ring' has no link"));
  R = simulate(A, ring(4, 1, 1e-3, true), O, "a.xml");
  CHECK(findIssue(R.Issues, "the plan has 3 ranks, machine 'ring' has 4"));
  SimOptions Odd;
  Odd.Bytes = 3 * 4 + 4; // 4 elements: not 3 equal chunks
  R = simulate(A, ring(3, 1, 1e-3, true), Odd, "a.xml");
  CHECK(findIssue(R.Issues, "do not divide into nchunksperloop=3"));
}

TEST_CASE("sim: a tiny last slice late in a long call still lands") {
  // 50 full slices and one of a single element per chunk: the last
  // messages are 4 bytes at a time of tens of milliseconds, where rounding
  // in the clock used to leave a message never quite landed (a hang).
  Algo A = loadFixture("allgather_ring4.xml");
  SimOptions O;
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
  SimOptions O;
  O.SliceBytes = 4096;
  // 1 KiB chunks: both fit in a 4 KiB slice, one message.
  O.Bytes = 4 * 1024;
  SimResult Small = simulate(*L.A, ring(2, Alpha, Beta), O, "cnt2.xml");
  REQUIRE_MESSAGE(Small.Ok, Small.Issues.str());
  CHECK(Small.TimeUs == doctest::Approx(Alpha + Beta * 2048));
  // 8 KiB chunks: two slices each, and the runtime sends the two chunks of
  // each slice as two messages: two alphas per iteration.
  O.Bytes = 4 * 8192;
  SimResult Big = simulate(*L.A, ring(2, Alpha, Beta), O, "cnt2.xml");
  REQUIRE_MESSAGE(Big.Ok, Big.Issues.str());
  CHECK(Big.Iterations == 2);
  CHECK(Big.TimeUs == doctest::Approx(2 * (2 * Alpha + Beta * 8192)));
}
