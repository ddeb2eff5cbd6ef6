//===- ir/Sketch.h - A resolved communication sketch ------------*- C++ -*-===//
//
// What Sema produces from the AST and every later stage consumes: the
// topology, the collective and the sketch's choices, with all names resolved
// and all units converted. Source locations are kept only where a later stage
// may need to point a diagnostic at the sketch.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_SKETCH_H
#define TACCLC_IR_SKETCH_H

#include "ir/Collective.h"
#include "ir/Topology.h"

#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tacclc::ir {

/// A permutation of ranks the designer asserts maps the logical topology
/// onto itself (checked by Sema).
struct Symmetry {
  std::string Description;    ///< As written, e.g. "rotate gpus by 2".
  std::vector<unsigned> Perm; ///< Rank r maps to Perm[r].
  llvm::SMRange Loc;          ///< The form in the sketch.
};

/// The machine a sketch is on, as its `on` clause (or its `from` chain's
/// root) names it: what `tacclc sim --topology` needs to build it again.
struct MachineUse {
  /// The name of the machine or topology declaration.
  std::string Name;
  /// The arguments given, by parameter name, evaluated, in the order of
  /// the parameters (parameters left to their defaults are not listed).
  std::vector<std::pair<std::string, int64_t>> Args;
  /// The declaration's name: its buffer is the file that declares it.
  llvm::SMRange DeclLoc;
};

/// One part of a sketch's size range and the protocol written for it.
struct ProtocolRange {
  std::string Protocol;
  /// The part ends below this size, in bytes; 0 on the last part (it takes
  /// every larger size).
  uint64_t BelowBytes = 0;
  llvm::SMRange Loc; ///< The choice in the sketch.
};

/// One phase of a sketch solved in phases: which links it uses.
struct Phase {
  enum Scope { WithinNodes, AcrossNodes };
  Scope Where = WithinNodes;
  llvm::SMRange Loc; ///< The `phase` item.
};

/// A fully resolved sketch.
struct Sketch {
  std::string Name;
  Topology Topo;
  /// The machine the sketch is on (unset for sketches built by hand).
  MachineUse On;
  Collective Coll;
  /// Buffer size the algorithm is built for, in bytes, counted as
  /// nccl-tests counts it (the whole gathered buffer for allgather).
  uint64_t SizeBytes = 0;
  /// MSCCL protocol of the generated program: Simple, LL or LL128.
  std::string Protocol = "Simple";
  /// `protocol auto`: the compiler picks the protocol (Protocol is then the
  /// one the stages assume until the program is simulated under each).
  bool ProtocolAuto = false;
  /// `protocol LL below 64 KiB, ..., Simple`: one protocol per part of the
  /// size range, smallest sizes first; empty when one protocol (or auto)
  /// serves every size. Protocol is then the one of the design point.
  std::vector<ProtocolRange> ProtocolRanges;
  /// Solver settings from the sketch (the command line overrides them).
  std::optional<double> TimeLimitSeconds, RelativeGap;
  /// Generators of the sketch's symmetry group, each an automorphism.
  std::vector<Symmetry> Symmetries;
  /// `size LO .. HI`: the input sizes the program is meant for (written to
  /// the XML's minBytes/maxBytes); both 0 without a range. SizeBytes is
  /// then the design point inside the range.
  uint64_t MinBytes = 0, MaxBytes = 0;
  /// Parallel instances of the program (`instances N`).
  unsigned Instances = 1;
  /// Link classes on which consecutive chunks may be sent as one transfer
  /// (`contiguous CLASS, ...`), indexed like Topo.classes().
  std::vector<bool> ContiguousClasses;
  /// Inter-node relay rules: Carries[s][g] says local GPU s may send the
  /// chunks of local GPU g to another node. Empty: any sender may.
  std::vector<std::vector<bool>> Carries;
  /// A sender puts its own chunks on a link to another node before the
  /// chunks it relays for other GPUs (`sender first`).
  bool SenderFirst = false;
  /// Every rank must reduce each element in the same order, so that all
  /// get bitwise-identical results (`identical results`); the verifier
  /// enforces it.
  bool IdenticalResults = false;

  /// The topology is the designer's turned around, to be run backwards (a
  /// reduction built from its dual, passes/ReduceSchedule.h): relay rules
  /// then bind the receiving end of a link, which sends once reversed.
  bool Transposed = false;

  /// `phase within nodes`, `phase across nodes`: the phases the sketch is
  /// solved in, in order (passes/Phases.h); empty: one solve of the whole.
  std::vector<Phase> Phases;
  /// In the sketch of one phase: the links it may use (indexed like
  /// Topo.links()); empty: every link.
  std::vector<bool> PhaseLinks;

  /// True if chunk \p C may cross link \p L under the relay rules (and,
  /// in one phase's sketch, the phase's links).
  bool mayCarry(ChunkId C, LinkId L) const {
    if (!PhaseLinks.empty() && !PhaseLinks[L.index()])
      return false;
    if (Carries.empty())
      return true;
    const Link &Ln = Topo.link(L);
    if (Topo.nodeOf(Ln.Src) == Topo.nodeOf(Ln.Dst))
      return true;
    unsigned G = Topo.getGpusPerNode();
    RankId Carrier = Transposed ? Ln.Dst : Ln.Src;
    return Carries[Carrier.index() % G][Coll.chunk(C).Source.index() % G];
  }
  llvm::SMRange Loc; ///< The sketch's name.
  /// The relay, exclude and sender items (first to last), where the
  /// sketch has any: what decides the links between nodes.
  llvm::SMRange RelayLoc;
  llvm::SMRange CollectiveLoc; ///< The `collective` item.

  /// Bytes of one chunk at SizeBytes.
  double chunkBytes() const { return Coll.chunkBytes(double(SizeBytes)); }
};

} // namespace tacclc::ir

#endif // TACCLC_IR_SKETCH_H
