//===- tests/unit/passes/PassesTest.cpp - Routing and scheduling tests ----===//
//
// Closed forms for the list scheduler, feasibility of the routing model's
// warm start (every row checked), and routing solved by CBC on small
// topologies where the optimum is known.
//
//===----------------------------------------------------------------------===//
#include "passes/ListSchedule.h"
#include "passes/Routing.h"
#include "passes/RoutingModel.h"
#include "passes/Symmetry.h"
#include "passes/TimeModel.h"

#include "sim/Simulator.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
Sketch ringSketch(unsigned N, unsigned K, bool Both, uint64_t Size,
                  double Alpha = 0.7, double BetaUsPerMB = 46) {
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("ring", N);
  for (unsigned R = 0; R < N; ++R) {
    S.Topo.addLink({RankId(R), RankId((R + 1) % N), Alpha, BetaUsPerMB / 1e6});
    if (Both)
      S.Topo.addLink(
          {RankId((R + 1) % N), RankId(R), Alpha, BetaUsPerMB / 1e6});
  }
  S.Coll = Collective::allGather(N, K);
  S.SizeBytes = Size;
  return S;
}

/// Every row of the routing model holds at its warm start.
void checkRowsHold(const RoutingModel &RM) {
  for (const auto &Row : RM.Model.constraints()) {
    double Sum = 0;
    for (const auto &T : Row.Terms)
      Sum += T.Coef * RM.WarmStart[T.Var.Index];
    CAPTURE(Row.Name);
    CHECK(Sum >= Row.Lower - 1e-6);
    CHECK(Sum <= Row.Upper + 1e-6);
  }
}

/// Routes every chunk clockwise around a unidirectional ring.
Routes clockwise(const Sketch &S) {
  Routes R;
  unsigned N = S.Topo.getNumRanks();
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    ChunkRoute CR;
    CR.Chunk = ChunkId(C);
    unsigned Src = S.Coll.chunk(ChunkId(C)).Source.index();
    for (unsigned Hop = 0; Hop + 1 < N; ++Hop)
      CR.Links.push_back(*S.Topo.findLink(RankId((Src + Hop) % N),
                                          RankId((Src + Hop + 1) % N)));
    R.Chunks.push_back(CR);
  }
  return R;
}
} // namespace

TEST_CASE("ring allgather takes exactly launch + (N-1)(hop + beta*M/N)") {
  const tacclrt::ProtocolCosts Simple =
      tacclrt::protocolCosts(tacclrt::Protocol::Simple);
  const double Hop = std::max(0.7, Simple.HopUs[0]);
  for (unsigned N : {2u, 3u, 4u, 8u}) {
    CAPTURE(N);
    Sketch S = ringSketch(N, 1, false, 8000000);
    Schedule Sch = scheduleTransfers(S, clockwise(S));
    // The schedule times one slice of every chunk (2 MiB at most): two
    // slices for 4 MB and 2.7 MB chunks, one for 2 MB and 1 MB.
    const unsigned Slices = N <= 3 ? 2 : 1;
    CHECK(TimeModel(S).slices() == Slices);
    double Unit = 8.0 / N / Slices; // MB
    CHECK(Sch.MakespanUs == doctest::Approx((N - 1) * (Hop + 46.0 * Unit)));
    CHECK(Sch.Transfers.size() == N * (N - 1));
    // Each further slice moves N-1 units over every link.
    CallPrediction P = predictCall(S, Sch);
    CHECK(P.Slices == Slices);
    CHECK(P.SliceUs == doctest::Approx((N - 1) * 46.0 * Unit));
    CHECK(P.TotalUs ==
          doctest::Approx(Simple.LaunchUs + (N - 1) * (Hop + 46.0 * 8.0 / N)));
  }
}

TEST_CASE("with K chunks per rank the ring's links stay busy after one hop") {
  // Latency overlaps the data before it on a link: one hop latency, then
  // the (N-1)K chunks of every link back to back.
  Sketch S = ringSketch(4, 2, false, 8000000);
  Schedule Sch = scheduleTransfers(S, clockwise(S));
  double Hop = tacclrt::protocolCosts(tacclrt::Protocol::Simple).HopUs[0];
  CHECK(Sch.MakespanUs == doctest::Approx(Hop + 3 * 2 * 46.0)); // 1 MB chunks
}

TEST_CASE("a lane holds a FIFO's worth of small messages in flight") {
  // 24 chunks of 1000 B per rank over a ring of 2: each link carries 24
  // messages, 8 in flight at a time (Simple's FIFO of 8 steps, one step
  // each). Messages 8-15 are posted as 0-7 land, 16-23 as 8-15 land: three
  // latencies; the last waits behind the data of 9 messages of its round.
  Sketch S = ringSketch(2, 24, false, 48000);
  TimeModel TM(S);
  REQUIRE(TM.fifoMessages(1) == 8);
  Schedule Sch = scheduleTransfers(S, clockwise(S));
  const LinkId L(0);
  CHECK(Sch.MakespanUs == doctest::Approx(3 * TM.hopUs(L) + 10 * TM.dataUs(L)));
}

TEST_CASE("the routing model's warm start satisfies every row") {
  for (bool Both : {false, true}) {
    CAPTURE(Both);
    Sketch S = ringSketch(5, 2, Both, 1000000);
    RoutingModel RM = buildRoutingModel(S, SymmetryGroup::trivial(S));
    const auto &Vars = RM.Model.variables();
    REQUIRE(RM.WarmStart.size() == Vars.size());
    for (size_t I = 0; I < Vars.size(); ++I) {
      CHECK(RM.WarmStart[I] >= Vars[I].Lower - 1e-9);
      CHECK(RM.WarmStart[I] <= Vars[I].Upper + 1e-9);
    }
    checkRowsHold(RM);
  }
}

TEST_CASE("CBC routes a bidirectional ring using both directions") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Sketch S = ringSketch(4, 2, true, 4000000);
  SolveStats Stats;
  auto R = routeChunks(S, SynthesisOptions(), Diags, &Stats);
  REQUIRE(R);
  CHECK(!Diags.hasErrors());
  CHECK(R->SolverStatus == "optimal");
  CHECK(Stats.Variables > 0);
  // Each rank receives each of the 8 chunks but its own two exactly once.
  size_t Hops = 0;
  for (const ChunkRoute &CR : R->Chunks)
    Hops += CR.Links.size();
  CHECK(Hops == 8 * 3);
  // Both directions share the load: no link carries more than half of it
  // plus one chunk, so the relaxed makespan beats the one-way ring.
  double OneWay = 3 * 2 * (0.7 + 46.0 * 0.5);
  CHECK(R->RelaxedMakespanUs < OneWay);
  Schedule Sch = scheduleTransfers(S, *R);
  CHECK(Sch.MakespanUs < OneWay);
}

TEST_CASE("an unreachable rank is a diagnostic, not a crash") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("t", 3);
  S.Topo.addLink({RankId(0), RankId(1), 1, 1e-6});
  S.Topo.addLink({RankId(1), RankId(0), 1, 1e-6});
  S.Coll = Collective::allGather(3, 1);
  S.SizeBytes = 1000;
  CHECK(!routeChunks(S, SynthesisOptions(), Diags));
  CHECK(Diags.errorCount() == 1);
}

TEST_CASE("an unreachable rank caused by the relay rules blames them") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("t", 2, 2);
  for (auto [A, B] : {std::pair{0, 1}, {2, 3}, {0, 2}})
    for (auto [X, Y] : {std::pair{A, B}, {B, A}})
      S.Topo.addLink({RankId(X), RankId(Y), 1, 1e-6});
  // GPU 0 carries only its own chunks, and only GPU 0 has links out.
  S.Carries = {{true, false}, {false, true}};
  S.Coll = Collective::allGather(4, 1);
  S.SizeBytes = 4000;
  CHECK(!checkRoutable(S, Diags));
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Diags.flush(OS);
  CHECK(OS.str().find("chunk 1 (input chunk 0 of rank 1) cannot reach rank 2: "
                      "under the relay rules it may cross between nodes only "
                      "over no link at all") != std::string::npos);
  // Let GPU 0 carry GPU 1's chunks: routable.
  S.Carries[0][1] = true;
  CHECK(checkRoutable(S, Diags));
}

namespace {
/// Two nodes of two GPUs: NVLink inside, and relays 0->2, 1->3, 2->0, 3->1
/// (every GPU has a way out) through one NIC per node.
Sketch twoNodes(bool SenderRules) {
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("box", 2, 2);
  int Nv = S.Topo.addClass({"nv", 0.5, 10e-6, {}});
  int Ib = S.Topo.addClass({"ib", 2.0, 100e-6, {}});
  for (unsigned N = 0; N < 2; ++N) {
    S.Topo.addLink({RankId(2 * N), RankId(2 * N + 1), 0.5, 10e-6, Nv});
    S.Topo.addLink({RankId(2 * N + 1), RankId(2 * N), 0.5, 10e-6, Nv});
    S.Topo.addNic({Ib, {RankId(2 * N), RankId(2 * N + 1)}});
  }
  for (unsigned G = 0; G < 2; ++G) {
    S.Topo.addLink({RankId(G), RankId(G + 2), 2.0, 100e-6, Ib});
    S.Topo.addLink({RankId(G + 2), RankId(G), 2.0, 100e-6, Ib});
  }
  S.Coll = Collective::allGather(4, 1);
  S.SizeBytes = 4000000;
  if (SenderRules) // only local GPU 1 sends between nodes, for both GPUs
    S.Carries = {{false, false}, {true, true}};
  return S;
}
} // namespace

TEST_CASE("the routing warm start crosses a shared NIC once per chunk") {
  // Every GPU links to every GPU of the other node through the node's one
  // NIC, at 1 MB chunks: a shortest-path tree would cross the NIC once per
  // destination; the Steiner warm start crosses once and relays inside.
  // (At 1 KB, where latency rules, crossing twice is the faster warm start.)
  Sketch S = twoNodes(false);
  for (unsigned G = 0; G < 2; ++G) {
    S.Topo.addLink({RankId(G), RankId(3 - G), 2.0, 100e-6, 1});
    S.Topo.addLink({RankId(3 - G), RankId(G), 2.0, 100e-6, 1});
  }
  S.SizeBytes = 4000000;
  RoutingModel RM = buildRoutingModel(S, SymmetryGroup::trivial(S));
  CHECK(RM.Model.maxViolation(RM.WarmStart) <= 1e-6);
  for (unsigned C = 0; C < 4; ++C) {
    CAPTURE(C);
    unsigned Crossings = 0;
    for (unsigned L = 0; L < S.Topo.links().size(); ++L) {
      const Link &Lk = S.Topo.link(LinkId(L));
      if (auto X = RM.UseVar[C][L];
          X && S.Topo.nodeOf(Lk.Src) != S.Topo.nodeOf(Lk.Dst))
        Crossings += RM.WarmStart[X->Index] > 0.5;
    }
    CHECK(Crossings == 1);
  }
}

TEST_CASE("sender rules keep chunks off the links of other senders") {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Sketch S = twoNodes(true);
  auto R = routeChunks(S, SynthesisOptions(), Diags);
  REQUIRE(R);
  for (const ChunkRoute &CR : R->Chunks)
    for (LinkId L : CR.Links) {
      const Link &Lk = S.Topo.link(L);
      if (S.Topo.nodeOf(Lk.Src) != S.Topo.nodeOf(Lk.Dst))
        CHECK(Lk.Src.index() % 2 == 1);
    }
  // Without the rules, the direct links of GPU 0 are used too.
  Sketch Free = twoNodes(false);
  auto RF = routeChunks(Free, SynthesisOptions(), Diags);
  REQUIRE(RF);
  bool UsesGpu0 = false;
  for (const ChunkRoute &CR : RF->Chunks)
    for (LinkId L : CR.Links)
      UsesGpu0 |= Free.Topo.link(L).Src.index() % 2 == 0 &&
                  Free.Topo.nodeOf(Free.Topo.link(L).Src) !=
                      Free.Topo.nodeOf(Free.Topo.link(L).Dst);
  CHECK(UsesGpu0);
}

TEST_CASE("a shared NIC serialises the transfers of the GPUs behind it") {
  Sketch S = twoNodes(false);
  // Both GPUs of node 0 send their own chunk across at time 0; the NIC's
  // send side lets only one go at a time.
  Routes R;
  for (unsigned C = 0; C < 2; ++C)
    R.Chunks.push_back(
        {ChunkId(C), {*S.Topo.findLink(RankId(C), RankId(C + 2))}});
  for (unsigned C = 2; C < 4; ++C)
    R.Chunks.push_back({ChunkId(C), {}});
  Schedule Sch = scheduleTransfers(S, R);
  // Both latencies at once, then the data one message after the other.
  double Hop = tacclrt::protocolCosts(tacclrt::Protocol::Simple).HopUs[1];
  CHECK(Sch.MakespanUs == doctest::Approx(Hop + 2 * 100e-6 * 1e6));
}

TEST_CASE("parallel links carry transfers side by side") {
  Sketch S = ringSketch(2, 2, false, 4000000);
  Routes R;
  for (unsigned C = 0; C < 4; ++C) {
    unsigned Src = S.Coll.chunk(ChunkId(C)).Source.index();
    R.Chunks.push_back(
        {ChunkId(C), {*S.Topo.findLink(RankId(Src), RankId(1 - Src))}});
  }
  // One lane: one latency, then both chunks' data; two lanes: side by side.
  double Hop = tacclrt::protocolCosts(tacclrt::Protocol::Simple).HopUs[0];
  double Cost = Hop + 46.0 * 1.0;
  CHECK(scheduleTransfers(S, R).MakespanUs == doctest::Approx(Hop + 2 * 46.0));
  Sketch Double = S;
  Double.Topo = Topology("ring", 2);
  for (const Link &L : S.Topo.links()) {
    Link Copy = L;
    Copy.Multiplicity = 2;
    Double.Topo.addLink(Copy);
  }
  Schedule Sch = scheduleTransfers(Double, R);
  CHECK(Sch.MakespanUs == doctest::Approx(Cost));
  // The two transfers on each link start together, one on each lane.
  for (const Link &L : Double.Topo.links()) {
    std::vector<unsigned> Lanes;
    for (const Transfer &T : Sch.Transfers)
      if (Double.Topo.link(T.Link).Src == L.Src)
        Lanes.push_back(T.Lane);
    std::sort(Lanes.begin(), Lanes.end());
    CHECK(Lanes == std::vector<unsigned>{0, 1});
  }
}

TEST_CASE("sender first: own chunks cross to the other node before relayed") {
  Sketch S = twoNodes(true);
  S.SenderFirst = true;
  // Chunk 0 (GPU 0) goes 0 -> 1 -> 3; chunk 1 (GPU 1) goes 1 -> 3.
  Routes R;
  R.Chunks.push_back({ChunkId(0),
                      {*S.Topo.findLink(RankId(0), RankId(1)),
                       *S.Topo.findLink(RankId(1), RankId(3))}});
  R.Chunks.push_back({ChunkId(1), {*S.Topo.findLink(RankId(1), RankId(3))}});
  R.Chunks.push_back({ChunkId(2), {}});
  R.Chunks.push_back({ChunkId(3), {}});
  Schedule Sch = scheduleTransfers(S, R);
  LinkId Ib = *S.Topo.findLink(RankId(1), RankId(3));
  double Own = -1, Relayed = -1;
  for (const Transfer &T : Sch.Transfers)
    if (T.Link == Ib)
      (T.Chunk == ChunkId(1) ? Own : Relayed) = T.StartUs;
  CHECK(Own == 0.0);
  CHECK(Relayed >= Own + 2.0);
}

TEST_CASE("the warm start satisfies port, policy and sender-rule rows too") {
  for (SwitchPolicy P : {SwitchPolicy::UcMin, SwitchPolicy::UcMax}) {
    CAPTURE(switchPolicyName(P).str());
    Sketch S;
    S.Name = "s";
    S.Topo = Topology("box", 2, 3);
    int Nv = S.Topo.addClass({"nv", 0.5, 10e-6, {}});
    int Ib = S.Topo.addClass({"ib", 2.0, 100e-6, {}});
    Switch Sw{"nvs", Nv, {}, P};
    for (unsigned N = 0; N < 2; ++N)
      Sw.Groups.push_back(
          {RankId(3 * N), RankId(3 * N + 1), RankId(3 * N + 2)});
    int Id = S.Topo.addSwitch(Sw);
    for (const auto &G : Sw.Groups)
      for (RankId A : G)
        for (RankId B : G)
          if (A != B) {
            Link L{A, B, 0.5, 10e-6, Nv};
            L.Switch = Id;
            S.Topo.addLink(L);
          }
    for (unsigned N = 0; N < 2; ++N)
      S.Topo.addNic(
          {Ib, {RankId(3 * N), RankId(3 * N + 1), RankId(3 * N + 2)}});
    for (unsigned G = 0; G < 3; ++G)
      for (unsigned H = 0; H < 3; ++H) {
        S.Topo.addLink({RankId(G), RankId(3 + H), 2.0, 100e-6, Ib});
        S.Topo.addLink({RankId(3 + H), RankId(G), 2.0, 100e-6, Ib});
      }
    S.Coll = Collective::allGather(6, 2);
    S.SizeBytes = 1200000;
    S.Carries = {
        {true, false, false}, {false, true, true}, {false, false, false}};
    RoutingModel RM = buildRoutingModel(S, SymmetryGroup::trivial(S));
    REQUIRE(RM.WarmStart.size() == RM.Model.variables().size());
    checkRowsHold(RM);
    unsigned PolicyRows = 0, PortRows = 0;
    for (const auto &Row : RM.Model.constraints()) {
      PolicyRows += Row.Name.rfind("uc_", 0) == 0;
      PortRows += Row.Name.rfind("port", 0) == 0;
    }
    CHECK(PolicyRows > 0);
    CHECK(PortRows > 0);
    // No variable lets GPU 2 send between nodes (it carries nothing), and
    // GPU 0 only carries its own chunks.
    for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C)
      for (unsigned L = 0; L < S.Topo.links().size(); ++L) {
        const Link &Lk = S.Topo.link(LinkId(L));
        if (S.Topo.nodeOf(Lk.Src) == S.Topo.nodeOf(Lk.Dst))
          continue;
        if (Lk.Src.index() % 3 == 2 ||
            (Lk.Src.index() % 3 == 0 &&
             S.Coll.chunk(ChunkId(C)).Source.index() % 3 != 0))
          CHECK_FALSE(RM.UseVar[C][L].has_value());
      }
  }
}
