//===- tune/Candidates.h - Sketches tune tries on a machine -----*- C++ -*-===//
//
// `tacclc tune` writes the sketches a designer would try on a machine, so
// that nobody has to: for each collective and each band of the size sweep,
// one sketch per family that makes sense on the machine's shape. Between
// nodes: GPU g to GPU g of every other node (`relay direct`), with one or
// two chunks; every GPU to every GPU (`relay all`, small sizes, where each
// chunk should cross the network once); rails (each GPU carries only its
// own chunks across); one relay per NIC where GPUs share a NIC (`relay
// each`, TACCL's NDv2 sketch); the same in two phases, across the nodes
// first, then within them; chunks that may share one message on the NIC
// links (`contiguous`, small sizes); a switch that prefers few GPU pairs
// (`uc-min`). Inside one node: the plain sketch, two chunks, and the switch
// policies. Every sketch lets the compiler pick the protocol per part of
// its band (`protocol auto`) and find the machine's symmetry
// (`symmetry auto`).
//
// The bands: sizes below 64 KiB (latency), 64 KiB to 16 MiB, and above
// 16 MiB (bandwidth), each compiled for the geometric mean of its ends as
// any sketch with a size range is.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TUNE_CANDIDATES_H
#define TACCLC_TUNE_CANDIDATES_H

#include "ir/Topology.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tacclc::tune {

/// What candidate generation needs to know about a machine.
struct MachineFacts {
  /// The module the sketches import (`topologies/ndv2`).
  std::string Import;
  /// The machine with its arguments, as a sketch's `on` names it
  /// (`ndv2(nodes: 2)`).
  std::string Call;
  unsigned Nodes = 1, GpusPerNode = 1;
  /// Names of the switches.
  std::vector<std::string> Switches;
  /// The local GPUs behind each NIC of node 0.
  std::vector<std::vector<unsigned>> NicGpus;
  /// The link class of the NICs, or empty without NICs.
  std::string NicClass;
};

/// The facts of \p T, imported from \p Import and named \p Call.
MachineFacts describeMachine(const ir::Topology &T, std::string Import,
                             std::string Call);

/// A band of the size sweep, both ends included.
struct SizeBand {
  std::string Name; ///< "small", "medium" or "large".
  std::uint64_t Lo = 0, Hi = 0;
};

/// The bands of the sweep from \p Lo to \p Hi: split at 64 KiB and at
/// 16 MiB where these lie inside it.
std::vector<SizeBand> sizeBands(std::uint64_t Lo, std::uint64_t Hi);

/// One generated sketch.
struct Candidate {
  /// The sketch's name, unique within a tune: collective, band, family.
  std::string Name;
  std::string Collective;
  std::string Band;
  /// The family, as the report names it: "relay direct, 2 chunks".
  std::string Family;
  /// The whole .sketch file.
  std::string Text;
};

/// The collectives tune synthesises: those without a root.
bool tunableCollective(llvm::StringRef Collective);

/// The candidates for \p Collective on \p M, band by band, families in a
/// fixed order.
std::vector<Candidate> generateCandidates(const MachineFacts &M,
                                          llvm::StringRef Collective,
                                          llvm::ArrayRef<SizeBand> Bands);

} // namespace tacclc::tune

#endif // TACCLC_TUNE_CANDIDATES_H
