//===- tests/unit/passes/SymmetryTest.cpp - Symmetry group and reduction --===//
//
// The group a sketch's generators close into, its action on links and chunks,
// the fallback to the trivial group (with a warning) when it does not act on
// the problem, and the reduced routing model: smaller, feasible at its warm
// start, and (symmetric routes being a restriction) as good as the full one
// where the optimum is symmetric.
//
//===----------------------------------------------------------------------===//
#include "passes/Symmetry.h"
#include "passes/Routing.h"
#include "passes/RoutingModel.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// A bidirectional ring of \p N ranks running \p Kind with \p K chunks.
Sketch ring(unsigned N, CollectiveKind Kind, unsigned K = 1) {
  Sketch S;
  S.Name = "s";
  S.Topo = Topology("ring", N);
  for (unsigned R = 0; R < N; ++R) {
    S.Topo.addLink({RankId(R), RankId((R + 1) % N), 1.0, 10.0 / 1e6});
    S.Topo.addLink({RankId((R + 1) % N), RankId(R), 1.0, 10.0 / 1e6});
  }
  S.Coll = Collective::make(Kind, N, K);
  S.SizeBytes = 1 << 20;
  return S;
}

/// Rotation of \p N ranks by \p By.
Symmetry rotate(unsigned N, unsigned By) {
  Symmetry Sym;
  Sym.Description = "rotate ranks by " + std::to_string(By);
  for (unsigned R = 0; R < N; ++R)
    Sym.Perm.push_back((R + By) % N);
  return Sym;
}

/// Builds the group and returns the diagnostics printed.
std::string build(const Sketch &S, SymmetryGroup &Out) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Out = buildSymmetryGroup(S, Diags);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Diags.flush(OS);
  return OS.str();
}
} // namespace

TEST_CASE("rotations of a ring close into the cyclic group") {
  Sketch S = ring(8, CollectiveKind::AllGather, 2);
  S.Symmetries = {rotate(8, 2), rotate(8, 1)};
  SymmetryGroup G = SymmetryGroup::trivial(S);
  CHECK(build(S, G).empty());
  REQUIRE(G.size() == 8);
  CHECK(G.numOrbits() == 2); // chunk 0 and chunk 1 of rank 0
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    ChunkId Ch(C);
    ChunkId Rep = G.representative(Ch);
    // The element via(Ch) moves the representative's ranks onto Ch's.
    CHECK(G.rank(G.via(Ch), S.Coll.chunk(Rep).Source) ==
          S.Coll.chunk(Ch).Source);
    CHECK(G.representativeRank(Ch, S.Coll.chunk(Ch).Source) ==
          S.Coll.chunk(Rep).Source);
    CHECK(S.Coll.chunk(Rep).Source.index() == 0);
    CHECK(S.Coll.chunk(Rep).InputIndex == S.Coll.chunk(Ch).InputIndex);
    // Links map by their ends.
    for (unsigned L = 0; L < S.Topo.links().size(); ++L) {
      const Link &Lk = S.Topo.link(LinkId(L));
      const Link &Im = S.Topo.link(G.link(G.via(Ch), LinkId(L)));
      CHECK(Im.Src == G.rank(G.via(Ch), Lk.Src));
      CHECK(Im.Dst == G.rank(G.via(Ch), Lk.Dst));
      CHECK(G.representativeLink(Ch, G.link(G.via(Ch), LinkId(L))) ==
            LinkId(L));
    }
  }
}

TEST_CASE("alltoall chunks map by source and destination") {
  Sketch S = ring(4, CollectiveKind::AllToAll);
  S.Symmetries = {rotate(4, 1)};
  SymmetryGroup G = SymmetryGroup::trivial(S);
  CHECK(build(S, G).empty());
  REQUIRE(G.size() == 4);
  CHECK(G.numOrbits() == S.Coll.getNumChunks() / 4);
  // Each chunk is its representative moved by the rotation via(C): both
  // its source and its destination turn by the same number of ranks.
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const Chunk &Ch = S.Coll.chunk(ChunkId(C));
    const Chunk &Rep = S.Coll.chunk(G.representative(ChunkId(C)));
    unsigned Turn = G.rank(G.via(ChunkId(C)), RankId(0)).index();
    CHECK(Ch.Source.index() == (Rep.Source.index() + Turn) % 4);
    CHECK(Ch.Post.front().index() == (Rep.Post.front().index() + Turn) % 4);
    CHECK(Rep.Source.index() == 0);
  }
}

TEST_CASE("a symmetry that moves the root or fixes a chunk is not used") {
  SymmetryGroup G = SymmetryGroup::trivial(ring(4, CollectiveKind::AllGather));
  Sketch B = ring(4, CollectiveKind::Broadcast);
  B.Symmetries = {rotate(4, 1)};
  CHECK(build(B, G).find("onto no chunk of the broadcast") !=
        std::string::npos);
  CHECK(G.isTrivial());
  CHECK(G.numOrbits() == B.Coll.getNumChunks());

  Sketch A = ring(4, CollectiveKind::AllToAll);
  A.Symmetries = {{"swap 0 and 2", {2, 1, 0, 3}, {}}};
  CHECK(build(A, G).find("fixes chunk") != std::string::npos);
  CHECK(G.isTrivial());
}

TEST_CASE("the reduced routing model is smaller, feasible and as good") {
  for (CollectiveKind Kind :
       {CollectiveKind::AllGather, CollectiveKind::AllToAll}) {
    CAPTURE(collectiveName(Kind).str());
    Sketch S = ring(6, Kind);
    S.Symmetries = {rotate(6, 1)};
    SymmetryGroup G = SymmetryGroup::trivial(S);
    REQUIRE(build(S, G).empty());
    RoutingModel Full = buildRoutingModel(S, SymmetryGroup::trivial(S));
    RoutingModel Reduced = buildRoutingModel(S, G);
    CHECK(Reduced.Model.numVariables() * 5 < Full.Model.numVariables());
    CHECK(Reduced.Model.numConstraints() * 5 < Full.Model.numConstraints());
    CHECK(Reduced.Model.maxViolation(Reduced.WarmStart) <= 1e-6);

    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM);
    SolveStats WithStats, WithoutStats;
    SynthesisOptions Opts;
    Opts.MeasureReduction = true;
    auto With = routeChunks(S, Opts, Diags, &WithStats);
    Opts.UseSymmetry = false;
    auto Without = routeChunks(S, Opts, Diags, &WithoutStats);
    REQUIRE(With);
    REQUIRE(Without);
    CHECK(WithStats.GroupSize == 6);
    CHECK(WithStats.VariablesBefore == WithoutStats.Variables);
    // Symmetric routes are a restriction: as good for allgather here, but
    // an alltoall chunk to the opposite rank must go the same way round
    // for every source, which loads one direction more.
    if (Kind == CollectiveKind::AllGather)
      CHECK(With->RelaxedMakespanUs ==
            doctest::Approx(Without->RelaxedMakespanUs).epsilon(1e-3));
    else
      CHECK(With->RelaxedMakespanUs >= Without->RelaxedMakespanUs - 1e-6);
    // Every chunk's route is its representative's, moved.
    for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
      ChunkId Ch(C);
      const ChunkRoute &Mine = With->Chunks[C];
      const ChunkRoute &Rep = With->Chunks[G.representative(Ch).index()];
      REQUIRE(Mine.Links.size() == Rep.Links.size());
      for (LinkId L : Rep.Links)
        CHECK(std::find(Mine.Links.begin(), Mine.Links.end(),
                        G.link(G.via(Ch), L)) != Mine.Links.end());
    }
  }
}
