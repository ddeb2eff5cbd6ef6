//===- passes/RoutingStart.h - Stage 1: the routing warm start --*- C++ -*-===//
//
// The shortest-path data the routing model is built from: per chunk, the
// shortest distances from its pre ranks (for the model's cuts and pruning)
// and a tree reaching every rank that needs it (the warm start), whose
// makespan bounds the model's (the horizon H, source of every big-M). The
// trees are themselves a valid routing: when the routing stage runs out of
// time before its model is built, startRoutes() is the fallback.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_ROUTINGSTART_H
#define TACCLC_PASSES_ROUTINGSTART_H

#include "ir/Routes.h"
#include "ir/Sketch.h"
#include "passes/ModelSize.h"
#include "passes/Symmetry.h"
#include "support/Deadline.h"

#include <vector>

namespace tacclc {

/// Per-chunk path data: true shortest distances (for cuts and pruning) and
/// the warm-start tree with its arrival times.
struct ChunkPaths {
  std::vector<double> Dist;       ///< Shortest time from the chunk's pre ranks.
  std::vector<ir::LinkId> Parent; ///< Warm-start tree link into each rank.
  std::vector<double> TreeTime;   ///< Arrival time along the tree.
};

/// The routing model's warm start.
struct RoutingStart {
  /// Per chunk, filled for orbit representatives only: another chunk's
  /// are its representative's moved by the group element (read them with
  /// SymmetryGroup::representativeRank, usesStartLink, startRoutes).
  std::vector<ChunkPaths> Paths;
  /// The trees' makespan (link and port loads included): the horizon H.
  double Horizon = 0;
  /// A lower bound on the model's makespan: the largest shortest distance
  /// to a rank that needs a chunk, or the load some node's boundary must
  /// carry (its shared ports or links in or out), whichever is larger.
  double LowerBound = 0;
  /// Every tree delivers its chunk to every rank it reaches at the chunk's
  /// shortest distance there, the least the model's arrival times can be.
  bool ArrivalsAtDistance = false;
};

/// Shortest paths and warm-start trees of \p S's chunks, symmetric under
/// \p Group: plain shortest-path trees, or Steiner trees that avoid loaded
/// links, whichever has the smaller makespan. The Steiner trees (the
/// costlier search) are left out once \p GiveUp has passed. Checks the
/// compile's deadline (checkDeadline) as it goes.
RoutingStart routingStart(const ir::Sketch &S, const SymmetryGroup &Group,
                          const Deadline &GiveUp = {});

/// Bytes the warm start of \p S's routing under \p Group holds at least:
/// two sets of paths (the candidate and the best so far), each with an
/// entry per chunk and, per orbit representative, a distance, an arrival
/// time and a parent link per rank. Only these are checked before the
/// warm start: a start that is provably optimal needs no model, so the
/// model's own size is checked (routingModelSize) only once it is known
/// to be needed.
uint64_t routingStartBytes(const ir::Sketch &S, const SymmetryGroup &Group);

/// Whether the warm-start tree of chunk \p C (of \p Start, computed under
/// \p Group) enters the destination of \p L by \p L.
bool usesStartLink(const ir::Sketch &S, const SymmetryGroup &Group,
                   const RoutingStart &Start, ir::ChunkId C, ir::LinkId L);

/// The warm-start trees (of \p Start, computed under \p Group) as routes:
/// each chunk's links parent first, breadth-first from its pre ranks and a
/// rank's links by number; the trees' makespan as the relaxed makespan.
ir::Routes startRoutes(const ir::Sketch &S, const SymmetryGroup &Group,
                       const RoutingStart &Start);

} // namespace tacclc

#endif // TACCLC_PASSES_ROUTINGSTART_H
