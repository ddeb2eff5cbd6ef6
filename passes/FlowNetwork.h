//===- passes/FlowNetwork.h - A topology as a flow network ------*- C++ -*-===//
//
// The capacitated directed graph the bandwidth bounds (Bounds.h) cut: the
// ranks, plus two vertices per shared port of the topology (a NIC side, a
// switch port) joined by one edge of the port's capacity, so that however
// many logical links pass through a port, its capacity counts once. A link
// becomes a chain from its source through the ports it leaves by, then the
// ports it arrives by, to its destination. And a max-flow solver (Dinic)
// that also returns a minimum cut.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_FLOWNETWORK_H
#define TACCLC_PASSES_FLOWNETWORK_H

#include "ir/Topology.h"

#include <string>
#include <vector>

namespace tacclc {

/// A capacity too large to limit anything (a link with beta 0).
constexpr double UnboundedCapacity = 1e18;

/// Vertices 0 .. NumRanks-1 are the ranks; the others are port vertices.
/// Capacities are in bytes per microsecond.
struct FlowNetwork {
  struct Edge {
    unsigned From = 0, To = 0;
    double Capacity = 0;
    int Label = -1; ///< Index into Labels: the port's or the link class's.
  };
  unsigned NumRanks = 0;
  unsigned NumVertices = 0;
  std::vector<Edge> Edges;
  std::vector<std::string> Labels;
  /// Per rank, the lowest rank of its orbit under automorphisms of the
  /// machine (which keep every capacity): the cuts around ranks of one
  /// orbit are images of each other, so only the lowest's is computed.
  /// Empty: every rank is its own.
  std::vector<unsigned> OrbitLow;
  /// A rank permutation rotating the machine's nodes by one that keeps
  /// every capacity (an automorphism); empty where there is none.
  std::vector<unsigned> NodeRotation;

  /// Whether rank \p R is the lowest of its orbit.
  bool lowestOfOrbit(unsigned R) const {
    return OrbitLow.empty() || OrbitLow[R] == R;
  }

  /// The same network with every edge turned around.
  FlowNetwork reversed() const;
  /// B+(S): the total capacity of edges from a vertex in \p InS to one not
  /// in it.
  double capacityOut(const std::vector<char> &InS) const;
};

/// The network of \p T (with the costs its links have now). A shared port's
/// capacity is the largest 1/beta of its links (the routing model and the
/// simulator charge a port each link's beta per byte, so with equal betas
/// this is exact, and otherwise it only relaxes the port); a link's is its
/// multiplicity over its beta. A port is one a link leaves by when it is
/// left from no more ranks than it arrives at (a NIC's send side, a switch
/// port out of a GPU), else one it arrives by.
FlowNetwork buildFlowNetwork(const ir::Topology &T);

/// Maximum flow between two vertices of a graph with real capacities
/// (Dinic's algorithm), and the minimum cut it proves.
class MaxFlow {
public:
  explicit MaxFlow(unsigned NumVertices) : Adj(NumVertices) {}
  /// Adds an edge \p From -> \p To of capacity \p Cap.
  void addEdge(unsigned From, unsigned To, double Cap);
  /// Maximum flow from \p S to \p T (call once).
  double run(unsigned S, unsigned T);
  /// After run(): the vertices reachable from the source in the residual
  /// graph, the source side of a minimum cut.
  std::vector<char> sourceSide(unsigned S) const;

private:
  struct Arc {
    unsigned To;
    double Cap;
    unsigned Rev;
  };
  std::vector<std::vector<Arc>> Adj;
  std::vector<int> Level;
  std::vector<unsigned> Next;
  double Eps = 0;

  bool levels(unsigned S, unsigned T);
  double push(unsigned V, unsigned T, double F);
};

} // namespace tacclc

#endif // TACCLC_PASSES_FLOWNETWORK_H
