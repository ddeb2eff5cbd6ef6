//===- passes/ModelSize.h - A MILP's size before it is built ----*- C++ -*-===//
//
// Before a stage builds its MILP it counts the model's variables, rows and
// nonzeros (routingModelSize, scheduleModelSize) and turns them into bytes:
// the solver::Model the pass builds, plus what the solver's child process
// allocates on top of it (CBC's copies of the matrix, preprocessing, the LP
// factorisation). A model that cannot fit what is left of the compile's
// memory budget is refused before any of it is allocated. The per-entry
// costs were measured with bench/limits (docs/synthesis.md, "Time and
// memory limits").
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_MODELSIZE_H
#define TACCLC_PASSES_MODELSIZE_H

#include "ir/Sketch.h"
#include "support/Diagnostics.h"
#include "support/Memory.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace tacclc {

/// The size of a MILP, counted before it is built.
struct ModelSize {
  uint64_t Variables = 0, IntegerVariables = 0, Rows = 0, Nonzeros = 0;
  /// Bytes the builder holds beside the model (maps from chunks and links
  /// to variables).
  uint64_t BuilderBytes = 0;

  /// Bytes of the solver::Model: names, bounds, rows, the name index.
  uint64_t modelBytes() const;
  /// Bytes the solver's child process allocates for the model.
  uint64_t solverBytes() const;
  /// "building the model (120 variables, 80 rows, 300 nonzeros)": the
  /// progress phase of building a model of this size.
  std::string buildingPhase() const;
  /// Everything: builder, model and solver.
  uint64_t totalBytes() const {
    return BuilderBytes + modelBytes() + solverBytes();
  }
};

/// Returns true if \p Size fits what is left of \p Budget. Otherwise
/// reports \p Id at \p Loc, one of ModelTooLarge (an error) and
/// ScheduleModelTooLarge (a warning: the stage keeps its heuristic
/// schedule), with \p Stage naming the model ("routing") and \p Advice
/// saying how to make it smaller, and returns false.
bool fitsMemory(const ModelSize &Size, const MemoryBudget &Budget, DiagId Id,
                llvm::StringRef Stage, llvm::StringRef Advice,
                llvm::SMRange Loc, DiagnosticEngine &Diags);

/// How \p S's routing model could be made to fit: a symmetry where
/// \p Symmetric is false, fewer chunks where a rank has several, relay
/// rules where links join several nodes freely, or a larger \p Budget
/// (by the means it comes from).
std::string shrinkAdvice(const ir::Sketch &S, bool Symmetric,
                         const MemoryBudget &Budget);

} // namespace tacclc

#endif // TACCLC_PASSES_MODELSIZE_H
