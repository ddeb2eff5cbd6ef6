//===- passes/RoutingBound.h - Stage 1: the makespan's load bound -*- C++
//-*-===//
//
// A lower bound on the routing model's makespan from the loads its rows
// charge (RoutingModel.cpp: T >= a shared port's load, T >= a link's lane
// load over its multiplicity). When the warm start's makespan meets it, no
// routing is better and the routing stage skips its solve; the model also
// starts its makespan there.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_ROUTINGBOUND_H
#define TACCLC_PASSES_ROUTINGBOUND_H

#include "ir/Sketch.h"
#include "passes/RoutingStart.h"

#include <vector>

namespace tacclc {

/// The largest of these bounds, in microseconds (0 where none applies):
///   - a rank's receiving side: every chunk it needs and does not hold
///     enters it over one of its incoming links, each of which loads a
///     bucket (its port on the rank's side, or the link itself). A chunk
///     that only one bucket can deliver (the relay rules and \p Paths'
///     reachability decide) adds that bucket's load; all of them together
///     must fit the buckets' combined rate; and the chunks that only some
///     set of its incoming links may deliver must fit those links' lanes;
///   - a node's boundary, both ways: a chunk some rank of a node needs and
///     none holds crosses a link into the node, one held only there and
///     needed elsewhere a link out of it; together they must fit the rate
///     of the node's buckets on that side.
/// \p Paths: the shortest distances of the orbit representatives of
/// \p Group (RoutingStart::Paths), which move with the group to the other
/// chunks.
double routingLoadBound(const ir::Sketch &S, const SymmetryGroup &Group,
                        const std::vector<ChunkPaths> &Paths);

} // namespace tacclc

#endif // TACCLC_PASSES_ROUTINGBOUND_H
