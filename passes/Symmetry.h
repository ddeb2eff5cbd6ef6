//===- passes/Symmetry.h - The sketch's symmetry group ----------*- C++ -*-===//
//
// A sketch's `symmetry` item names generators: permutations of the ranks that
// Sema has proved to be automorphisms of the machine. This pass closes them
// into a group and checks that the group also acts on the rest of the
// synthesis problem: it maps every chunk of the collective to a chunk, keeps
// the relay rules and switch policies, and moves every chunk (a free action).
// The routing model then needs variables and per-chunk rows only for one
// representative chunk per orbit; every other chunk's route is the image of
// its representative's (passes/RoutingModel.h).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_SYMMETRY_H
#define TACCLC_PASSES_SYMMETRY_H

#include "ir/Sketch.h"
#include "support/Diagnostics.h"

#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// A finite group of automorphisms of a sketch, acting on ranks, links and
/// chunks. Element 0 is the identity. Every chunk is the image of exactly one
/// representative under exactly one element.
class SymmetryGroup {
public:
  /// The trivial group of \p S (no reduction).
  static SymmetryGroup trivial(const ir::Sketch &S);

  /// Number of elements.
  unsigned size() const { return RankPerm.size(); }
  /// True for the group of the identity alone.
  bool isTrivial() const { return size() <= 1; }

  /// Image of rank \p R under element \p G.
  ir::RankId rank(unsigned G, ir::RankId R) const {
    return ir::RankId(RankPerm[G][R.index()]);
  }
  /// Image of link \p L under element \p G.
  ir::LinkId link(unsigned G, ir::LinkId L) const {
    if (G == 0)
      return L;
    return linkBetween(RankPerm[G][LinkSrc[L.index()]],
                       RankPerm[G][LinkDst[L.index()]]);
  }
  /// The representative of \p C's orbit (the orbit's lowest chunk).
  ir::ChunkId representative(ir::ChunkId C) const {
    return ir::ChunkId(Rep[C.index()]);
  }
  /// True if \p C represents its orbit.
  bool isRepresentative(ir::ChunkId C) const {
    return Rep[C.index()] == C.index();
  }
  /// The link that \p C's representative uses where \p C uses \p L: the
  /// preimage of \p L under the element mapping the representative to C.
  ir::LinkId representativeLink(ir::ChunkId C, ir::LinkId L) const {
    return link(Inverse[Via[C.index()]], L);
  }
  /// The rank of \p C's representative that stands where \p C has rank
  /// \p R: its preimage under the element mapping the representative to C.
  ir::RankId representativeRank(ir::ChunkId C, ir::RankId R) const {
    return rank(Inverse[Via[C.index()]], R);
  }
  /// Per link, the lowest link of its orbit under the group (a link's
  /// orbit holds size() / |its stabiliser| links). Costs the links times
  /// the generators, not the links times the elements.
  std::vector<unsigned> linkOrbits() const;

  /// The element that maps \p C's representative to \p C.
  unsigned via(ir::ChunkId C) const { return Via[C.index()]; }
  /// Number of chunk orbits.
  unsigned numOrbits() const { return NumOrbits; }

private:
  friend std::optional<SymmetryGroup>
  tryBuildSymmetryGroup(const ir::Sketch &, std::string &,
                        const ir::Symmetry *&);
  /// The link from rank \p Src to rank \p Dst (one exists: elements are
  /// automorphisms).
  ir::LinkId linkBetween(unsigned Src, unsigned Dst) const;

  // Per element, the images of ranks. Links are mapped through their ends
  // (a machine has one link per ordered pair of ranks) and chunks through
  // their representatives (Rep, Via), so that the group needs no table of
  // elements by links or by chunks: at 1,024 GPUs either would be
  // gigabytes.
  std::vector<std::vector<unsigned>> RankPerm;
  /// Per element, its inverse's number; the generators' numbers.
  std::vector<unsigned> Inverse, Generators;
  /// Per link, its ends; per rank, the links out of it (OutStart[r] ..
  /// OutStart[r+1] in OutDst and OutLink), by destination.
  std::vector<unsigned> LinkSrc, LinkDst, OutStart, OutDst, OutLink;
  /// Per chunk, its orbit's representative and the element that maps
  /// the representative to it.
  std::vector<unsigned> Rep, Via;
  unsigned NumOrbits = 0;
};

/// Closes the sketch's symmetries into a group and checks that it acts on
/// the synthesis problem. When it does not (a symmetry moves a rooted
/// collective's root, breaks a relay rule or a switch policy, or fixes some
/// chunk), warns at the `symmetry` item and returns the trivial group: the
/// sketch is still compiled, only without the reduction.
SymmetryGroup buildSymmetryGroup(const ir::Sketch &S, DiagnosticEngine &Diags);

/// buildSymmetryGroup() without a diagnostic: nothing when the group does
/// not act, with why in \p Why and the symmetry to blame in \p Culprit.
std::optional<SymmetryGroup>
tryBuildSymmetryGroup(const ir::Sketch &S, std::string &Why,
                      const ir::Symmetry *&Culprit);

} // namespace tacclc

#endif // TACCLC_PASSES_SYMMETRY_H
