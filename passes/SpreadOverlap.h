//===- passes/SpreadOverlap.h - Sums spread as they finish ---*- C++ -*-===//
//
// An ALLREDUCE schedule is a reduction (a REDUCESCATTER run as a reversed
// ALLGATHER) followed by the ALLGATHER that spreads the sums. Appended as a
// whole, the spreading half starts only once every sum is complete, and in
// the order of its own schedule, which reversing the reduction turns
// upside down: the sum that is finished last is often the first sent.
// This pass list-schedules the spreading half again on the same routes,
// starting each chunk when its sum is complete at its source and after the
// reduction on every lane and port, so the two halves overlap.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_SPREADOVERLAP_H
#define TACCLC_PASSES_SPREADOVERLAP_H

#include "ir/Schedule.h"
#include "ir/Sketch.h"
#include "passes/ListSchedule.h"
#include "support/Deadline.h"

#include <optional>

namespace tacclc {

/// What overlapSpread found.
struct SpreadOverlap {
  ir::Schedule Schedule; ///< The whole ALLREDUCE, reduction first.
  Ordering BestOrdering = Ordering::EarliestStart;
};

/// \p AllReduce, an ALLREDUCE schedule of \p S whose reducing transfers
/// (Transfer::Reduce) come before those that spread the sums, with the
/// spreading transfers list-scheduled again (passes/ListSchedule.h, every
/// ordering heuristic, the shortest kept) on their own links: a chunk
/// leaves its source once its sum is complete there, and every lane and
/// shared port first finishes the reduction's transfers. Merges of the
/// spreading half are not kept. Nothing when that is not shorter than
/// \p AllReduce or \p GiveUp passes first.
std::optional<SpreadOverlap> overlapSpread(const ir::Sketch &S,
                                           const ir::Schedule &AllReduce,
                                           const Deadline &GiveUp = {});

} // namespace tacclc

#endif // TACCLC_PASSES_SPREADOVERLAP_H
