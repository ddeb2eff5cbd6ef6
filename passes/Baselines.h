//===- passes/Baselines.h - NCCL's own algorithms as routes -----*- C++ -*-===//
//
// The fixed algorithms NCCL runs, expressed as routes on a machine so that
// the rest of the pipeline (list scheduling, reversal for reductions,
// lowering, verification) turns them into TACCL-EF like any synthesised
// algorithm: the ring (one Hamiltonian cycle through every node's GPUs,
// nodes joined over their NICs, as NCCL builds its rings), direct sends
// (every chunk straight from its source to each rank that wants it), and
// hierarchical routes (across nodes on a GPU's rail, then around each
// node's ring). Reductions use the dual's routes on the transposed topology
// (passes/ReduceSchedule.h). NCCL's double binary tree ALLREDUCE is built
// as a schedule directly (treeAllReduceSchedule).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_BASELINES_H
#define TACCLC_PASSES_BASELINES_H

#include "ir/Routes.h"
#include "ir/Schedule.h"
#include "ir/Sketch.h"

#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// A ring through every rank: inside each node a cycle (one node) or path
/// (several nodes) over the node's links, found by depth-first search,
/// nodes in order, the last GPU of a node joined to the first of the next.
/// The ring starts each node's path at local GPU \p Start mod G where it
/// can, so that rings with different starts leave a node from different
/// GPUs (and NICs), as NCCL's channels do. Nothing if some node has no
/// such path.
std::optional<std::vector<ir::RankId>> findRing(const ir::Topology &T,
                                                unsigned Start = 0);

/// NCCL's channel count for \p T as the baselines use it: one ring per
/// NIC of a node (so every NIC carries a ring), at least 1.
unsigned defaultRingCount(const ir::Topology &T);

/// Routes of \p S's (non-combining) collective along \p Rings: chunk c
/// travels ring c mod Rings.size() (chunk c's index within its rank, for
/// every collective's layout) from its source, \p Forward or backwards, as
/// far as the last rank that wants it. Nothing if a needed link is missing.
std::optional<ir::Routes>
ringRoutes(const ir::Sketch &S,
           const std::vector<std::vector<ir::RankId>> &Rings, bool Forward);

/// Routes of \p S's (non-combining) collective where every chunk goes
/// straight from its source to each rank that wants it. Nothing if a link
/// is missing; \p Missing then names it.
std::optional<ir::Routes> directRoutes(const ir::Sketch &S,
                                       std::string &Missing);

/// Hierarchical routes of \p S's (non-combining) collective: a chunk first
/// crosses the nodes on its GPU's rail (GPU g of every node, nodes in order,
/// over the NICs), then goes around each node's ring (a Hamiltonian cycle
/// over the node's links) from the rail GPU, each leg only as far as the
/// last rank that wants the chunk. Nothing (with \p Error) if a node has no
/// ring or a link is missing.
std::optional<ir::Routes> hierarchicalRoutes(const ir::Sketch &S,
                                             std::string &Error);

/// NCCL's double binary tree ALLREDUCE for \p S (an allreduce sketch): inside
/// each node a chain along the node's ring path, across nodes a binary tree
/// of the nodes' first GPUs; the second tree mirrors both (nodes in reverse
/// order, chains reversed), so a rank that is a leaf in one is inside the
/// other. Chunk c uses tree c mod 2; its partial sums go up the tree
/// (reducing transfers: a rank sends once every child's sum has arrived),
/// then the sum comes down. Transfers are list-scheduled (the one that can
/// start first goes first), so chunks and the two trees overlap and every
/// link carries one message at a time. Nothing
/// (with \p Error) if a tree edge lacks a link in either direction.
std::optional<ir::Schedule> treeAllReduceSchedule(const ir::Sketch &S,
                                                  std::string &Error);

} // namespace tacclc

#endif // TACCLC_PASSES_BASELINES_H
