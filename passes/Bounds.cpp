//===- passes/Bounds.cpp - Lower bounds on collective time ----------------===//
//
// Every bound is a time no algorithm can beat on the machine's alpha-beta
// model (for ALLREDUCE, no algorithm that reduce-scatters and then
// allgathers, see below), so their maximum is one too. Sums are not taken:
// pipelining overlaps latency with bandwidth.
//
// Cut bound. ALLGATHER needs T >= (M/N) |S n Vc| / B+(S) for every vertex
// set S that misses a rank: the shards of S's ranks must all leave S. The
// maximum is found exactly with Dinkelbach's iteration on the throughput x
// (ForestColl): x is feasible when B+(S) >= x |S n Vc| for all such S, i.e.
// when for every rank v a super source feeding every other rank at x can
// send (N-1) x to v; a violated check yields, from the minimum cut, a set S
// whose ratio B+(S)/|S n Vc| is below x, which becomes the next x, until no
// check fails; that last set binds. REDUCESCATTER is the same on the
// reversed network; ALLREDUCE is T*_RS + T*_AG: a bound for the
// reduce-scatter-then-allgather algorithms tacclc and NCCL build (the per-rank
// bound below holds for any algorithm). BROADCAST (REDUCE) needs M / (minimum
// cut from the root to a rank (from a rank to the root)). ALLTOALL needs |S n
// Vc| |Vc \ S| (M/N) / B+(S): the uniform sparsest cut, NP-hard in general, so
// it is maximised over every set of ranks when there are at most 16, else over
// candidate sets (single ranks, whole nodes and unions of them, NIC groups, and
// the allgather's binding sets, each with its complement), each with the port
// vertices placed by a minimum cut; any set gives a valid bound, so the result
// is a lower bound either way, exact in the first case.
//
// Per-rank bound. in_r and out_r are the maximum flows into and out of rank
// r from and to all other ranks: its direct capacity with each port counted
// once. ALLGATHER: each rank receives (N-1)M/N and sends its M/N at least
// once; REDUCESCATTER the reverse; ALLTOALL both (N-1)M/N. ALLREDUCE: each
// rank receives and sends at least M (every element depends on everyone).
// BROADCAST: the root sends M, every other rank receives M; REDUCE the
// reverse. And for all ranks together: every transfer lands in a rank and
// leaves one, so T >= (bytes moved) / (total capacity into, or out of, the
// ranks, a shared port counted once): (N-1) M for all but ALLREDUCE, whose
// elements need 2(N-1) transfers each (one-way gossip among N ranks, as a
// partial sum is no smaller than an element), 2(N-1) M.
//
// Latency bound (LatencyBound.cpp): the largest shortest path between a pair
// of ranks that must communicate (every pair; from the root or to it), alpha
// only or under the fastest protocol's launch and per-hop latencies.
//
//===----------------------------------------------------------------------===//
#include "passes/Bounds.h"

#include "ir/Automorphisms.h"
#include "ir/Collective.h"
#include "passes/FlowNetwork.h"
#include "passes/LatencyBound.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

using namespace tacclc;

namespace {
constexpr double Inf = std::numeric_limits<double>::infinity();

/// A minimum cut: its value and source side (network vertices only).
struct MinCut {
  double Value = 0;
  std::vector<char> InS;
};

/// Minimum cut between \p Sources (fed by a super source with the given
/// capacities) and \p Sinks (draining without limit).
MinCut minCut(const FlowNetwork &G,
              const std::vector<std::pair<unsigned, double>> &Sources,
              const std::vector<unsigned> &Sinks) {
  unsigned S = G.NumVertices, T = G.NumVertices + 1;
  MaxFlow F(G.NumVertices + 2);
  for (const FlowNetwork::Edge &E : G.Edges)
    F.addEdge(E.From, E.To, E.Capacity);
  for (auto [V, C] : Sources)
    F.addEdge(S, V, C);
  for (unsigned V : Sinks)
    F.addEdge(V, T, UnboundedCapacity);
  MinCut R;
  R.Value = F.run(S, T);
  R.InS = F.sourceSide(S);
  R.InS.resize(G.NumVertices);
  return R;
}

/// The minimum cut with the ranks of \p Side (by rank) on the source side
/// and every other rank on the sink side.
MinCut splitCut(const FlowNetwork &G, const std::vector<char> &Side) {
  std::vector<std::pair<unsigned, double>> Src;
  std::vector<unsigned> Dst;
  for (unsigned R = 0; R < G.NumRanks; ++R)
    if (Side[R])
      Src.push_back({R, UnboundedCapacity});
    else
      Dst.push_back(R);
  return minCut(G, Src, Dst);
}

unsigned ranksIn(const FlowNetwork &G, const std::vector<char> &InS) {
  return static_cast<unsigned>(
      std::count(InS.begin(), InS.begin() + G.NumRanks, 1));
}

/// The largest ALLGATHER throughput x (bytes per microsecond per shard) and
/// the set that binds it (Dinkelbach's iteration, see the file comment).
std::pair<double, std::vector<char>> allGatherRate(const FlowNetwork &G) {
  unsigned N = G.NumRanks;
  std::vector<char> Best(G.NumVertices, 1);
  Best[0] = 0;
  double X = G.capacityOut(Best) / (N - 1);
  for (int Iter = 0; Iter < 200 && X > 0; ++Iter) {
    double Ratio = X;
    std::vector<char> Found;
    // The first rank of the smallest ratio is the lowest of its orbit:
    // the others' cuts are images of its.
    for (unsigned V = 0; V < N; ++V) {
      if (!G.lowestOfOrbit(V))
        continue;
      std::vector<std::pair<unsigned, double>> Src;
      for (unsigned U = 0; U < N; ++U)
        if (U != V)
          Src.push_back({U, X});
      MinCut C = minCut(G, Src, {V});
      if (C.Value >= (N - 1) * X * (1 - 1e-9))
        continue;
      unsigned K = ranksIn(G, C.InS);
      if (K == 0)
        continue;
      double R = G.capacityOut(C.InS) / K;
      if (R < Ratio) {
        Ratio = R;
        Found = std::move(C.InS);
      }
    }
    if (Found.empty() || Ratio >= X * (1 - 1e-12))
      break;
    X = Ratio;
    Best = std::move(Found);
  }
  return {X, Best};
}

std::string gbps(double BytesPerUs) {
  if (BytesPerUs >= UnboundedCapacity / 10)
    return "unbounded";
  return fmt::format("{:.4g} GB/s", BytesPerUs / 1e3);
}

/// The cut \p InS of \p G (a network of \p T), described in words.
Cut describe(const ir::Topology &T, const FlowNetwork &G,
             const std::vector<char> &InS) {
  Cut C;
  std::vector<unsigned> Out;
  for (unsigned R = 0; R < G.NumRanks; ++R)
    (InS[R] ? C.Inside : Out).push_back(R);
  C.Capacity = G.capacityOut(InS);
  std::map<int, double> By;
  for (const FlowNetwork::Edge &E : G.Edges)
    if (InS[E.From] && !InS[E.To])
      By[E.Label] += E.Capacity;
  for (auto [Label, Cap] : By)
    C.Through.push_back({G.Labels[Label], Cap / 1e3});
  std::stable_sort(
      C.Through.begin(), C.Through.end(),
      [](const auto &A, const auto &B) { return A.second > B.second; });
  C.Into = C.Inside.size() > Out.size();
  const std::vector<unsigned> &Group = C.Into ? Out : C.Inside;
  std::string Name;
  if (Group.size() == 1) {
    C.Kind = CutKind::Rank;
    Name = (C.Into ? "ingress of " : "egress of ") + boundRankName(T, Group[0]);
  } else {
    std::set<unsigned> Nodes;
    for (unsigned R : Group)
      Nodes.insert(T.nodeOf(ir::RankId(R)));
    bool Whole = T.getNumNodes() > 1 &&
                 Group.size() == Nodes.size() * T.getGpusPerNode();
    C.Kind = Whole ? CutKind::Nodes : CutKind::Other;
    std::vector<unsigned> Items =
        Whole ? std::vector<unsigned>(Nodes.begin(), Nodes.end()) : Group;
    Name = Whole ? (Items.size() == 1 ? "node " : "nodes ") : "ranks ";
    for (size_t I = 0; I < Items.size() && I < 8; ++I)
      Name += (I ? "," : "") + std::to_string(Items[I]);
    if (Items.size() > 8)
      Name += ",...";
  }
  C.Description = C.Kind == CutKind::Rank ? Name
                  : C.Into                ? "rest -> " + Name
                                          : Name + " -> rest";
  C.Description += ": " + gbps(C.Capacity);
  for (size_t I = 0; I < C.Through.size() && I < 3; ++I)
    C.Description += fmt::format("{} {} ({:.4g} GB/s)", I ? "," : " through",
                                 C.Through[I].first, C.Through[I].second);
  if (C.Through.size() > 3)
    C.Description += fmt::format(" and {} more", C.Through.size() - 3);
  return C;
}

std::vector<char> complement(const std::vector<char> &S) {
  std::vector<char> C(S.size());
  for (size_t I = 0; I < S.size(); ++I)
    C[I] = !S[I];
  return C;
}

/// The least of the images of rank set \p S under the powers of \p P: the
/// same for every set of one orbit, whose cuts are images of each other.
std::vector<char> leastImage(const std::vector<char> &S,
                             const std::vector<unsigned> &P) {
  std::vector<char> Best = S, Cur = S, Next(S.size());
  for (;;) {
    for (size_t R = 0; R < S.size(); ++R)
      Next[P[R]] = Cur[R];
    std::swap(Cur, Next);
    if (Cur == S)
      return Best;
    Best = std::min(Best, Cur);
  }
}

/// ALLTOALL: the best of the candidate rank sets (see the file comment).
/// Where the nodes rotate, a set's cut value is the one found for the
/// first set of its orbit; the cut itself is computed again only for a
/// set that improves on the best.
std::pair<double, std::vector<char>>
allToAllCut(const ir::Topology &T, const FlowNetwork &G, bool &Exact) {
  unsigned N = G.NumRanks;
  std::set<std::vector<char>> Sets;
  Exact = N <= 16;
  auto AddBoth = [&](std::vector<char> S) {
    Sets.insert(S);
    Sets.insert(complement(S));
  };
  if (Exact) {
    for (uint32_t Mask = 1; Mask + 1 < (uint32_t(1) << N); ++Mask) {
      std::vector<char> S(N);
      for (unsigned R = 0; R < N; ++R)
        S[R] = (Mask >> R) & 1;
      Sets.insert(S);
    }
  } else {
    for (unsigned R = 0; R < N; ++R) {
      std::vector<char> S(N, 0);
      S[R] = 1;
      AddBoth(S);
    }
    unsigned K = T.getNumNodes();
    for (uint32_t Mask = 1;
         K > 1 && Mask + 1 < (uint32_t(1) << std::min(K, 12u)); ++Mask) {
      std::vector<char> S(N);
      for (unsigned R = 0; R < N; ++R)
        S[R] = (Mask >> T.nodeOf(ir::RankId(R))) & 1;
      AddBoth(S);
    }
    for (const ir::Nic &Nic : T.nics()) {
      std::vector<char> S(N, 0);
      for (ir::RankId R : Nic.Ranks)
        S[R.index()] = 1;
      AddBoth(S);
    }
    for (const FlowNetwork &Net : {G, G.reversed()}) {
      std::vector<char> S = allGatherRate(Net).second;
      S.resize(N);
      AddBoth(S);
    }
  }
  double Best = -1;
  std::vector<char> BestSet;
  const std::vector<unsigned> Rotate =
      Exact ? std::vector<unsigned>() : G.NodeRotation;
  std::map<std::vector<char>, double> ValueOfOrbit;
  for (const std::vector<char> &S : Sets) {
    unsigned K = static_cast<unsigned>(std::count(S.begin(), S.end(), 1));
    if (K == 0 || K == N)
      continue;
    auto Value = [&](const MinCut &C) {
      return C.Value > 0 ? double(K) * (N - K) / C.Value : Inf;
    };
    std::optional<MinCut> C;
    double V;
    if (Rotate.empty()) {
      C = splitCut(G, S);
      V = Value(*C);
    } else {
      auto [It, New] = ValueOfOrbit.try_emplace(leastImage(S, Rotate), 0.0);
      if (New) {
        C = splitCut(G, S);
        It->second = Value(*C);
      }
      V = It->second;
    }
    if (V > Best) {
      if (!C) {
        C = splitCut(G, S);
        V = Value(*C);
      }
      Best = V;
      BestSet = std::move(C->InS);
    }
  }
  return {Best, BestSet};
}

/// Maximum flows out of each rank to all others.
std::vector<double> egress(const FlowNetwork &G) {
  std::vector<double> Out(G.NumRanks);
  for (unsigned R = 0; R < G.NumRanks; ++R) {
    if (!G.lowestOfOrbit(R)) {
      Out[R] = Out[G.OrbitLow[R]];
      continue;
    }
    std::vector<unsigned> Sinks;
    for (unsigned U = 0; U < G.NumRanks; ++U)
      if (U != R)
        Sinks.push_back(U);
    Out[R] = minCut(G, {{R, UnboundedCapacity}}, Sinks).Value;
  }
  return Out;
}

/// An upper bound on the total rate into all ranks: edges from ranks, and
/// from each other vertex the lesser of what enters it and what it sends
/// to ranks.
double totalIngress(const FlowNetwork &G) {
  std::vector<double> In(G.NumVertices, 0), ToRanks(G.NumVertices, 0);
  double Sum = 0;
  for (const FlowNetwork::Edge &E : G.Edges) {
    In[E.To] += E.Capacity;
    if (E.To < G.NumRanks)
      (E.From < G.NumRanks ? Sum : ToRanks[E.From]) += E.Capacity;
  }
  for (unsigned V = G.NumRanks; V < G.NumVertices; ++V)
    Sum += std::min(In[V], ToRanks[V]);
  return Sum;
}

/// The per-rank bound of \p C for \p M bytes on \p T (flow network \p G,
/// reversed \p Rev): the slowest rank, ports counted once, then all ranks
/// together (every byte that moves lands in a rank and leaves one).
Bound perRankBound(const ir::Topology &T, BoundCollective C, double M,
                   unsigned Root, const FlowNetwork &G,
                   const FlowNetwork &Rev) {
  const unsigned N = T.getNumRanks();
  const double Shard = M / N, Frac = double(N - 1) / N;
  Bound Out;
  std::vector<double> Egress = egress(G), Ingress = egress(Rev);
  auto PerRank = [&](const std::vector<double> &Cap, double Need,
                     const char *Dir, int Only = -1, int Skip = -1) {
    for (unsigned R = 0; R < N; ++R) {
      if ((Only >= 0 && int(R) != Only) || int(R) == Skip)
        continue;
      double TUs = Cap[R] > 0 ? Need / Cap[R] : Inf;
      if (TUs > Out.TimeUs)
        Out = {TUs,
               fmt::format("{} {} {}", boundRankName(T, R), Dir, gbps(Cap[R]))};
    }
  };
  switch (C) {
  case BoundCollective::AllGather:
    PerRank(Ingress, Frac * M, "ejection");
    PerRank(Egress, Shard, "injection");
    break;
  case BoundCollective::ReduceScatter:
    PerRank(Egress, Frac * M, "injection");
    PerRank(Ingress, Shard, "ejection");
    break;
  case BoundCollective::AllToAll:
    PerRank(Ingress, Frac * M, "ejection");
    PerRank(Egress, Frac * M, "injection");
    break;
  case BoundCollective::AllReduce:
    PerRank(Ingress, M, "ejection");
    PerRank(Egress, M, "injection");
    break;
  case BoundCollective::Broadcast:
    PerRank(Egress, M, "injection", Root);
    PerRank(Ingress, M, "ejection", -1, Root);
    break;
  case BoundCollective::Reduce:
    PerRank(Ingress, M, "ejection", Root);
    PerRank(Egress, M, "injection", -1, Root);
    break;
  }
  double Moved = (C == BoundCollective::AllReduce ? 2 : 1) * (N - 1) * M;
  for (auto [Tot, Dir] : {std::pair(totalIngress(G), "into"),
                          std::pair(totalIngress(Rev), "out of")}) {
    double TUs = Tot > 0 ? Moved / Tot : Inf;
    if (TUs > Out.TimeUs * (1 + 1e-9))
      Out = {TUs, fmt::format("{}(N-1) M bytes moved over the total "
                              "capacity {} ranks, {}",
                              C == BoundCollective::AllReduce ? "2" : "", Dir,
                              gbps(Tot))};
  }
  return Out;
}

/// The cut bound of \p B's collective on \p T (see the file comment): sets
/// B.CutBound, B.Binding and, as they apply, B.ReduceCut and B.CutExact.
void cutBound(const ir::Topology &T, const FlowNetwork &G,
              const FlowNetwork &Rev, CollectiveBounds &B) {
  const BoundCollective C = B.Collective;
  const unsigned N = B.Ranks, Root = B.Root;
  const double M = B.Bytes, Shard = B.Bytes / N;
  switch (C) {
  case BoundCollective::AllGather:
  case BoundCollective::ReduceScatter:
  case BoundCollective::AllReduce: {
    double TUs = 0;
    if (C != BoundCollective::ReduceScatter) {
      auto [X, S] = allGatherRate(G);
      B.Binding = describe(T, G, S);
      TUs += Shard / X;
    }
    if (C != BoundCollective::AllGather) {
      auto [X, S] = allGatherRate(Rev);
      // Reversed, the set's complement is the one data leaves.
      Cut RC = describe(T, G, complement(S));
      TUs += Shard / X;
      if (C == BoundCollective::ReduceScatter)
        B.Binding = RC;
      else
        B.ReduceCut = RC;
    }
    B.CutBound.TimeUs = TUs;
    B.CutBound.Why = C == BoundCollective::AllReduce
                         ? "reduce-scatter " + B.ReduceCut->Description +
                               " + allgather " + B.Binding.Description
                         : B.Binding.Description;
    break;
  }
  case BoundCollective::AllToAll: {
    auto [V, S] = allToAllCut(T, G, B.CutExact);
    B.Binding = describe(T, G, S);
    B.CutBound.TimeUs = V * Shard;
    B.CutBound.Why = B.Binding.Description;
    break;
  }
  case BoundCollective::Broadcast:
  case BoundCollective::Reduce: {
    bool Bc = C == BoundCollective::Broadcast;
    const FlowNetwork &Net = Bc ? G : Rev;
    MinCut Best;
    Best.Value = Inf;
    for (unsigned V = 0; V < N; ++V)
      if (V != Root) {
        MinCut Cut = minCut(Net, {{Root, UnboundedCapacity}}, {V});
        if (Cut.Value < Best.Value)
          Best = std::move(Cut);
      }
    B.Binding = describe(T, G, Bc ? Best.InS : complement(Best.InS));
    B.CutBound.TimeUs = M / Best.Value;
    B.CutBound.Why = B.Binding.Description;
    break;
  }
  }
}

} // namespace

std::optional<BoundCollective>
tacclc::parseBoundCollective(llvm::StringRef Name) {
  for (BoundCollective C :
       {BoundCollective::AllGather, BoundCollective::ReduceScatter,
        BoundCollective::AllReduce, BoundCollective::AllToAll,
        BoundCollective::Broadcast, BoundCollective::Reduce})
    if (Name == boundCollectiveName(C))
      return C;
  return std::nullopt;
}

llvm::StringRef tacclc::boundCollectiveName(BoundCollective C) {
  switch (C) {
  case BoundCollective::AllGather:
    return "allgather";
  case BoundCollective::ReduceScatter:
    return "reducescatter";
  case BoundCollective::AllReduce:
    return "allreduce";
  case BoundCollective::AllToAll:
    return "alltoall";
  case BoundCollective::Broadcast:
    return "broadcast";
  case BoundCollective::Reduce:
    return "reduce";
  }
  return "allgather";
}

double tacclc::busBandwidthFactor(BoundCollective C, unsigned N) {
  return ir::busBandwidthFactor(
      *ir::parseCollectiveName(boundCollectiveName(C)), N);
}

std::optional<CollectiveBounds>
tacclc::computeBounds(const ir::Topology &Topo, BoundCollective C, double Bytes,
                      unsigned Root, std::string &Error,
                      const BoundsModel &Model) {
  const unsigned N = Topo.getNumRanks();
  CollectiveBounds B;
  B.Collective = C;
  B.Bytes = Bytes;
  B.Ranks = N;
  B.Root = Root;
  bool Rooted = C == BoundCollective::Broadcast || C == BoundCollective::Reduce;
  if (Rooted && Root >= N) {
    Error = fmt::format("root {} is not a rank (the machine has {})", Root, N);
    return std::nullopt;
  }
  if (N < 2) {
    B.Combined.Why = "a single rank moves nothing";
    B.LimitedBy = "cut";
    return B;
  }
  ir::Topology T = Topo;
  T.applyCostsAt(Bytes / N);

  // Latency: the farthest pair that must communicate.
  auto Needed = [&](unsigned S, unsigned R) {
    return !Rooted || (C == BoundCollective::Broadcast ? S == Root : R == Root);
  };
  auto Latency = latencyBound(T, Needed, Model, Error);
  if (!Latency)
    return std::nullopt;
  B.Latency = *Latency;

  FlowNetwork G = buildFlowNetwork(T);
  // Rotations that are automorphisms at these costs: one cut per orbit.
  ir::MachineRotations Rotations = ir::machineRotations(T);
  G.OrbitLow.resize(N);
  if (Rotations.Nodes.empty() && Rotations.Gpus.empty())
    std::iota(G.OrbitLow.begin(), G.OrbitLow.end(), 0u);
  else
    for (const std::vector<unsigned> &O : Rotations.orbits())
      for (unsigned R : O)
        G.OrbitLow[R] = O.front();
  G.NodeRotation = std::move(Rotations.Nodes);
  FlowNetwork Rev = G.reversed();
  B.PerRank = perRankBound(T, C, Bytes, Root, G, Rev);
  cutBound(T, G, Rev, B);

  B.Combined = B.CutBound;
  B.LimitedBy = "cut";
  // Ties go to the cut, then the per-rank bound: they say more.
  if (B.PerRank.TimeUs > B.Combined.TimeUs * (1 + 1e-9)) {
    B.Combined = B.PerRank;
    B.LimitedBy = "per-rank";
  }
  if (B.Latency.TimeUs > B.Combined.TimeUs * (1 + 1e-9)) {
    B.Combined = B.Latency;
    B.LimitedBy = "latency";
  }
  return B;
}
