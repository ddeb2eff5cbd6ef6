//===- passes/Baselines.cpp - NCCL's own algorithms as routes -------------===//
//
// findRing: per node, a depth-first search for a Hamiltonian cycle (one
// node) or path (several nodes) over the node's directed links, trying
// neighbours in the order of the node's GPUs rotated to the ring's start,
// so the ring is deterministic and rings leave a node from different GPUs;
// NCCL's own search also prefers the machine's fastest intra-node links, which
// for the stdlib machines are all NVLink or NVSwitch. ringRoutes and
// directRoutes list each chunk's links parent first, as ir::Routes requires.
//
//===----------------------------------------------------------------------===//
#include "passes/Baselines.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <tuple>

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
  // Bounded search: rings in the stdlib machines are found at once; give up
  // after a fixed amount of work rather than explore exponentially.
  unsigned long Budget = 1000000;
  std::function<bool()> Extend = [&]() -> bool {
    if (Budget-- == 0)
      return false;
    if (Path.size() == N)
      return !Cycle || N == 1 || T.findLink(Path.back(), Path.front());
    // Neighbours in the order of Ranks (so a rotated list gives a rotated
    // path).
    std::vector<RankId> Next;
    for (RankId D : Ranks)
      if (!Used[D.index()] && T.findLink(Path.back(), D))
        Next.push_back(D);
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

std::optional<std::vector<RankId>> tacclc::findRing(const Topology &T,
                                                    unsigned Start) {
  const unsigned Nodes = T.getNumNodes(), G = T.getGpusPerNode();
  std::vector<RankId> Ring;
  for (unsigned Node = 0; Node < Nodes; ++Node) {
    // Try the start GPU first, then the others in order.
    std::optional<std::vector<RankId>> Part;
    for (unsigned K = 0; K < G && !Part; ++K) {
      std::vector<RankId> Ranks;
      for (unsigned Gpu = 0; Gpu < G; ++Gpu)
        Ranks.push_back(RankId(Node * G + (Gpu + Start + K) % G));
      Part = hamilton(T, Ranks, Nodes == 1);
    }
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

unsigned tacclc::defaultRingCount(const Topology &T) {
  if (T.getNumNodes() <= 1)
    return 1;
  unsigned PerNode = 0;
  for (const Nic &N : T.nics())
    PerNode += T.nodeOf(N.Ranks.front()) == 0;
  return std::max(1u, PerNode);
}

std::optional<Routes>
tacclc::ringRoutes(const Sketch &S,
                   const std::vector<std::vector<RankId>> &Rings,
                   bool Forward) {
  Routes R;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const std::vector<RankId> &Ring = Rings[C % Rings.size()];
    const size_t N = Ring.size();
    std::vector<size_t> Pos(S.Topo.getNumRanks());
    for (size_t I = 0; I < N; ++I)
      Pos[Ring[I].index()] = I;
    auto Step = [&](size_t P, size_t K) {
      return Forward ? (P + K) % N : (P + N - K % N) % N;
    };
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

std::optional<Routes> tacclc::hierarchicalRoutes(const Sketch &S,
                                                 std::string &Error) {
  const Topology &T = S.Topo;
  const unsigned Nodes = T.getNumNodes(), G = T.getGpusPerNode();
  // Each node's ring, and every rank's position on it.
  std::vector<std::vector<RankId>> NodeRing(Nodes);
  std::vector<size_t> Pos(T.getNumRanks());
  for (unsigned Node = 0; Node < Nodes; ++Node) {
    std::vector<RankId> Ranks;
    for (unsigned Gpu = 0; Gpu < G; ++Gpu)
      Ranks.push_back(RankId(Node * G + Gpu));
    auto Ring = hamilton(T, Ranks, true);
    if (!Ring) {
      Error = fmt::format("node {} has no ring through its GPUs", Node);
      return std::nullopt;
    }
    NodeRing[Node] = *Ring;
    for (size_t I = 0; I < G; ++I)
      Pos[(*Ring)[I].index()] = I;
  }
  Routes R;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const Chunk &Ch = S.Coll.chunk(ChunkId(C));
    const unsigned SrcNode = T.nodeOf(Ch.Source), Gpu = Ch.Source.index() % G;
    // How far each leg must go: on the rail, and around each node's ring.
    unsigned RailFar = 0;
    std::vector<int> RingFar(Nodes, -1);
    for (RankId P : Ch.Post) {
      unsigned Hop = (T.nodeOf(P) + Nodes - SrcNode) % Nodes;
      RailFar = std::max(RailFar, Hop);
      RankId Entry(T.nodeOf(P) * G + Gpu);
      int Around = int((Pos[P.index()] + G - Pos[Entry.index()]) % G);
      RingFar[T.nodeOf(P)] = std::max(RingFar[T.nodeOf(P)], Around);
    }
    ChunkRoute CR;
    CR.Chunk = ChunkId(C);
    auto Add = [&](RankId A, RankId B) {
      auto L = T.findLink(A, B);
      if (!L)
        Error = fmt::format("no link {} -> {}", A.index(), B.index());
      else
        CR.Links.push_back(*L);
      return L.has_value();
    };
    for (unsigned Hop = 0; Hop < RailFar; ++Hop)
      if (!Add(RankId(((SrcNode + Hop) % Nodes) * G + Gpu),
               RankId(((SrcNode + Hop + 1) % Nodes) * G + Gpu)))
        return std::nullopt;
    for (unsigned Node = 0; Node < Nodes; ++Node) {
      const std::vector<RankId> &Ring = NodeRing[Node];
      size_t From = Pos[Node * G + Gpu];
      for (int K = 0; K < RingFar[Node]; ++K)
        if (!Add(Ring[(From + size_t(K)) % G],
                 Ring[(From + size_t(K) + 1) % G]))
          return std::nullopt;
    }
    R.Chunks.push_back(std::move(CR));
  }
  R.SolverStatus = "fixed (hierarchical)";
  return R;
}

namespace {
/// Each node's GPUs in ring-path order (a chain), or nothing (with
/// \p Error set) when some node has none.
std::optional<std::vector<std::vector<RankId>>> nodeChains(const Topology &T,
                                                           std::string &Error) {
  const unsigned Nodes = T.getNumNodes(), G = T.getGpusPerNode();
  std::vector<std::vector<RankId>> Chain(Nodes);
  for (unsigned Node = 0; Node < Nodes; ++Node) {
    std::vector<RankId> Ranks;
    for (unsigned Gpu = 0; Gpu < G; ++Gpu)
      Ranks.push_back(RankId(Node * G + Gpu));
    auto Path = hamilton(T, Ranks, false);
    if (!Path) {
      Error = fmt::format("node {} has no chain through its GPUs", Node);
      return std::nullopt;
    }
    Chain[Node] = *Path;
  }
  return Chain;
}

/// The parent of every rank in each of the two trees (-1: the root) built
/// over the node chains \p Chain, or nothing (with \p Error set) when a
/// tree edge lacks a link either way.
std::optional<std::vector<std::vector<int>>>
treeParents(const Topology &T, const std::vector<std::vector<RankId>> &Chain,
            std::string &Error) {
  const unsigned Nodes = T.getNumNodes();
  std::vector<std::vector<int>> Parent(2,
                                       std::vector<int>(T.getNumRanks(), -1));
  for (int Tree = 0; Tree < 2; ++Tree) {
    auto NodeAt = [&](unsigned I) { return Tree ? Nodes - 1 - I : I; };
    for (unsigned I = 0; I < Nodes; ++I) {
      std::vector<RankId> C = Chain[NodeAt(I)];
      if (Tree)
        std::reverse(C.begin(), C.end());
      for (size_t K = 1; K < C.size(); ++K)
        Parent[Tree][C[K].index()] = int(C[K - 1].index());
      if (I > 0) {
        std::vector<RankId> Up = Chain[NodeAt((I - 1) / 2)];
        Parent[Tree][C.front().index()] =
            int((Tree ? Up.back() : Up.front()).index());
      }
    }
    for (unsigned R = 0; R < T.getNumRanks(); ++R) {
      int P = Parent[Tree][R];
      if (P >= 0 && (!T.findLink(RankId(R), RankId(P)) ||
                     !T.findLink(RankId(P), RankId(R)))) {
        Error = fmt::format("the tree needs links both ways between ranks {} "
                            "and {}",
                            R, P);
        return std::nullopt;
      }
    }
  }
  return Parent;
}

/// List scheduling of the two trees' transfers: of the transfers whose
/// inputs are there (up: every child's sum has arrived; down: the parent
/// has the total), always start the one that can start first (ties: the
/// first listed: lower chunk, up before down, lower rank), so that chunks
/// and both trees overlap wherever links allow. Even chunks use tree 0 of
/// \p Parent, odd chunks tree 1.
class TreeScheduler {
public:
  TreeScheduler(const Sketch &S, const std::vector<std::vector<int>> &Parent)
      : T(S.Topo), Parent(Parent),
        Bytes(S.Coll.chunkBytes(double(S.SizeBytes))),
        LinkFree(T.links().size(), 0) {
    const unsigned N = T.getNumRanks(), Chunks = S.Coll.getNumChunks();
    Waiting.assign(Chunks, std::vector<unsigned>(N));
    UpAt.assign(Chunks, std::vector<double>(N, 0));
    DownAt.assign(Chunks, std::vector<double>(N, -1));
    for (unsigned C = 0; C < Chunks; ++C)
      for (unsigned R = 0; R < N; ++R)
        if (int P = Parent[C % 2][R]; P >= 0) {
          ++Waiting[C][unsigned(P)];
          Jobs.push_back({C, R, true});
          Jobs.push_back({C, R, false});
        }
    Done.assign(Jobs.size(), false);
  }

  /// Starts every transfer in turn and returns the schedule.
  Schedule run() {
    Schedule Out;
    for (size_t Left = Jobs.size(); Left > 0; --Left) {
      double BestStart = 0;
      size_t Best = pickNext(BestStart);
      Out.Transfers.push_back(start(Best, BestStart));
    }
    Out.sortTransfers();
    for (const Transfer &X : Out.Transfers)
      Out.MakespanUs = std::max(Out.MakespanUs, X.EndUs);
    return Out;
  }

private:
  struct Job {
    unsigned Chunk, Rank; // the rank that sends up, or receives down
    bool Up;
  };

  /// The job that can start first (\p BestStart: when).
  size_t pickNext(double &BestStart) const {
    size_t Best = Jobs.size();
    for (size_t J = 0; J < Jobs.size(); ++J) {
      if (Done[J])
        continue;
      const Job &X = Jobs[J];
      unsigned P = unsigned(Parent[X.Chunk % 2][X.Rank]);
      double Ready;
      LinkId L;
      if (X.Up) {
        if (Waiting[X.Chunk][X.Rank])
          continue;
        Ready = UpAt[X.Chunk][X.Rank];
        L = *T.findLink(RankId(X.Rank), RankId(P));
      } else {
        bool Root = Parent[X.Chunk % 2][P] < 0;
        if (Root ? Waiting[X.Chunk][P] != 0 : DownAt[X.Chunk][P] < 0)
          continue;
        Ready = Root ? UpAt[X.Chunk][P] : DownAt[X.Chunk][P];
        L = *T.findLink(RankId(P), RankId(X.Rank));
      }
      double Start = std::max(Ready, LinkFree[L.index()]);
      if (Best == Jobs.size() || Start < BestStart - 1e-12) {
        Best = J;
        BestStart = Start;
      }
    }
    return Best;
  }

  /// Starts job \p Best at \p BestStart and releases what waits on it.
  Transfer start(size_t Best, double BestStart) {
    const Job &X = Jobs[Best];
    Done[Best] = true;
    unsigned P = unsigned(Parent[X.Chunk % 2][X.Rank]);
    unsigned From = X.Up ? X.Rank : P, To = X.Up ? P : X.Rank;
    LinkId L = *T.findLink(RankId(From), RankId(To));
    Transfer Tr;
    Tr.Chunk = ChunkId(X.Chunk);
    Tr.Link = L;
    Tr.StartUs = BestStart;
    Tr.EndUs = BestStart + T.link(L).costUs(Bytes);
    Tr.Reduce = X.Up;
    LinkFree[L.index()] = Tr.EndUs;
    if (X.Up) {
      --Waiting[X.Chunk][P];
      UpAt[X.Chunk][P] = std::max(UpAt[X.Chunk][P], Tr.EndUs);
    } else {
      DownAt[X.Chunk][X.Rank] = Tr.EndUs;
    }
    return Tr;
  }

  const Topology &T;
  const std::vector<std::vector<int>> &Parent;
  const double Bytes;
  std::vector<double> LinkFree;
  std::vector<Job> Jobs;
  std::vector<bool> Done;
  // Per chunk and rank: children still to deliver, when the rank's sum
  // (up) is there, and when the total arrived (down; -1 before).
  std::vector<std::vector<unsigned>> Waiting;
  std::vector<std::vector<double>> UpAt, DownAt;
};
} // namespace

std::optional<Schedule> tacclc::treeAllReduceSchedule(const Sketch &S,
                                                      std::string &Error) {
  auto Chain = nodeChains(S.Topo, Error);
  if (!Chain)
    return std::nullopt;
  auto Parent = treeParents(S.Topo, *Chain, Error);
  if (!Parent)
    return std::nullopt;
  return TreeScheduler(S, *Parent).run();
}
