//===- tests/unit/passes/PhasesTest.cpp - The plan of a phased solve ------===//
//
// Where each phase of `phases` sends each chunk, on two nodes of two GPUs
// (links inside each node, rails between nodes): the hierarchical
// allgather and alltoall that NCCL's hierarchical algorithms run, in both
// orders, the phases' usable links, the symmetries kept per phase, the
// error for a plan that cannot finish, and the schedules' composition.
//
//===----------------------------------------------------------------------===//
#include "passes/Phases.h"
#include "passes/Symmetry.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Two nodes of two GPUs: n:0 <-> n:1 inside, n:g <-> m:g between.
Sketch pair(CollectiveKind Kind, std::vector<Phase::Scope> Order) {
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("pair", 2, 2);
  auto Both = [&](unsigned A, unsigned B) {
    S.Topo.addLink({RankId(A), RankId(B), 1.0, 10.0 / 1e6});
    S.Topo.addLink({RankId(B), RankId(A), 1.0, 10.0 / 1e6});
  };
  Both(0, 1);
  Both(2, 3);
  Both(0, 2);
  Both(1, 3);
  S.Coll = Collective::make(Kind, 4, 1);
  S.SizeBytes = 1 << 20;
  for (Phase::Scope Where : Order)
    S.Phases.push_back({Where, {}});
  return S;
}

std::vector<unsigned> ranks(llvm::ArrayRef<RankId> Rs) {
  std::vector<unsigned> Out;
  for (RankId R : Rs)
    Out.push_back(R.index());
  return Out;
}

std::vector<Sketch> plan(const Sketch &S, std::string &Errors) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  auto P = phaseSketches(S, Diags);
  llvm::raw_string_ostream OS(Errors);
  Diags.flush(OS);
  return P ? *P : std::vector<Sketch>();
}

using V = std::vector<unsigned>;
} // namespace

TEST_CASE("allgather within nodes, then across: the node, then everyone") {
  std::string Errors;
  auto P = plan(
      pair(CollectiveKind::AllGather, {Phase::WithinNodes, Phase::AcrossNodes}),
      Errors);
  REQUIRE(P.size() == 2);
  CHECK(Errors.empty());
  // Chunk 2 starts at rank 2 (node 1).
  const Chunk &First = P[0].Coll.chunk(ChunkId(2));
  CHECK(ranks(First.Pre) == V{2});
  CHECK(ranks(First.Post) == V{2, 3});
  const Chunk &Second = P[1].Coll.chunk(ChunkId(2));
  CHECK(ranks(Second.Pre) == V{2, 3});
  CHECK(ranks(Second.Post) == V{0, 1, 2, 3});
  // Phase 1 may use only the links inside nodes, phase 2 only the rails.
  for (unsigned L = 0; L < P[0].Topo.links().size(); ++L) {
    const Link &Lk = P[0].Topo.link(LinkId(L));
    bool Inside = Lk.Src.index() / 2 == Lk.Dst.index() / 2;
    CHECK(P[0].mayCarry(ChunkId(0), LinkId(L)) == Inside);
    CHECK(P[1].mayCarry(ChunkId(0), LinkId(L)) == !Inside);
  }
  CHECK(P[0].Phases.empty());
}

TEST_CASE("alltoall across nodes, then within: the rail of the destination") {
  std::string Errors;
  auto P = plan(
      pair(CollectiveKind::AllToAll, {Phase::AcrossNodes, Phase::WithinNodes}),
      Errors);
  REQUIRE(P.size() == 2);
  // Chunk (s, d, j) is s * R + d for one chunk per pair: 0 -> 3 is 3.
  const Chunk &C = P[0].Coll.chunk(ChunkId(3));
  CHECK(ranks(C.Pre) == V{0});
  CHECK(ranks(C.Post) == V{0, 2}); // across to node 1 on rank 0's rail
  CHECK(ranks(P[1].Coll.chunk(ChunkId(3)).Post) == V{0, 2, 3});
  // 0 -> 1 stays in its node: nothing to do across, then one hop.
  CHECK(ranks(P[0].Coll.chunk(ChunkId(1)).Post) == V{0});
  CHECK(ranks(P[1].Coll.chunk(ChunkId(1)).Post) == V{0, 1});
}

TEST_CASE("alltoall within nodes, then across: the GPU on the right rail") {
  std::string Errors;
  auto P = plan(
      pair(CollectiveKind::AllToAll, {Phase::WithinNodes, Phase::AcrossNodes}),
      Errors);
  REQUIRE(P.size() == 2);
  // 0 -> 3: first to rank 1 (GPU 1 of node 0, on 3's rail), then across.
  CHECK(ranks(P[0].Coll.chunk(ChunkId(3)).Post) == V{0, 1});
  CHECK(ranks(P[1].Coll.chunk(ChunkId(3)).Post) == V{0, 1, 3});
}

TEST_CASE("a plan that never leaves the node is an error") {
  std::string Errors;
  auto P = plan(pair(CollectiveKind::AllGather, {Phase::WithinNodes}), Errors);
  CHECK(P.empty());
  CHECK(Errors.find("the phases cannot bring chunk 0") != std::string::npos);
}

TEST_CASE("a phase keeps the symmetries that map its links onto its links") {
  Sketch S =
      pair(CollectiveKind::AllGather, {Phase::WithinNodes, Phase::AcrossNodes});
  Symmetry Nodes{"rotate nodes by 1", {2, 3, 0, 1}, {}};
  Symmetry Gpus{"rotate gpus by 1", {1, 0, 3, 2}, {}};
  // The square 0 - 1 - 3 - 2 turned by a quarter: a symmetry of the whole
  // machine that maps the link inside node 0 onto a rail.
  Symmetry Quarter{"map [1, 3, 0, 2]", {1, 3, 0, 2}, {}};
  S.Symmetries = {Nodes, Quarter, Gpus};
  std::string Errors;
  auto P = plan(S, Errors);
  REQUIRE(P.size() == 2);
  for (const Sketch &Ph : P) {
    REQUIRE(Ph.Symmetries.size() == 2);
    CHECK(Ph.Symmetries[0].Description == "rotate nodes by 1");
    CHECK(Ph.Symmetries[1].Description == "rotate gpus by 1");
  }
  // Across nodes, chunks 0 and 1 both start on node 0 and go everywhere;
  // their sources tell them apart, so swapping the GPUs fixes neither.
  std::string Why;
  const Symmetry *Culprit = nullptr;
  auto G = tryBuildSymmetryGroup(P[1], Why, Culprit);
  REQUIRE(G);
  CHECK(G->size() == 4);
  CHECK(G->numOrbits() == 1);
}

TEST_CASE("the phases' schedules run one after another") {
  Schedule A, B;
  A.Transfers.push_back({ChunkId(0), LinkId(0), 0, 2});
  A.MakespanUs = 3;
  B.Transfers.push_back({ChunkId(1), LinkId(1), 1, 4});
  B.MakespanUs = 4;
  Schedule C = composeSchedules({A, B});
  CHECK(C.MakespanUs == 7);
  REQUIRE(C.Transfers.size() == 2);
  CHECK(C.Transfers[1].StartUs == 4);
  CHECK(C.Transfers[1].EndUs == 7);
  Routes R1, R2;
  R1.Chunks.push_back({ChunkId(0), {LinkId(0)}});
  R2.Chunks.push_back({ChunkId(0), {LinkId(3)}});
  R2.SolverStatus = "optimal";
  R1.SolverStatus = "optimal";
  Routes R = composeRoutes({R1, R2});
  REQUIRE(R.Chunks.size() == 1);
  CHECK(R.Chunks[0].Links == std::vector<LinkId>{LinkId(0), LinkId(3)});
  CHECK(R.SolverStatus == "optimal");
}
