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
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc::ir {

/// A kind of link (NVLink, PCIe, InfiniBand, ...) and its default cost.
struct LinkClass {
  std::string Name;
  double AlphaUs = 0;
  double BetaUsPerB = 0;
};

/// A directed link Src -> Dst.
struct Link {
  RankId Src, Dst;
  double AlphaUs = 0;    ///< Latency per transfer, microseconds.
  double BetaUsPerB = 0; ///< Inverse bandwidth, microseconds per byte.
  int Class = -1;        ///< Index into Topology::classes(), or -1.

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

  /// Cheapest time from \p From to every rank when one message of \p Bytes
  /// travels alone (Dijkstra; +infinity where unreachable).
  std::vector<double> distancesFrom(RankId From, double Bytes) const;

private:
  std::string Name;
  unsigned NumRanks = 0;
  unsigned NumNodes = 1, GpusPerNode = 0;
  std::vector<LinkClass> Classes;
  std::vector<Link> Links;
  std::vector<std::vector<LinkId>> Out, In;
};

} // namespace tacclc::ir

#endif // TACCLC_IR_TOPOLOGY_H
