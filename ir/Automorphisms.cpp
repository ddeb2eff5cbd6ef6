//===- ir/Automorphisms.cpp - The symmetry group of a machine -------------===//
//
// The coloured graph of a machine handed to bliss, the membership test, and
// the choice of a semiregular subgroup (ir/Automorphisms.h).
//
//===----------------------------------------------------------------------===//
#include "ir/Automorphisms.h"

#include "llvm/ADT/StringExtras.h"

#include <bliss/graph.hh>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
using Perm = std::vector<unsigned>;

/// What an automorphism must keep of a link.
auto linkKey(const Link &L) {
  return std::make_tuple(L.Class, L.AlphaUs, L.BetaUsPerB, L.Multiplicity,
                         L.Switch);
}

/// Colours handed out in the order they are first asked for.
class Palette {
public:
  unsigned operator()(const std::string &Key) {
    return Ids.try_emplace(Key, unsigned(Ids.size())).first->second;
  }

private:
  std::map<std::string, unsigned> Ids;
};

struct HookState {
  unsigned Ranks;
  std::vector<Perm> *Out;
};

void collect(void *Param, unsigned N, const unsigned *Aut) {
  auto *S = static_cast<HookState *>(Param);
  S->Out->emplace_back(Aut, Aut + std::min(N, S->Ranks));
}

Perm compose(const Perm &A, const Perm &B) { // first B, then A
  Perm C(B.size());
  for (size_t I = 0; I < B.size(); ++I)
    C[I] = A[B[I]];
  return C;
}

bool fixesSomeRank(const Perm &P) {
  for (size_t I = 0; I < P.size(); ++I)
    if (P[I] == I)
      return true;
  return false;
}

bool isIdentity(const Perm &P) {
  for (size_t I = 0; I < P.size(); ++I)
    if (P[I] != I)
      return false;
  return true;
}

unsigned orderOf(const Perm &P) {
  Perm Q = P;
  unsigned K = 1;
  while (!isIdentity(Q) && K <= P.size()) {
    Q = compose(P, Q);
    ++K;
  }
  return K;
}

/// The group \p Gens generate, if it is semiregular and of order at most
/// the number of ranks; nothing otherwise.
std::optional<std::set<Perm>> semiregularClosure(const std::vector<Perm> &Gens,
                                                 unsigned Ranks) {
  Perm Id(Ranks);
  std::iota(Id.begin(), Id.end(), 0u);
  std::set<Perm> Seen{Id};
  std::vector<Perm> Queue{Id};
  for (size_t Head = 0; Head < Queue.size(); ++Head)
    for (const Perm &G : Gens) {
      Perm P = compose(G, Queue[Head]);
      if (Seen.count(P))
        continue;
      if (fixesSomeRank(P) || Seen.size() >= Ranks)
        return std::nullopt;
      Seen.insert(P);
      Queue.push_back(std::move(P));
    }
  return Seen;
}

/// The ranks (vertices 0 .. R-1) and links of \p T as a graph whose
/// automorphisms are the permutations of ranks that keep every link with
/// its key. Links of one key are edges between ranks. With several keys,
/// key k (numbered from 1) is written in binary over layers of copies of
/// the ranks: an edge between the copies in layer i for each bit i of k,
/// each copy pointing to the next layer's, so that one permutation moves
/// every layer alike (the layered encoding of edge colours in the nauty
/// and Traces user guide). That keeps the graph at a few times R vertices;
/// a vertex per link (over 100,000 on a 1,024-GPU machine) made the search
/// take seconds. Two links between the same ranks in one direction (none
/// in a Topology built by the frontend) get a vertex each instead.
void addLinks(bliss::Digraph &Graph, Palette &Colour, const Topology &T,
              const SymmetryRules &Rules) {
  const unsigned R = T.getNumRanks();
  auto RankColour = [&](unsigned I, unsigned Layer) {
    return Colour(
        fmt::format("rank {} layer {}",
                    Rules.RankColour.empty() ? 0 : Rules.RankColour[I], Layer));
  };
  std::map<std::tuple<int, double, double, unsigned, int>, unsigned> Keys;
  std::set<std::pair<unsigned, unsigned>> Pairs;
  bool Parallel = false;
  for (const Link &L : T.links()) {
    Keys.try_emplace(linkKey(L), unsigned(Keys.size()) + 1);
    Parallel |= !Pairs.insert({L.Src.index(), L.Dst.index()}).second;
  }
  for (unsigned I = 0; I < R; ++I)
    Graph.add_vertex(RankColour(I, 0));
  if (Parallel) {
    for (const Link &L : T.links()) {
      auto [Class, Alpha, Beta, Mult, Switch] = linkKey(L);
      unsigned Mid = Graph.add_vertex(Colour(fmt::format(
          "link {} {:a} {:a} {} {}", Class, Alpha, Beta, Mult, Switch)));
      Graph.add_edge(L.Src.index(), Mid);
      Graph.add_edge(Mid, L.Dst.index());
    }
    return;
  }
  // Key k is numbered in the order keys sort, which is the same for
  // machines that differ only by a permutation of ranks.
  unsigned Next = 1;
  for (auto &[Key, Id] : Keys)
    Id = Next++;
  unsigned Layers = 1;
  while ((1u << Layers) <= Keys.size())
    ++Layers;
  std::vector<unsigned> First(Layers, 0);
  for (unsigned Layer = 1; Layer < Layers; ++Layer) {
    First[Layer] = Graph.get_nof_vertices();
    for (unsigned I = 0; I < R; ++I) {
      Graph.add_vertex(RankColour(I, Layer));
      Graph.add_edge(First[Layer - 1] + I, First[Layer] + I);
    }
  }
  for (const Link &L : T.links()) {
    unsigned Id = Keys.at(linkKey(L));
    for (unsigned Layer = 0; Layer < Layers; ++Layer)
      if (Id >> Layer & 1)
        Graph.add_edge(First[Layer] + L.Src.index(),
                       First[Layer] + L.Dst.index());
  }
}

Perm rotateNodes(const Topology &T, unsigned K) {
  const unsigned N = T.getNumNodes(), G = T.getGpusPerNode();
  Perm P(T.getNumRanks());
  for (unsigned R = 0; R < P.size(); ++R)
    P[R] = ((R / G + K) % N) * G + R % G;
  return P;
}

Perm rotateWithin(unsigned Ranks, unsigned K, unsigned S) {
  Perm P(Ranks);
  for (unsigned R = 0; R < Ranks; ++R)
    P[R] = (R % S + K) % S + R / S * S;
  return P;
}
} // namespace

AutomorphismGroup ir::automorphisms(const Topology &T,
                                    const SymmetryRules &Rules) {
  const unsigned R = T.getNumRanks(), G = T.getGpusPerNode();
  Palette Colour;
  bliss::Digraph Graph(0);
  addLinks(Graph, Colour, T, Rules);
  for (const Nic &N : T.nics()) {
    unsigned V = Graph.add_vertex(Colour(fmt::format("nic {}", N.Class)));
    for (RankId Rk : N.Ranks)
      Graph.add_edge(Rk.index(), V);
  }
  for (size_t S = 0; S < T.switches().size(); ++S)
    for (const auto &Group : T.switches()[S].Groups) {
      unsigned V = Graph.add_vertex(Colour(fmt::format("switch {}", S)));
      for (RankId Rk : Group)
        Graph.add_edge(Rk.index(), V);
    }
  if (!Rules.Carries.empty()) {
    // Local GPU indices as vertices: every node's GPU g points at local g,
    // so a permutation moves all nodes' GPUs alike; the relay rule is a
    // relation between local indices.
    unsigned Local = Graph.get_nof_vertices();
    for (unsigned I = 0; I < G; ++I)
      Graph.add_vertex(Colour("local"));
    for (unsigned I = 0; I < R; ++I)
      Graph.add_edge(I, Local + I % G);
    for (unsigned S = 0; S < G; ++S)
      for (unsigned C = 0; C < G; ++C)
        if (Rules.Carries[S][C]) {
          unsigned Mid = Graph.add_vertex(Colour("carries"));
          Graph.add_edge(Local + S, Mid);
          Graph.add_edge(Mid, Local + C);
        }
  }

  AutomorphismGroup Out;
  HookState State{R, &Out.Generators};
  bliss::Stats Stats;
  Graph.find_automorphisms(Stats, collect, &State);
  // The exact order, as bliss prints it.
  char *Buf = nullptr;
  size_t Len = 0;
  if (FILE *F = open_memstream(&Buf, &Len)) {
    Stats.print(F);
    std::fclose(F);
    llvm::StringRef Text(Buf, Len);
    size_t At = Text.find("|Aut|:");
    if (At != llvm::StringRef::npos)
      Out.Order = Text.substr(At + 6).split('\n').first.trim().str();
    std::free(Buf);
  }
  if (Out.Order.empty())
    Out.Order = fmt::format("{:.0f}", double(Stats.get_group_size_approx()));
  // Generators that act only on the helper vertices are the identity on
  // ranks: dropped. The rest in a canonical order.
  llvm::erase_if(Out.Generators, isIdentity);
  std::sort(Out.Generators.begin(), Out.Generators.end());
  Out.Generators.erase(
      std::unique(Out.Generators.begin(), Out.Generators.end()),
      Out.Generators.end());

  Out.Orbits = rankOrbits(Out.Generators, R);
  return Out;
}

std::vector<std::vector<unsigned>>
ir::rankOrbits(llvm::ArrayRef<std::vector<unsigned>> Gens, unsigned Ranks) {
  // Union-find, each set rooted at its lowest rank.
  std::vector<unsigned> Parent(Ranks);
  std::iota(Parent.begin(), Parent.end(), 0u);
  std::function<unsigned(unsigned)> Find = [&](unsigned X) {
    return Parent[X] == X ? X : Parent[X] = Find(Parent[X]);
  };
  for (const Perm &P : Gens)
    for (unsigned I = 0; I < Ranks; ++I) {
      unsigned A = Find(I), B = Find(P[I]);
      if (A != B)
        Parent[std::max(A, B)] = std::min(A, B);
    }
  std::map<unsigned, std::vector<unsigned>> Orbits;
  for (unsigned I = 0; I < Ranks; ++I)
    Orbits[Find(I)].push_back(I);
  std::vector<std::vector<unsigned>> Out;
  for (auto &[Root, Members] : Orbits)
    Out.push_back(std::move(Members));
  return Out;
}

bool ir::preserves(const Topology &T, const SymmetryRules &Rules,
                   llvm::ArrayRef<unsigned> P) {
  const unsigned R = T.getNumRanks(), G = T.getGpusPerNode();
  if (P.size() != R)
    return false;
  std::vector<bool> Hit(R, false);
  for (unsigned X : P) {
    if (X >= R || Hit[X])
      return false;
    Hit[X] = true;
  }
  if (!Rules.RankColour.empty())
    for (unsigned I = 0; I < R; ++I)
      if (Rules.RankColour[I] != Rules.RankColour[P[I]])
        return false;
  for (const Link &L : T.links()) {
    auto Image = T.findLink(RankId(P[L.Src.index()]), RankId(P[L.Dst.index()]));
    if (!Image || linkKey(T.link(*Image)) != linkKey(L))
      return false;
  }
  auto Sorted = [&](llvm::ArrayRef<RankId> Ranks, bool Map) {
    std::vector<unsigned> V;
    for (RankId Rk : Ranks)
      V.push_back(Map ? P[Rk.index()] : Rk.index());
    std::sort(V.begin(), V.end());
    return V;
  };
  std::set<std::pair<int, std::vector<unsigned>>> Nics;
  for (const Nic &N : T.nics())
    Nics.insert({N.Class, Sorted(N.Ranks, false)});
  for (const Nic &N : T.nics())
    if (!Nics.count({N.Class, Sorted(N.Ranks, true)}))
      return false;
  for (const Switch &S : T.switches()) {
    std::set<std::vector<unsigned>> Groups;
    for (const auto &Gr : S.Groups)
      Groups.insert(Sorted(Gr, false));
    for (const auto &Gr : S.Groups)
      if (!Groups.count(Sorted(Gr, true)))
        return false;
  }
  if (!Rules.Carries.empty()) {
    // Every node's local GPUs move alike, and the rule between them stays.
    std::vector<unsigned> Local(G, ~0u);
    for (unsigned I = 0; I < R; ++I) {
      unsigned &L = Local[I % G];
      if (L == ~0u)
        L = P[I] % G;
      else if (L != P[I] % G)
        return false;
    }
    for (unsigned S = 0; S < G; ++S)
      for (unsigned C = 0; C < G; ++C)
        if (Rules.Carries[S][C] != Rules.Carries[Local[S]][Local[C]])
          return false;
  }
  return true;
}

std::string ir::describePermutation(const Topology &T,
                                    llvm::ArrayRef<unsigned> P) {
  const unsigned R = T.getNumRanks(), N = T.getNumNodes(),
                 G = T.getGpusPerNode();
  Perm V(P.begin(), P.end());
  for (unsigned K = 1; K < N; ++K)
    if (V == rotateNodes(T, K))
      return fmt::format("rotate nodes by {}", K);
  for (unsigned K = 1; K < G; ++K)
    if (V == rotateWithin(R, K, G))
      return fmt::format("rotate gpus by {}", K);
  for (unsigned S = 2; S <= R; ++S)
    if (R % S == 0 && S != G)
      for (unsigned K = 1; K < S; ++K)
        if (V == rotateWithin(R, K, S))
          return fmt::format("rotate ranks by {} within {}", K, S);
  std::vector<std::string> Items;
  for (unsigned X : P)
    Items.push_back(std::to_string(X));
  return "map [" + llvm::join(Items, ", ") + "]";
}

ir::MachineRotations ir::machineRotations(const Topology &T) {
  const unsigned R = T.getNumRanks(), N = T.getNumNodes(),
                 G = T.getGpusPerNode();
  MachineRotations Out;
  const SymmetryRules None;
  if (N > 1 && N * G == R && preserves(T, None, rotateNodes(T, 1)))
    Out.Nodes = rotateNodes(T, 1);
  if (G > 1 && N * G == R && preserves(T, None, rotateWithin(R, 1, G)))
    Out.Gpus = rotateWithin(R, 1, G);
  return Out;
}

std::vector<std::vector<unsigned>> ir::MachineRotations::orbits() const {
  std::vector<Perm> Gens;
  for (const Perm *P : {&Nodes, &Gpus})
    if (!P->empty())
      Gens.push_back(*P);
  unsigned Ranks = unsigned(std::max(Nodes.size(), Gpus.size()));
  return rankOrbits(Gens, Ranks);
}

FreeSubgroup ir::chooseFreeSubgroup(const Topology &T,
                                    const SymmetryRules &Rules,
                                    const AutomorphismGroup &Group) {
  const unsigned R = T.getNumRanks(), N = T.getNumNodes(),
                 G = T.getGpusPerNode();
  std::vector<Perm> Cands;
  // Rotations first, the largest orders first: of the nodes, of every
  // node's GPUs, of blocks of a node's GPUs, of blocks of nodes.
  if (N > 1)
    Cands.push_back(rotateNodes(T, 1));
  for (unsigned K = 1; K < G; ++K)
    if (G % K == 0)
      Cands.push_back(rotateWithin(R, K, G));
  for (unsigned S = G - 1; S >= 2; --S)
    if (G % S == 0)
      for (unsigned K = 1; K < S; ++K)
        if (S % K == 0)
          Cands.push_back(rotateWithin(R, K, S));
  for (unsigned K = 2; K < N; ++K)
    if (N % K == 0)
      Cands.push_back(rotateNodes(T, K));
  // Then what bliss found: its generators and their products, the
  // elements of larger order first.
  std::vector<Perm> Found;
  const size_t MaxGens = 48;
  const auto &Gens = Group.Generators;
  for (size_t I = 0; I < Gens.size() && I < MaxGens; ++I) {
    Found.push_back(Gens[I]);
    for (size_t J = I + 1; J < Gens.size() && J < MaxGens; ++J)
      Found.push_back(compose(Gens[I], Gens[J]));
  }
  llvm::erase_if(Found, fixesSomeRank);
  std::vector<std::pair<unsigned, Perm>> Ranked;
  for (Perm &P : Found)
    Ranked.push_back({orderOf(P), std::move(P)});
  std::sort(Ranked.begin(), Ranked.end(), [](const auto &A, const auto &B) {
    return A.first != B.first ? A.first > B.first : A.second < B.second;
  });
  for (auto &[Order, P] : Ranked)
    Cands.push_back(std::move(P));

  FreeSubgroup Out;
  std::set<Perm> Elements;
  for (const Perm &C : Cands) {
    if (Elements.count(C) || fixesSomeRank(C) || !preserves(T, Rules, C))
      continue;
    std::vector<Perm> Try = Out.Generators;
    Try.push_back(C);
    auto Closure = semiregularClosure(Try, R);
    if (!Closure || Closure->size() <= Out.Order)
      continue;
    Out.Generators = std::move(Try);
    Out.Descriptions.push_back(describePermutation(T, C));
    Out.Order = unsigned(Closure->size());
    Elements = std::move(*Closure);
    if (Out.Order == R)
      break;
  }
  return Out;
}
