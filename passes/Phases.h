//===- passes/Phases.h - Solving a sketch in phases -------------*- C++ -*-===//
//
// A sketch that says `phases within nodes, across nodes` is solved as a
// sequence of smaller problems, one per phase, each on the same machine but
// with only its phase's links usable: links inside nodes, or the logical
// links between nodes. Each phase moves every chunk from where the earlier
// phases left it to the ranks from which the later phases can finish the
// job soonest, so the phases' schedules, run one after another, deliver the
// collective; the composed schedule is lowered and verified as a whole.
// A phase solves fewer links than the whole, and its symmetry group is the
// part of the sketch's that still acts on it. The trade-off against one
// monolithic solve: a phase cannot overlap with the next in the model (the
// runtime still overlaps them, as each step waits only for its data), and
// routes that would mix the phases' links are not considered.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_PHASES_H
#define TACCLC_PASSES_PHASES_H

#include "ir/Routes.h"
#include "ir/Schedule.h"
#include "ir/Sketch.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <vector>

namespace tacclc {

/// The sketch of each phase of \p S, in order (S.Phases is not empty; the
/// collective does not reduce). Phase k's collective has the same chunks
/// as S's: each starts at the ranks that hold it after phase k - 1 and must
/// reach, for each of its final ranks d, the rank that phase k can reach
/// from which the later phases bring it to d in the fewest hops (ties: the
/// rank with d's local GPU number, then the nearest, then the lowest).
/// Nothing, after an error at the `phases` item, when some chunk cannot
/// reach some final rank that way.
std::optional<std::vector<ir::Sketch>> phaseSketches(const ir::Sketch &S,
                                                     DiagnosticEngine &Diags);

/// The phases' schedules one after another: phase k's times shifted by the
/// makespans of the phases before it.
ir::Schedule composeSchedules(llvm::ArrayRef<ir::Schedule> Phases);

/// Every chunk's links over all phases, in phase order.
ir::Routes composeRoutes(llvm::ArrayRef<ir::Routes> Phases);

} // namespace tacclc

#endif // TACCLC_PASSES_PHASES_H
