//===- passes/ReduceSchedule.h - Reductions from reversed trees -*- C++ -*-===//
//
// Combining collectives are synthesised through their non-combining duals,
// as TACCL does: a REDUCESCATTER is an ALLGATHER run backwards, a REDUCE a
// BROADCAST run backwards, and an ALLREDUCE a REDUCESCATTER followed by the
// ALLGATHER it was reversed from. Reversing a tree of copies gives a tree of
// reductions in which every rank contributes exactly once and forwards its
// partial result only after every contribution below it has arrived.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_REDUCESCHEDULE_H
#define TACCLC_PASSES_REDUCESCHEDULE_H

#include "ir/Schedule.h"
#include "ir/Sketch.h"

namespace tacclc {

/// The non-combining collective whose algorithm, run backwards, performs the
/// combining collective \p C: ALLGATHER for REDUCESCATTER and ALLREDUCE,
/// BROADCAST (same root) for REDUCE. Chunk i of the dual is chunk i of \p C.
/// \p C must be combining.
ir::Collective dualCollective(const ir::Collective &C);

/// The sketch \p S asking for dualCollective(S.Coll) instead; with
/// \p Transpose, on the transposed topology (every link turned around), so
/// that the dual's schedule, reversed, uses exactly the links of \p S.
ir::Sketch dualSketch(const ir::Sketch &S, bool Transpose);

/// Builds the schedule of the combining collective of \p S from \p Up, a
/// schedule of dualCollective(S.Coll) on the transposed topology of \p S
/// (\p UpTransposed) or on \p S's own, symmetric one: every first arrival
/// of a chunk at a rank, reversed in time and direction, becomes a reducing
/// transfer (Transfer::Reduce). An ALLREDUCE then runs \p Spread, a schedule
/// of the dual on \p S's topology, to hand out the results. Without
/// \p UpTransposed the topology must be symmetric (Topology::isSymmetric).
ir::Schedule reverseForReduction(const ir::Sketch &S, const ir::Schedule &Up,
                                 bool UpTransposed, const ir::Schedule *Spread);

} // namespace tacclc

#endif // TACCLC_PASSES_REDUCESCHEDULE_H
