//===- passes/Symmetry.cpp - Close and check the symmetry group -----------===//
//
// Algorithm:
//   1. close the generators under composition, breadth-first from the
//      identity in the sketch's order (deterministic element numbering);
//   2. per element, map links (Src, Dst) -> (pi Src, pi Dst), and chunks by
//      their (pre, post) rank sets: chunks with equal sets are told apart
//      by their order, which every collective keeps under a permutation of
//      ranks (the j-th chunk of a part maps to the j-th chunk of the image);
//   3. check each generator against the relay rules (Sketch::mayCarry) and
//      the switch policies, and the group for a free action on chunks: an
//      element other than the identity that fixes a chunk would force that
//      chunk's tree to be invariant, which a tree that receives once per
//      rank usually cannot be;
//   4. orbits: the lowest chunk of each orbit is its representative.
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

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Larger groups are not used; TACCL's sketches have at most 16 elements.
constexpr size_t MaxGroupSize = 4096;

using Perm = std::vector<unsigned>;

/// (sorted pre, sorted post): how a chunk is identified up to its order.
using ChunkKey = std::pair<Perm, Perm>;

Perm sortedImage(llvm::ArrayRef<RankId> Ranks, const Perm &P) {
  Perm Out;
  for (RankId R : Ranks)
    Out.push_back(P[R.index()]);
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// The chunk permutation of rank permutation \p P, or nothing when some
/// chunk has no image (\p Missing is then set to it).
std::optional<Perm>
chunkPermutation(const Collective &Coll,
                 const std::map<ChunkKey, std::vector<unsigned>> &ByKey,
                 const Perm &P, unsigned &Missing) {
  Perm Out(Coll.getNumChunks());
  for (const auto &[Key, Chunks] : ByKey) {
    const Chunk &First = Coll.chunk(ChunkId(Chunks.front()));
    auto It =
        ByKey.find({sortedImage(First.Pre, P), sortedImage(First.Post, P)});
    if (It == ByKey.end() || It->second.size() != Chunks.size()) {
      Missing = Chunks.front();
      return std::nullopt;
    }
    for (size_t J = 0; J < Chunks.size(); ++J)
      Out[Chunks[J]] = It->second[J];
  }
  return Out;
}

std::string chunkText(const Sketch &S, unsigned C) {
  const Chunk &Ch = S.Coll.chunk(ChunkId(C));
  return fmt::format("chunk {} (input chunk {} of rank {})", C, Ch.InputIndex,
                     Ch.Source.index());
}
} // namespace

SymmetryGroup SymmetryGroup::trivial(const Sketch &S) {
  SymmetryGroup G;
  Perm Ranks(S.Topo.getNumRanks()), Links(S.Topo.links().size()),
      Chunks(S.Coll.getNumChunks());
  for (unsigned I = 0; I < Ranks.size(); ++I)
    Ranks[I] = I;
  for (unsigned I = 0; I < Links.size(); ++I)
    Links[I] = I;
  for (unsigned I = 0; I < Chunks.size(); ++I)
    Chunks[I] = I;
  G.RankPerm = {Ranks};
  G.LinkPerm = {Links};
  G.InvLinkPerm = {Links};
  G.ChunkPerm = {Chunks};
  G.Rep = Chunks;
  G.Via.assign(Chunks.size(), 0);
  G.NumOrbits = Chunks.size();
  return G;
}

SymmetryGroup tacclc::buildSymmetryGroup(const Sketch &S,
                                         DiagnosticEngine &Diags) {
  SymmetryGroup G = SymmetryGroup::trivial(S);
  if (S.Symmetries.empty())
    return G;
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  const Symmetry &First = S.Symmetries.front();
  auto Unused = [&](const Symmetry &Sym, const std::string &Why) {
    Diags.report(DiagId::SymmetryUnused, Sym.Loc, Sym.Description, Why);
    return SymmetryGroup::trivial(S);
  };

  std::map<ChunkKey, std::vector<unsigned>> ByKey;
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    const Chunk &Ch = Coll.chunk(ChunkId(C));
    ByKey[{sortedImage(Ch.Pre, G.RankPerm[0]),
           sortedImage(Ch.Post, G.RankPerm[0])}]
        .push_back(C);
  }

  // 3a. Generators: chunks, relay rules and switch policies.
  auto LinkImage = [&](const Perm &P, const Link &L) {
    return Topo.findLink(RankId(P[L.Src.index()]), RankId(P[L.Dst.index()]));
  };
  for (const Symmetry &Sym : S.Symmetries) {
    unsigned Missing = 0;
    auto Chunks = chunkPermutation(Coll, ByKey, Sym.Perm, Missing);
    if (!Chunks)
      return Unused(Sym, fmt::format("it maps {} onto no chunk of the {}",
                                     chunkText(S, Missing),
                                     collectiveName(Coll.getKind()).str()));
    for (unsigned L = 0; L < Topo.links().size(); ++L) {
      const Link &Lk = Topo.link(LinkId(L));
      auto Image = LinkImage(Sym.Perm, Lk);
      if (!Image)
        return Unused(Sym, fmt::format("link {} -> {} has no image",
                                       Lk.Src.index(), Lk.Dst.index()));
      const Link &Im = Topo.link(*Image);
      if ((Lk.Switch >= 0) != (Im.Switch >= 0) ||
          (Lk.Switch >= 0 && Topo.switches()[Lk.Switch].Policy !=
                                 Topo.switches()[Im.Switch].Policy))
        return Unused(Sym, fmt::format("it maps link {} -> {} onto a link "
                                       "with another switch policy",
                                       Lk.Src.index(), Lk.Dst.index()));
      if (Topo.nodeOf(Lk.Src) == Topo.nodeOf(Lk.Dst) || S.Carries.empty())
        continue;
      for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
        if (S.mayCarry(ChunkId(C), LinkId(L)) !=
            S.mayCarry(ChunkId((*Chunks)[C]), *Image))
          return Unused(
              Sym,
              fmt::format("the relay rules let link {} -> {} carry {} "
                          "but not its image, or the other way round",
                          Lk.Src.index(), Lk.Dst.index(), chunkText(S, C)));
    }
  }

  // 1. Closure, breadth-first from the identity.
  std::map<Perm, unsigned> Index;
  Index[G.RankPerm[0]] = 0;
  for (size_t E = 0; E < G.RankPerm.size(); ++E)
    for (const Symmetry &Sym : S.Symmetries) {
      Perm Next(Topo.getNumRanks());
      for (unsigned R = 0; R < Next.size(); ++R)
        Next[R] = Sym.Perm[G.RankPerm[E][R]];
      if (Index.count(Next))
        continue;
      if (G.RankPerm.size() == MaxGroupSize)
        return Unused(First, fmt::format("the symmetries generate more than "
                                         "{} permutations",
                                         MaxGroupSize));
      Index[Next] = G.RankPerm.size();
      G.RankPerm.push_back(std::move(Next));
    }

  // 2. Links and chunks per element.
  PhaseScope Phase("mapping links and chunks under the symmetry group");
  G.LinkPerm.resize(G.size());
  G.InvLinkPerm.resize(G.size());
  G.ChunkPerm.resize(G.size());
  for (unsigned E = 1; E < G.size(); ++E) {
    checkDeadline();
    const Perm &P = G.RankPerm[E];
    Perm &Links = G.LinkPerm[E];
    Links.resize(Topo.links().size());
    G.InvLinkPerm[E].resize(Links.size());
    for (unsigned L = 0; L < Links.size(); ++L) {
      auto Image = LinkImage(P, Topo.link(LinkId(L)));
      if (!Image)
        reportInternalError("a product of automorphisms is not one");
      Links[L] = Image->index();
      G.InvLinkPerm[E][Image->index()] = L;
    }
    unsigned Missing = 0;
    auto Chunks = chunkPermutation(Coll, ByKey, P, Missing);
    if (!Chunks)
      reportInternalError("a product of chunk symmetries is not one");
    // 3b. A free action: no element but the identity fixes a chunk.
    for (unsigned C = 0; C < Chunks->size(); ++C)
      if ((*Chunks)[C] == C)
        return Unused(
            First,
            fmt::format("{}the group fixes {} but moves ranks, so its tree "
                        "cannot be symmetric",
                        S.Symmetries.size() > 1 ? "with the other symmetries, "
                                                : "",
                        chunkText(S, C)));
    G.ChunkPerm[E] = std::move(*Chunks);
  }

  // 4. Orbits.
  const unsigned NoRep = ~0u;
  G.Rep.assign(Coll.getNumChunks(), NoRep);
  G.NumOrbits = 0;
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    if (G.Rep[C] != NoRep)
      continue;
    ++G.NumOrbits;
    for (unsigned E = 0; E < G.size(); ++E) {
      unsigned Image = G.ChunkPerm[E][C];
      G.Rep[Image] = C;
      G.Via[Image] = E;
    }
  }
  return G;
}
