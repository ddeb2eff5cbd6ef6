//===- ir/Automorphisms.h - The symmetry group of a machine -----*- C++ -*-===//
//
// `symmetry auto` and `tacclc tune` find a sketch's symmetries instead of
// asking the designer for them. The machine becomes a coloured directed
// graph: a vertex per rank, per NIC and per group of a switch; each link a
// vertex of its own between its ends, coloured by its class, costs,
// multiplicity and switch, so that an automorphism maps every link onto a
// link that costs the same; NICs coloured by their class, each switch's
// groups by the switch. The bliss library (Junttila and Kaski, "Engineering
// an efficient canonical labeling tool for large and sparse graphs",
// ALENEX 2007) computes the generators and order of its automorphism group.
// A sketch's rules restrict the group further: ranks of different colours
// (a rooted collective's root) never map onto each other, and relay rules,
// which speak of local GPU indices, are kept by permutations that move
// every node's local GPUs alike and preserve the rule between them.
//
// The synthesis needs a group that moves every chunk (passes/Symmetry.h);
// for the collectives without a root that is a semiregular group: no
// element but the identity fixes a rank. chooseFreeSubgroup() picks a
// large one, deterministically, from rotations of nodes and GPUs and from
// the elements bliss's generators give.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_AUTOMORPHISMS_H
#define TACCLC_IR_AUTOMORPHISMS_H

#include "ir/Topology.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace tacclc::ir {

/// What a permutation of the ranks must keep besides the machine.
struct SymmetryRules {
  /// A colour per rank (empty: all alike); ranks map only onto ranks of
  /// their colour.
  std::vector<unsigned> RankColour;
  /// Relay rules on local GPU indices (ir::Sketch::Carries); empty: none.
  std::vector<std::vector<bool>> Carries;
};

/// The automorphism group of a machine under some rules.
struct AutomorphismGroup {
  /// Generators, as permutations of the ranks (rank r maps to P[r]).
  std::vector<std::vector<unsigned>> Generators;
  /// The group's order, in decimal (exact).
  std::string Order;
  /// The orbits of the ranks, each ascending, by their lowest rank.
  std::vector<std::vector<unsigned>> Orbits;
};

/// The automorphism group of \p T under \p Rules, computed with bliss.
AutomorphismGroup automorphisms(const Topology &T, const SymmetryRules &Rules);

/// True if \p Perm is an automorphism of \p T that keeps \p Rules: every
/// link maps to a link of the same class, costs, multiplicity and switch,
/// NICs onto NICs of their class, a switch's groups onto its groups, rank
/// colours and relay rules kept.
bool preserves(const Topology &T, const SymmetryRules &Rules,
               llvm::ArrayRef<unsigned> Perm);

/// The orbits of the ranks under the group \p Gens generate, each ascending,
/// by their lowest rank.
std::vector<std::vector<unsigned>>
rankOrbits(llvm::ArrayRef<std::vector<unsigned>> Gens, unsigned Ranks);

/// The rotations by one of a machine's nodes and of every node's GPUs,
/// each kept only where it is an automorphism of the machine (empty
/// otherwise). They generate a subgroup, so the orbits of its ranks lie
/// within the full group's; cheap where bliss is not: a machine of many
/// alike nodes has a group of factorial order, whose search takes bliss
/// minutes at 512 GPUs.
struct MachineRotations {
  std::vector<unsigned> Nodes, Gpus;
  /// The orbits of the ranks under both (rankOrbits()).
  std::vector<std::vector<unsigned>> orbits() const;
};
MachineRotations machineRotations(const Topology &T);

/// A semiregular subgroup (no element but the identity fixes a rank).
struct FreeSubgroup {
  /// Generators, each with the form a sketch would write for it:
  /// `rotate nodes by 1`, `rotate gpus by 2`, else `map [...]`.
  std::vector<std::vector<unsigned>> Generators;
  std::vector<std::string> Descriptions;
  /// The subgroup's order (at most the number of ranks).
  unsigned Order = 1;
};

/// A large semiregular subgroup of \p G (the automorphisms of \p T under
/// \p Rules): rotations of the nodes and of every node's GPUs first, then
/// bliss's generators and their products, each added when the group it
/// makes with those before stays semiregular. Deterministic.
FreeSubgroup chooseFreeSubgroup(const Topology &T, const SymmetryRules &Rules,
                                const AutomorphismGroup &G);

/// `rotate nodes by K`, `rotate gpus by K` or `map [p0, p1, ...]`: the
/// form that writes \p Perm on \p T.
std::string describePermutation(const Topology &T,
                                llvm::ArrayRef<unsigned> Perm);

} // namespace tacclc::ir

#endif // TACCLC_IR_AUTOMORPHISMS_H
