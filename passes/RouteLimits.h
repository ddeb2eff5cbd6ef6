//===- passes/RouteLimits.h - Limits the routes decide ----------*- C++ -*-===//
//
// Some limits of the MSCCL runtimes are decided by the routes alone, before
// any transfer is ordered: a rank that sums a chunk from k peers receives
// the k parts in k threadblocks (one receiving peer per threadblock) and so
// must name k - 1 of them in dependencies, and every chunk a rank receives
// or sends costs it a step, of which the runtime's XML reader keeps a
// bounded number per rank. checkRouteLimits() counts what no program on
// the routes can avoid and reports a limit the routes break, right after
// routing, instead of at the end of a compile that cannot succeed.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_ROUTELIMITS_H
#define TACCLC_PASSES_ROUTELIMITS_H

#include "passes/Options.h"

#include "ir/Routes.h"
#include "ir/Sketch.h"
#include "support/Diagnostics.h"

namespace tacclc {

/// The least a rank needs on some routes: threadblocks it must wait on
/// and XML elements (the algorithm, one per rank, its threadblocks and
/// steps), each with the rank that needs the most.
struct RouteNeeds {
  unsigned WaitedThreadblocks = 0;
  unsigned WaitingRank = 0;
  /// The chunk that rank sums from the most peers, and how many.
  unsigned SummedChunk = 0, SummingPeers = 0;
  size_t XmlElements = 0;
  unsigned XmlRank = 0;
  /// That rank's threadblocks and steps at least.
  size_t Threadblocks = 0, Steps = 0;
};

/// What any program on the routes needs at least (every count is a lower
/// bound: steps of transfers that may merge, on `contiguous` link classes,
/// are not counted). \p Routed is the sketch the routes were solved for.
/// For a combining collective \p Original is the sketch asked for and
/// \p Routed its dual (ReduceSchedule.h), reversed into reductions; an
/// ALLREDUCE then spreads the sums on \p Spread, routes of the dual on
/// \p Original's topology, or, not yet routed (null), on the fewest
/// transfers a spread can take.
RouteNeeds routeNeeds(const ir::Sketch &Original, const ir::Sketch &Routed,
                      const ir::Routes &Rt, const ir::Routes *Spread);

/// Reports (and returns false) where routeNeeds() exceeds \p Limits.
bool checkRouteLimits(const ir::Sketch &Original, const ir::Sketch &Routed,
                      const ir::Routes &Rt, const ir::Routes *Spread,
                      const RankLimits &Limits, DiagnosticEngine &Diags);

} // namespace tacclc

#endif // TACCLC_PASSES_ROUTELIMITS_H
