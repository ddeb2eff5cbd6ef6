//===- passes/Baselines.cpp - NCCL's own algorithms as routes -------------===//
//
// findRing: per node, a depth-first search for a Hamiltonian cycle (one
// node) or path (several nodes) over the node's directed links, trying
// neighbours in rank order, so the ring is deterministic; NCCL's own search
// also prefers the machine's fastest intra-node links, which for the stdlib
// machines are all NVLink or NVSwitch. ringRoutes and directRoutes list each
// chunk's links parent first, as ir::Routes requires.
//
//===----------------------------------------------------------------------===//
#include "passes/Baselines.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// A Hamiltonian path (or cycle, with \p Cycle) through \p Ranks.
std::optional<std::vector<RankId>>
hamilton(const Topology &T, const std::vector<RankId> &Ranks, bool Cycle) {
  const size_t N = Ranks.size();
  std::vector<RankId> Path{Ranks.front()};
  std::vector<bool> Used(T.getNumRanks(), false);
  Used[Ranks.front().index()] = true;
  auto InSet = [&](RankId R) {
    return std::find(Ranks.begin(), Ranks.end(), R) != Ranks.end();
  };
  // Bounded search: rings in the stdlib machines are found at once; give up
  // after a fixed amount of work rather than explore exponentially.
  unsigned long Budget = 1000000;
  std::function<bool()> Extend = [&]() -> bool {
    if (Budget-- == 0)
      return false;
    if (Path.size() == N)
      return !Cycle || N == 1 || T.findLink(Path.back(), Path.front());
    std::vector<RankId> Next;
    for (LinkId L : T.outLinks(Path.back())) {
      RankId D = T.link(L).Dst;
      if (!Used[D.index()] && InSet(D))
        Next.push_back(D);
    }
    std::sort(Next.begin(), Next.end());
    for (RankId D : Next) {
      Used[D.index()] = true;
      Path.push_back(D);
      if (Extend())
        return true;
      Path.pop_back();
      Used[D.index()] = false;
    }
    return false;
  };
  if (!Extend())
    return std::nullopt;
  return Path;
}

/// The link From -> To, if the topology has it.
std::optional<LinkId> linkBetween(const Topology &T, RankId From, RankId To) {
  return T.findLink(From, To);
}
} // namespace

std::optional<std::vector<RankId>> tacclc::findRing(const Topology &T) {
  const unsigned Nodes = T.getNumNodes(), G = T.getGpusPerNode();
  std::vector<RankId> Ring;
  for (unsigned Node = 0; Node < Nodes; ++Node) {
    std::vector<RankId> Ranks;
    for (unsigned Gpu = 0; Gpu < G; ++Gpu)
      Ranks.push_back(RankId(Node * G + Gpu));
    auto Part = hamilton(T, Ranks, Nodes == 1);
    if (!Part)
      return std::nullopt;
    Ring.insert(Ring.end(), Part->begin(), Part->end());
  }
  // Nodes are joined last GPU -> first GPU of the next, around.
  for (size_t I = 0; I < Ring.size(); ++I)
    if (!linkBetween(T, Ring[I], Ring[(I + 1) % Ring.size()]))
      return std::nullopt;
  return Ring;
}

std::optional<Routes> tacclc::ringRoutes(const Sketch &S,
                                         const std::vector<RankId> &Ring,
                                         bool Forward) {
  const size_t N = Ring.size();
  std::vector<size_t> Pos(S.Topo.getNumRanks());
  for (size_t I = 0; I < N; ++I)
    Pos[Ring[I].index()] = I;
  auto Step = [&](size_t P, size_t K) {
    return Forward ? (P + K) % N : (P + N - K % N) % N;
  };
  Routes R;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const Chunk &Ch = S.Coll.chunk(ChunkId(C));
    size_t From = Pos[Ch.Source.index()], Far = 0;
    for (RankId P : Ch.Post)
      for (size_t K = 0; K < N; ++K)
        if (Ring[Step(From, K)] == P)
          Far = std::max(Far, K);
    ChunkRoute CR;
    CR.Chunk = ChunkId(C);
    for (size_t K = 0; K < Far; ++K) {
      auto L =
          linkBetween(S.Topo, Ring[Step(From, K)], Ring[Step(From, K + 1)]);
      if (!L)
        return std::nullopt;
      CR.Links.push_back(*L);
    }
    R.Chunks.push_back(std::move(CR));
  }
  R.SolverStatus = "fixed (ring)";
  return R;
}

std::optional<Routes> tacclc::directRoutes(const Sketch &S,
                                           std::string &Missing) {
  Routes R;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const Chunk &Ch = S.Coll.chunk(ChunkId(C));
    ChunkRoute CR;
    CR.Chunk = ChunkId(C);
    for (RankId P : Ch.Post) {
      if (P == Ch.Source)
        continue;
      auto L = linkBetween(S.Topo, Ch.Source, P);
      if (!L) {
        Missing = fmt::format("{} -> {}", Ch.Source.index(), P.index());
        return std::nullopt;
      }
      CR.Links.push_back(*L);
    }
    R.Chunks.push_back(std::move(CR));
  }
  R.SolverStatus = "fixed (direct)";
  return R;
}
