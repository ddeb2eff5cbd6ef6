//===- passes/RoutingModel.h - Stage 1: the routing MILP --------*- C++ -*-===//
//
// Builds TACCL's stage-1 routing model for a sketch: which links each chunk
// uses, with bandwidth relaxed (link load only bounds the makespan, chunks on
// a link are not serialised). The model is solver-neutral (solver::Model), so
// `--emit=milp` can print it and any backend can solve it. A shortest-path
// routing is provided as a warm start and as the source of the big-M bound.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_ROUTINGMODEL_H
#define TACCLC_PASSES_ROUTINGMODEL_H

#include "ir/Routes.h"
#include "ir/Sketch.h"
#include "passes/ModelSize.h"
#include "passes/RoutingStart.h"
#include "passes/Symmetry.h"
#include "solver/Model.h"
#include "support/Deadline.h"

#include <optional>
#include <vector>

namespace tacclc {

/// The routing model plus the maps from IR entities to its variables.
struct RoutingModel {
  solver::Model Model;
  /// UseVar[c][l]: binary "chunk c crosses link l", or nothing when the link
  /// is excluded for that chunk.
  std::vector<std::vector<std::optional<solver::VarId>>> UseVar;
  solver::VarId Makespan;
  /// A feasible assignment (shortest-path trees), one value per variable.
  std::vector<double> WarmStart;
  /// Objective value of the warm start.
  double WarmStartMakespanUs = 0;
};

/// Builds the routing model of \p S from its warm start \p Start (see
/// routingStart). Every post rank of every chunk must be reachable (checked
/// by the caller). Only the orbit representatives of \p Group get variables
/// and per-chunk rows; the other chunks' routes are their images
/// (SymmetryGroup::trivial(S) for no reduction). Checks the compile's
/// deadline as it goes, and returns nothing once \p GiveUp has passed.
std::optional<RoutingModel> buildRoutingModel(const ir::Sketch &S,
                                              const SymmetryGroup &Group,
                                              const RoutingStart &Start,
                                              const Deadline &GiveUp = {});

/// buildRoutingModel from the sketch's own warm start, never giving up.
RoutingModel buildRoutingModel(const ir::Sketch &S, const SymmetryGroup &Group);

/// The size of the model buildRoutingModel(S, Group, Start) builds, counted
/// without building it: exact, except that load, port and switch rows that
/// coincide (kept once; under symmetry, or where a port has one link in
/// use) are counted each time. With \p Unreduced, also counts there the
/// model without the symmetry reduction (as with SymmetryGroup::trivial),
/// from the same pass: an orbit's chunks count as many times its
/// representative's variables and rows.
ModelSize routingModelSize(const ir::Sketch &S, const SymmetryGroup &Group,
                           const RoutingStart &Start,
                           ModelSize *Unreduced = nullptr);

/// Reads routes back from a solution of \p RM (values per variable).
ir::Routes extractRoutes(const ir::Sketch &S, const RoutingModel &RM,
                         const std::vector<double> &Values);

} // namespace tacclc

#endif // TACCLC_PASSES_ROUTINGMODEL_H
