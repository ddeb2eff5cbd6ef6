//===- passes/Symmetry.cpp - Close and check the symmetry group -----------===//
//
// Algorithm:
//   1. close the generators under composition, breadth-first from the
//      identity in the sketch's order (deterministic element numbering);
//   2. map chunks under each generator by their (pre, post) rank sets:
//      chunks with equal sets are told apart by their order, which every
//      collective keeps under a permutation of ranks (the j-th chunk of a
//      part maps to the j-th chunk of the image); links map (Src, Dst) ->
//      (pi Src, pi Dst) when asked, by a search among the links out of
//      pi Src;
//   3. check each generator against the relay rules (Sketch::mayCarry) and
//      the switch policies, and the group for a free action on chunks: an
//      element other than the identity that fixes a chunk would force that
//      chunk's tree to be invariant, which a tree that receives once per
//      rank usually cannot be;
//   4. orbits, by a search from the lowest chunk of each (its
//      representative) along the generators, which also finds the element
//      that maps the representative to each chunk and sees whether the
//      action is free. No chunk table per element is kept.
// Any failure warns and falls back to the trivial group.
//
//===----------------------------------------------------------------------===//
#include "passes/Symmetry.h"

#include "support/Deadline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Larger groups are not used; TACCL's sketches have at most 16 elements.
constexpr size_t MaxGroupSize = 4096;

using Perm = std::vector<unsigned>;

/// The chunks of a collective by (pre set, post set, source or -1): how a
/// chunk is identified up to its order. The source counts in one phase of
/// a phased solve, where chunks from different ranks may start and end at
/// the same ranks (the rank permutation still maps a chunk's source to its
/// image's source: the phases' collectives do not reduce, so a chunk starts
/// at its source). Rank sets are numbered in their sorted order, so keys
/// order as the sets themselves would; a permutation's image of a set is
/// found by an order-free hash of its ranks and confirmed by comparison,
/// so mapping every chunk under an element costs the size of the distinct
/// sets, not of every chunk's sets (an allgather's chunks share one post
/// set of every rank).
class ChunkIndex {
public:
  ChunkIndex(const Collective &Coll, unsigned NumRanks, bool BySource)
      : BySource(BySource) {
    for (unsigned R = 0; R < NumRanks; ++R) {
      // splitmix64 of the rank: fixed, so the index is deterministic.
      uint64_t X = (uint64_t(R) + 1) * 0x9E3779B97F4A7C15ull;
      X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ull;
      X = (X ^ (X >> 27)) * 0x94D049BB133111EBull;
      Salt.push_back(X ^ (X >> 31));
    }
    std::map<Perm, unsigned> Ids;
    auto Sorted = [](llvm::ArrayRef<RankId> Ranks) {
      Perm V;
      for (RankId R : Ranks)
        V.push_back(R.index());
      std::sort(V.begin(), V.end());
      return V;
    };
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      Ids.try_emplace(Sorted(Coll.chunk(ChunkId(C)).Pre), 0);
      Ids.try_emplace(Sorted(Coll.chunk(ChunkId(C)).Post), 0);
    }
    for (auto &[Set, Id] : Ids) {
      Id = static_cast<unsigned>(Sets.size());
      Sets.push_back(Set);
      ByHash[hash(Set, nullptr)].push_back(Id);
    }
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      const Chunk &Ch = Coll.chunk(ChunkId(C));
      ByKey[{Ids[Sorted(Ch.Pre)], Ids[Sorted(Ch.Post)],
             BySource ? int(Ch.Source.index()) : -1}]
          .push_back(C);
    }
  }

  /// The chunk permutation of rank permutation \p P, or nothing when some
  /// chunk has no image (\p Missing is then set to it).
  std::optional<Perm> chunkPermutation(const Collective &Coll, const Perm &P,
                                       unsigned &Missing) const {
    std::vector<int> Image(Sets.size());
    for (unsigned Id = 0; Id < Sets.size(); ++Id)
      Image[Id] = imageOf(Id, P);
    Perm Out(Coll.getNumChunks());
    for (const auto &[Key, Chunks] : ByKey) {
      auto [Pre, Post, Src] = Key;
      auto It = ByKey.end();
      if (Image[Pre] >= 0 && Image[Post] >= 0)
        It = ByKey.find({unsigned(Image[Pre]), unsigned(Image[Post]),
                         BySource ? int(P[unsigned(Src)]) : -1});
      if (It == ByKey.end() || It->second.size() != Chunks.size()) {
        Missing = Chunks.front();
        return std::nullopt;
      }
      for (size_t J = 0; J < Chunks.size(); ++J)
        Out[Chunks[J]] = It->second[J];
    }
    return Out;
  }

private:
  /// The order-free hash of \p Set's ranks, each mapped by \p P if given.
  uint64_t hash(const Perm &Set, const Perm *P) const {
    uint64_t H = Set.size();
    for (unsigned R : Set)
      H += Salt[P ? (*P)[R] : R];
    return H;
  }

  /// The number of set \p Id's image under \p P, or -1 if it is no set.
  int imageOf(unsigned Id, const Perm &P) const {
    auto It = ByHash.find(hash(Sets[Id], &P));
    if (It == ByHash.end())
      return -1;
    Perm Mapped;
    for (unsigned R : Sets[Id])
      Mapped.push_back(P[R]);
    std::sort(Mapped.begin(), Mapped.end());
    for (unsigned Cand : It->second)
      if (Sets[Cand] == Mapped)
        return int(Cand);
    return -1;
  }

  bool BySource;
  std::vector<uint64_t> Salt;
  std::vector<Perm> Sets;
  std::map<uint64_t, std::vector<unsigned>> ByHash;
  std::map<std::tuple<unsigned, unsigned, int>, std::vector<unsigned>> ByKey;
};

std::string chunkText(const Sketch &S, unsigned C) {
  const Chunk &Ch = S.Coll.chunk(ChunkId(C));
  return fmt::format("chunk {} (input chunk {} of rank {})", C, Ch.InputIndex,
                     Ch.Source.index());
}

/// The image of link \p L under rank permutation \p P, if it is a link.
std::optional<LinkId> linkImage(const Topology &Topo, const Perm &P,
                                const Link &L) {
  return Topo.findLink(RankId(P[L.Src.index()]), RankId(P[L.Dst.index()]));
}

/// Whether chunks are told apart by their sources too: in a phase's sketch.
bool bySource(const Sketch &S) { return !S.PhaseLinks.empty(); }

/// Step 3a for generator \p Sym: why it does not map chunks, relay rules
/// or switch policies onto themselves, or nothing when it does.
std::optional<std::string>
checkGenerator(const Sketch &S, const ChunkIndex &Index, const Symmetry &Sym) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  unsigned Missing = 0;
  auto Chunks = Index.chunkPermutation(Coll, Sym.Perm, Missing);
  if (!Chunks)
    return fmt::format("it maps {} onto no chunk of the {}",
                       chunkText(S, Missing),
                       collectiveName(Coll.getKind()).str());
  // The relay rules see a chunk only through its source: one chunk per
  // pair of sources (the chunk's, its image's) stands for all of them.
  std::map<std::pair<unsigned, unsigned>, unsigned> BySources;
  if (!S.Carries.empty())
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
      BySources.try_emplace({Coll.chunk(ChunkId(C)).Source.index(),
                             Coll.chunk(ChunkId((*Chunks)[C])).Source.index()},
                            C);
  for (unsigned L = 0; L < Topo.links().size(); ++L) {
    const Link &Lk = Topo.link(LinkId(L));
    auto Image = linkImage(Topo, Sym.Perm, Lk);
    if (!Image)
      return fmt::format("link {} -> {} has no image", Lk.Src.index(),
                         Lk.Dst.index());
    const Link &Im = Topo.link(*Image);
    if ((Lk.Switch >= 0) != (Im.Switch >= 0) ||
        (Lk.Switch >= 0 && Topo.switches()[Lk.Switch].Policy !=
                               Topo.switches()[Im.Switch].Policy))
      return fmt::format("it maps link {} -> {} onto a link "
                         "with another switch policy",
                         Lk.Src.index(), Lk.Dst.index());
    if (!S.PhaseLinks.empty() &&
        S.PhaseLinks[L] != S.PhaseLinks[Image->index()])
      return fmt::format("the phase uses link {} -> {} but not its image, or "
                         "the other way round",
                         Lk.Src.index(), Lk.Dst.index());
    if (Topo.nodeOf(Lk.Src) == Topo.nodeOf(Lk.Dst) || S.Carries.empty())
      continue;
    // (The lowest chunk that breaks the rule is named.)
    unsigned Broken = Coll.getNumChunks();
    for (const auto &[Sources, C] : BySources)
      if (C < Broken && S.mayCarry(ChunkId(C), LinkId(L)) !=
                            S.mayCarry(ChunkId((*Chunks)[C]), *Image))
        Broken = C;
    if (Broken < Coll.getNumChunks())
      return fmt::format("the relay rules let link {} -> {} carry {} "
                         "but not its image, or the other way round",
                         Lk.Src.index(), Lk.Dst.index(), chunkText(S, Broken));
  }
  return std::nullopt;
}

/// Step 1: closes \p RankPerm (the identity) under the generators,
/// breadth-first, and numbers each element's inverse in \p Inverse and
/// each product in \p Times (element E then generator g is element
/// Times[E * generators + g]); says why not when the group grows too large.
std::optional<std::string> closeGroup(const Sketch &S,
                                      std::vector<Perm> &RankPerm,
                                      std::vector<unsigned> &Inverse,
                                      std::vector<unsigned> &Times) {
  std::map<Perm, unsigned> Index;
  Index[RankPerm[0]] = 0;
  for (size_t E = 0; E < RankPerm.size(); ++E)
    for (const Symmetry &Sym : S.Symmetries) {
      Perm Next(S.Topo.getNumRanks());
      for (unsigned R = 0; R < Next.size(); ++R)
        Next[R] = Sym.Perm[RankPerm[E][R]];
      if (auto It = Index.find(Next); It != Index.end()) {
        Times.push_back(It->second);
        continue;
      }
      if (RankPerm.size() == MaxGroupSize)
        return fmt::format("the symmetries generate more than "
                           "{} permutations",
                           MaxGroupSize);
      Times.push_back(unsigned(RankPerm.size()));
      Index[Next] = RankPerm.size();
      RankPerm.push_back(std::move(Next));
    }
  Inverse.resize(RankPerm.size());
  for (size_t E = 0; E < RankPerm.size(); ++E) {
    Perm Inv(RankPerm[E].size());
    for (unsigned R = 0; R < Inv.size(); ++R)
      Inv[RankPerm[E][R]] = R;
    auto It = Index.find(Inv);
    if (It == Index.end())
      reportInternalError("a finite group lacks an inverse");
    Inverse[E] = It->second;
  }
  return std::nullopt;
}

/// Step 3b, when step 2 found the action not free: why, naming the lowest
/// chunk that the first element (in their order) to fix one fixes. Maps
/// chunks under every element in turn, so it is slow on large groups, but
/// runs only to explain a failure.
std::string whyNotFree(const Sketch &S, const ChunkIndex &Index,
                       const std::vector<Perm> &RankPerm) {
  for (unsigned E = 1; E < RankPerm.size(); ++E) {
    checkDeadline();
    unsigned Missing = 0;
    auto Chunks = Index.chunkPermutation(S.Coll, RankPerm[E], Missing);
    if (!Chunks)
      reportInternalError("a product of chunk symmetries is not one");
    for (unsigned C = 0; C < Chunks->size(); ++C)
      if ((*Chunks)[C] == C)
        return fmt::format(
            "{}the group fixes {} but moves ranks, so its tree "
            "cannot be symmetric",
            S.Symmetries.size() > 1 ? "with the other symmetries, " : "",
            chunkText(S, C));
  }
  reportInternalError("an action that is not free fixes no chunk");
}

/// Steps 2, 3b and 4: the orbits of the chunks, found from the generators'
/// chunk permutations alone (\p Gens) by a breadth-first search from the
/// lowest chunk of each orbit, its representative (\p Rep). The search
/// follows the group's elements along: a chunk reached from X by generator
/// g is the image of the representative under Times of (Via[X], g), which
/// is its \p Via. Reaching a chunk again under another element means that
/// some element other than the identity fixes the representative (the
/// action is not free): returns false then. Otherwise every orbit has as
/// many chunks as the group has elements, and the work and memory are
/// those of the chunks times the generators, not the chunks times the
/// elements (a table per element would be 4 GiB for an alltoall on 1,024
/// ranks).
bool computeOrbits(const std::vector<Perm> &Gens,
                   const std::vector<unsigned> &Times, Perm &Rep, Perm &Via,
                   unsigned &NumOrbits) {
  const unsigned NoRep = ~0u;
  const size_t NumGens = Gens.size();
  Rep.assign(Rep.size(), NoRep);
  NumOrbits = 0;
  std::vector<unsigned> Queue;
  for (unsigned C = 0; C < Rep.size(); ++C) {
    if (Rep[C] != NoRep)
      continue;
    checkDeadline();
    ++NumOrbits;
    Rep[C] = C;
    Via[C] = 0;
    Queue.assign(1, C);
    for (size_t Head = 0; Head < Queue.size(); ++Head) {
      unsigned X = Queue[Head];
      for (size_t G = 0; G < NumGens; ++G) {
        unsigned Y = Gens[G][X];
        unsigned E = Times[Via[X] * NumGens + G];
        if (Rep[Y] == NoRep) {
          Rep[Y] = C;
          Via[Y] = E;
          Queue.push_back(Y);
        } else if (Via[Y] != E) {
          return false;
        }
      }
    }
  }
  return true;
}
} // namespace

ir::LinkId SymmetryGroup::linkBetween(unsigned Src, unsigned Dst) const {
  auto Begin = OutDst.begin() + OutStart[Src],
       End = OutDst.begin() + OutStart[Src + 1];
  auto It = std::lower_bound(Begin, End, Dst);
  if (It == End || *It != Dst)
    reportInternalError("a product of automorphisms is not one");
  return ir::LinkId(OutLink[size_t(It - OutDst.begin())]);
}

std::vector<unsigned> SymmetryGroup::linkOrbits() const {
  const unsigned NoOrbit = ~0u;
  std::vector<unsigned> Lowest(LinkSrc.size(), NoOrbit);
  std::vector<unsigned> Queue;
  // Breadth-first along the generators from each link not yet reached,
  // in increasing order: the first link of an orbit is its lowest.
  for (unsigned L = 0; L < Lowest.size(); ++L) {
    if (Lowest[L] != NoOrbit)
      continue;
    Lowest[L] = L;
    Queue.assign(1, L);
    for (size_t Head = 0; Head < Queue.size(); ++Head)
      for (unsigned G : Generators) {
        unsigned Image = link(G, ir::LinkId(Queue[Head])).index();
        if (Lowest[Image] == NoOrbit) {
          Lowest[Image] = L;
          Queue.push_back(Image);
        }
      }
  }
  return Lowest;
}

SymmetryGroup SymmetryGroup::trivial(const Sketch &S) {
  SymmetryGroup G;
  const Topology &Topo = S.Topo;
  Perm Ranks(Topo.getNumRanks()), Chunks(S.Coll.getNumChunks());
  for (unsigned I = 0; I < Ranks.size(); ++I)
    Ranks[I] = I;
  for (unsigned I = 0; I < Chunks.size(); ++I)
    Chunks[I] = I;
  G.RankPerm = {Ranks};
  G.Inverse = {0};
  // The links out of each rank, by destination.
  std::vector<std::vector<std::pair<unsigned, unsigned>>> Out(Ranks.size());
  for (unsigned L = 0; L < Topo.links().size(); ++L) {
    const Link &Lk = Topo.link(LinkId(L));
    G.LinkSrc.push_back(Lk.Src.index());
    G.LinkDst.push_back(Lk.Dst.index());
    Out[Lk.Src.index()].push_back({Lk.Dst.index(), L});
  }
  G.OutStart.push_back(0);
  for (auto &Links : Out) {
    std::sort(Links.begin(), Links.end());
    for (auto [Dst, L] : Links) {
      G.OutDst.push_back(Dst);
      G.OutLink.push_back(L);
    }
    G.OutStart.push_back(unsigned(G.OutDst.size()));
  }
  G.Rep = Chunks;
  G.Via.assign(Chunks.size(), 0);
  G.NumOrbits = Chunks.size();
  return G;
}

std::optional<SymmetryGroup>
tacclc::tryBuildSymmetryGroup(const Sketch &S, std::string &Why,
                              const Symmetry *&Culprit) {
  SymmetryGroup G = SymmetryGroup::trivial(S);
  if (S.Symmetries.empty())
    return G;
  Culprit = &S.Symmetries.front();
  const ChunkIndex Index(S.Coll, S.Topo.getNumRanks(), bySource(S));
  for (const Symmetry &Sym : S.Symmetries)
    if (auto Problem = checkGenerator(S, Index, Sym)) {
      Culprit = &Sym;
      Why = *Problem;
      return std::nullopt;
    }
  std::vector<unsigned> Times;
  if (auto Problem = closeGroup(S, G.RankPerm, G.Inverse, Times)) {
    Why = *Problem;
    return std::nullopt;
  }
  // The identity times each generator.
  G.Generators.assign(Times.begin(), Times.begin() + S.Symmetries.size());
  PhaseScope Phase("mapping links and chunks under the symmetry group");
  std::vector<Perm> Gens;
  for (const Symmetry &Sym : S.Symmetries) {
    unsigned Missing = 0;
    auto Chunks = Index.chunkPermutation(S.Coll, Sym.Perm, Missing);
    if (!Chunks)
      reportInternalError("a checked symmetry does not map chunks");
    Gens.push_back(std::move(*Chunks));
  }
  if (!computeOrbits(Gens, Times, G.Rep, G.Via, G.NumOrbits)) {
    Why = whyNotFree(S, Index, G.RankPerm);
    return std::nullopt;
  }
  return G;
}

SymmetryGroup tacclc::buildSymmetryGroup(const Sketch &S,
                                         DiagnosticEngine &Diags) {
  std::string Why;
  const Symmetry *Culprit = nullptr;
  if (auto G = tryBuildSymmetryGroup(S, Why, Culprit))
    return std::move(*G);
  Diags.report(DiagId::SymmetryUnused, Culprit->Loc, Culprit->Description, Why);
  return SymmetryGroup::trivial(S);
}
