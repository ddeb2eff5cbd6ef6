//===- ir/Topology.h - Ranks and directed links with costs ------*- C++ -*-===//
//
// The resolved topology a sketch runs on: ranks and directed links, each with
// an alpha-beta cost (time = alpha + beta * bytes). Costs are stored in
// microseconds and microseconds per byte so that no stage converts units.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_TOPOLOGY_H
#define TACCLC_IR_TOPOLOGY_H

#include "ir/Ids.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tacclc::ir {

/// A kind of link (NVLink, PCIe, InfiniBand, ...) and its default cost.
/// Costs of a link class measured at one message size.
struct CostPoint {
  double Bytes = 0;
  double AlphaUs = 0;
  double BetaUsPerB = 0;
};

struct LinkClass {
  std::string Name;
  double AlphaUs = 0;
  double BetaUsPerB = 0;
  /// Costs measured at several message sizes, ascending by size; empty when
  /// the class has one size-independent alpha and beta.
  std::vector<CostPoint> Profile;

  /// Alpha and beta for messages of \p Bytes: the class's costs, or the
  /// profile interpolated linearly in log(size) between the two nearest
  /// measurements (clamped to the first and last outside them).
  CostPoint costsAt(double Bytes) const;
};

/// How the synthesizer treats a switch hyperedge (TACCL's
/// switch_hyperedge_strategy).
enum class SwitchPolicy {
  Free,  ///< No preference: routing minimises time only.
  UcMin, ///< Prefer few distinct GPU pairs through the switch.
  UcMax, ///< Prefer many distinct GPU pairs through the switch.
};
llvm::StringRef switchPolicyName(SwitchPolicy P);

/// A switch hyperedge: every GPU in a group reaches every other through the
/// switch, and each GPU's port into and out of the switch is one shared
/// resource. A per-node switch has one group per node.
struct Switch {
  std::string Name;
  int Class = -1;
  std::vector<std::vector<RankId>> Groups;
  SwitchPolicy Policy = SwitchPolicy::Free;
};

/// A network interface shared by some GPUs of one node; every transfer that
/// leaves (enters) the node from (to) one of them uses its send (receive)
/// side.
struct Nic {
  int Class = -1;
  std::vector<RankId> Ranks;
};

/// Links whose transfers serialise on one port (a switch port or a NIC
/// side), so their total load bounds the run time like a link's does.
struct Resource {
  std::string Name;
  std::vector<LinkId> Links;
  /// True for the side data leaves by (a switch port out of a GPU, a NIC's
  /// send side), false for the side it enters by.
  bool Egress = true;
  /// The physical port: the two sides of one switch port or NIC share it.
  unsigned Port = 0;
  /// A NIC's side (else a switch port's).
  bool Nic = false;
};

/// A directed link Src -> Dst.
struct Link {
  RankId Src, Dst;
  double AlphaUs = 0;        ///< Latency per transfer, microseconds.
  double BetaUsPerB = 0;     ///< Inverse bandwidth, microseconds per byte.
  int Class = -1;            ///< Index into Topology::classes(), or -1.
  unsigned Multiplicity = 1; ///< Parallel physical links (`x2`).
  int Switch = -1;           ///< The switch the link goes through, or -1.

  /// Time to move \p Bytes over this link alone.
  double costUs(double Bytes) const { return AlphaUs + BetaUsPerB * Bytes; }
};

/// Ranks 0..N-1 and the directed links between them.
class Topology {
public:
  Topology() = default;
  Topology(std::string Name, unsigned NumRanks)
      : Name(std::move(Name)), NumRanks(NumRanks), GpusPerNode(NumRanks),
        Out(NumRanks), In(NumRanks) {}
  /// A machine of \p NumNodes nodes with \p GpusPerNode GPUs each; rank
  /// r is GPU r % GpusPerNode of node r / GpusPerNode.
  Topology(std::string Name, unsigned NumNodes, unsigned GpusPerNode)
      : Topology(std::move(Name), NumNodes * GpusPerNode) {
    this->NumNodes = NumNodes;
    this->GpusPerNode = GpusPerNode;
  }

  /// Adds a link class; returns its index.
  int addClass(LinkClass C) {
    Classes.push_back(std::move(C));
    return static_cast<int>(Classes.size()) - 1;
  }
  llvm::ArrayRef<LinkClass> classes() const { return Classes; }
  unsigned getNumNodes() const { return NumNodes; }
  unsigned getGpusPerNode() const { return GpusPerNode; }
  /// The node rank \p R belongs to.
  unsigned nodeOf(RankId R) const { return R.index() / GpusPerNode; }

  /// Adds a link; the caller has checked ranks and duplicates.
  LinkId addLink(const Link &L);

  llvm::StringRef getName() const { return Name; }
  unsigned getNumRanks() const { return NumRanks; }
  llvm::ArrayRef<Link> links() const { return Links; }
  const Link &link(LinkId Id) const { return Links[Id.index()]; }
  /// Links leaving \p R, in declaration order.
  llvm::ArrayRef<LinkId> outLinks(RankId R) const { return Out[R.index()]; }
  /// Links entering \p R, in declaration order.
  llvm::ArrayRef<LinkId> inLinks(RankId R) const { return In[R.index()]; }
  /// The link Src -> Dst if there is one.
  std::optional<LinkId> findLink(RankId Src, RankId Dst) const;

  /// Adds a switch; returns its index.
  int addSwitch(Switch S) {
    Switches.push_back(std::move(S));
    return static_cast<int>(Switches.size()) - 1;
  }
  llvm::ArrayRef<Switch> switches() const { return Switches; }
  Switch &switchAt(size_t I) { return Switches[I]; }
  /// Adds a NIC shared by its ranks; returns its index.
  int addNic(Nic N);
  llvm::ArrayRef<Nic> nics() const { return Nics; }
  /// The NIC rank \p R uses, or -1.
  int nicOf(RankId R) const { return NicOf.empty() ? -1 : NicOf[R.index()]; }
  /// The shared ports: both directions of every switch port and NIC that
  /// carries at least two links, in a fixed order.
  std::vector<Resource> resources() const;
  /// Sets every classed link's alpha and beta to its class's costs at
  /// \p Bytes (used once the chunk size is known).
  void applyCostsAt(double Bytes);

  /// The same machine with every link turned around: link i of the result
  /// is link i of this topology from Dst to Src, with the same costs,
  /// class, multiplicity and switch.
  Topology transposed() const;
  /// True when every link Src -> Dst has a link Dst -> Src with the same
  /// costs, class, multiplicity and switch (transposed() is then the same
  /// machine up to link numbering).
  bool isSymmetric() const;

  /// Cheapest time from \p From to every rank when one message of \p Bytes
  /// travels alone (Dijkstra; +infinity where unreachable).
  std::vector<double> distancesFrom(RankId From, double Bytes) const;
  /// Cheapest sum of \p Weight over the links of a path from \p From to
  /// every rank (Dijkstra; +infinity where unreachable). Weights must not
  /// be negative.
  std::vector<double>
  distancesFrom(RankId From,
                llvm::function_ref<double(const Link &)> Weight) const;

private:
  std::string Name;
  unsigned NumRanks = 0;
  unsigned NumNodes = 1, GpusPerNode = 0;
  std::vector<LinkClass> Classes;
  std::vector<Link> Links;
  std::vector<Switch> Switches;
  std::vector<Nic> Nics;
  std::vector<int> NicOf;
  /// (Src * NumRanks + Dst) -> link index, for findLink.
  std::unordered_map<uint64_t, uint32_t> LinkIndex;
  std::vector<std::vector<LinkId>> Out, In;
};

} // namespace tacclc::ir

#endif // TACCLC_IR_TOPOLOGY_H
