//===- tests/unit/codegen/CodegenTestUtil.h - Fixed schedules ---*- C++ -*-===//
//
// Shared by the codegen and passes unit tests: ring and clique sketches,
// hand-made clockwise and direct routes and their list schedules, so that
// lowering can be tested without the solver.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TESTS_UNIT_CODEGEN_CODEGENTESTUTIL_H
#define TACCLC_TESTS_UNIT_CODEGEN_CODEGENTESTUTIL_H

#include "ir/Routes.h"
#include "ir/Sketch.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"

#include <algorithm>
#include <string>

namespace tacclc::test {

/// A ring of \p N ranks (clockwise links; \p Both adds, after each, the
/// link the other way), 1000 bytes per chunk.
inline ir::Sketch ringSketch(std::string Name, unsigned N, ir::Collective Coll,
                             bool Both = false) {
  using namespace ir;
  Sketch S;
  S.Name = std::move(Name);
  S.Topo = Topology("ring", N);
  for (unsigned R = 0; R < N; ++R) {
    S.Topo.addLink({RankId(R), RankId((R + 1) % N), 1.0, 1e-6});
    if (Both)
      S.Topo.addLink({RankId((R + 1) % N), RankId(R), 1.0, 1e-6});
  }
  S.Coll = std::move(Coll);
  S.SizeBytes = 1000 * S.Coll.getSizeParts();
  return S;
}

/// \p N ranks, every pair linked both ways (alpha 1 us, \p BetaUsPerB),
/// 1000 bytes per chunk.
inline ir::Sketch cliqueSketch(std::string Name, unsigned N,
                               ir::Collective Coll, double BetaUsPerB = 1e-6) {
  using namespace ir;
  Sketch S;
  S.Name = Name;
  S.Topo = Topology(std::move(Name), N);
  for (unsigned A = 0; A < N; ++A)
    for (unsigned B = 0; B < N; ++B)
      if (A != B)
        S.Topo.addLink({RankId(A), RankId(B), 1.0, BetaUsPerB});
  S.Coll = std::move(Coll);
  S.SizeBytes = 1000 * S.Coll.getSizeParts();
  return S;
}

/// Every chunk straight from its source to each rank that needs it (on a
/// clique).
inline ir::Routes directRoutes(const ir::Sketch &S) {
  using namespace ir;
  Routes Rt;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const Chunk &Ch = S.Coll.chunk(ChunkId(C));
    ChunkRoute CR{ChunkId(C), {}};
    for (RankId P : Ch.Post)
      if (P != Ch.Source)
        CR.Links.push_back(*S.Topo.findLink(Ch.Source, P));
    Rt.Chunks.push_back(CR);
  }
  return Rt;
}

/// Every chunk clockwise from its source to each rank that needs it.
inline ir::Routes clockwise(const ir::Sketch &S) {
  using namespace ir;
  Routes R;
  unsigned N = S.Topo.getNumRanks();
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const Chunk &Ch = S.Coll.chunk(ChunkId(C));
    unsigned Far = 0; // hops to the farthest rank that needs the chunk
    for (RankId P : Ch.Post)
      Far = std::max(Far, (P.index() + N - Ch.Source.index()) % N);
    ChunkRoute CR;
    CR.Chunk = ChunkId(C);
    for (unsigned Hop = 0; Hop < Far; ++Hop)
      CR.Links.push_back(
          *S.Topo.findLink(RankId((Ch.Source.index() + Hop) % N),
                           RankId((Ch.Source.index() + Hop + 1) % N)));
    R.Chunks.push_back(CR);
  }
  return R;
}

/// The schedule the compiler would build from clockwise routes: listed,
/// and for reductions the dual's, reversed.
inline ir::Schedule ringSchedule(const ir::Sketch &S) {
  using namespace ir;
  if (!isCombining(S.Coll.getKind()))
    return scheduleTransfers(S, clockwise(S));
  Sketch Dual = dualSketch(S, false);
  Schedule Up = scheduleTransfers(Dual, clockwise(Dual));
  return reverseForReduction(S, Up, false, &Up);
}

} // namespace tacclc::test

#endif // TACCLC_TESTS_UNIT_CODEGEN_CODEGENTESTUTIL_H
