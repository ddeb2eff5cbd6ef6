//===- passes/UsableLinks.h - Links a chunk may use in stage 1 --*- C++ -*-===//
//
// What the routing model (RoutingModel.cpp) and its size estimate
// (RoutingModelSize.cpp) must agree on: which links get a variable for a
// chunk, and which nodes a chunk must enter. Internal to the passes layer;
// RoutingModel.h has the public buildRoutingModel() and routingModelSize().
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_USABLELINKS_H
#define TACCLC_PASSES_USABLELINKS_H

#include "ir/Sketch.h"
#include "passes/RoutingStart.h"
#include "passes/TimeModel.h"

#include <cmath>
#include <vector>

namespace tacclc::stage1 {

/// Which links get a variable for a chunk (buildRoutingModel and
/// routingModelSize must agree): those leading away from where the chunk
/// starts that the relay rules let it cross and over which it can reach
/// the far end before the horizon H. Link costs are computed once.
class UsableLinks {
public:
  UsableLinks(const ir::Sketch &S, double H)
      : S(S), H(H), IsPre(S.Topo.getNumRanks(), false) {
    const TimeModel TM(S);
    for (unsigned L = 0; L < S.Topo.links().size(); ++L)
      Cost.push_back(TM.costUs(ir::LinkId(L)));
  }
  /// Answers for chunk \p C with paths \p P from now on.
  void setChunk(ir::ChunkId C, const ChunkPaths &P) {
    for (ir::RankId R : S.Coll.chunk(Chunk).Pre)
      IsPre[R.index()] = false;
    Chunk = C;
    Paths = &P;
    for (ir::RankId R : S.Coll.chunk(Chunk).Pre)
      IsPre[R.index()] = true;
  }
  bool operator()(ir::LinkId L) const {
    const ir::Link &Lk = S.Topo.link(L);
    double From = Paths->Dist[Lk.Src.index()];
    return !IsPre[Lk.Dst.index()] && std::isfinite(From) &&
           S.mayCarry(Chunk, L) &&
           From + Cost[L.index()] <= H * (1 + 1e-9) + 1e-9;
  }

private:
  const ir::Sketch &S;
  double H;
  std::vector<double> Cost;
  std::vector<bool> IsPre;
  ir::ChunkId Chunk{0};
  const ChunkPaths *Paths = nullptr;
};

/// True if chunk \p Ch must enter node \p N: some rank of it needs the
/// chunk and none holds it at the start.
inline bool mustEnterNode(const ir::Topology &Topo, const ir::Chunk &Ch,
                          unsigned N) {
  bool HasPre = false, HasPost = false;
  for (ir::RankId R : Ch.Pre)
    HasPre |= Topo.nodeOf(R) == N;
  for (ir::RankId R : Ch.Post)
    HasPost |= Topo.nodeOf(R) == N;
  return !HasPre && HasPost;
}

} // namespace tacclc::stage1

#endif // TACCLC_PASSES_USABLELINKS_H
