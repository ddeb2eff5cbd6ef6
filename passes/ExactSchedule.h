//===- passes/ExactSchedule.h - Stage 3: contiguity and timing --*- C++ -*-===//
//
// TACCL's third stage. The orders of stage 2 stay fixed on every link lane
// and every shared port; what is decided is which consecutive chunks on a
// link of a `contiguous` class travel as one message (one latency and one
// FIFO slot for all, landing together), and every transfer's exact time
// under the stages' cost model (passes/TimeModel.h: data serialised on
// lanes and ports, latency overlapping within a connection's FIFO). The decisions are a MILP (one binary per pair of
// chunks that may share a message) warm-started from the stage-2 schedule,
// so a time limit always leaves a schedule at least as good; the final
// times are recomputed by a forward pass over the chosen groups, so they are
// the earliest the decisions allow.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_EXACTSCHEDULE_H
#define TACCLC_PASSES_EXACTSCHEDULE_H

#include "ir/Schedule.h"
#include "ir/Sketch.h"
#include "passes/ModelSize.h"
#include "passes/Options.h"
#include "passes/Routing.h"
#include "solver/Model.h"
#include "support/Deadline.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace tacclc {

/// Longest run of chunks one message may carry (codegen merges as many into
/// one step; the runtime allows 71).
inline constexpr unsigned MaxChunksPerMessage = 32;

/// True if copies of chunks \p A then \p B over link \p L may travel as one
/// message: \p L is of a `contiguous` class, and the chunks lie next to
/// each other in the buffers codegen reads and writes, so one step can move
/// both. The receiver writes its output when it keeps the chunks (scratch,
/// laid out by codegen, otherwise: no); the sender reads its output when
/// it keeps them, else its input when it starts with them, else scratch
/// (no).
bool mayShareMessage(const ir::Sketch &S, ir::ChunkId A, ir::ChunkId B,
                     ir::LinkId L);

/// The stage-3 model and the maps back to the schedule.
struct ScheduleModel {
  solver::Model Model;
  /// Per transfer of the input schedule: its start, the end of its
  /// message so far, and its arrival (the whole message's end).
  std::vector<solver::VarId> Start, End, Arrive;
  /// Per transfer: the binary "sent in one message with the previous
  /// transfer of its lane", where that is allowed.
  std::vector<std::optional<solver::VarId>> JoinPrev;
  solver::VarId Makespan;
  /// The stage-2 schedule as a point of the model (no merges).
  std::vector<double> WarmStart;
  /// Number of merge decisions (binaries).
  unsigned NumDecisions = 0;
};

/// Builds the stage-3 model of \p Sched, a schedule of \p S's transfers.
/// Merging is offered only for copies on links of the sketch's contiguous
/// classes whose chunks sit next to each other in the output buffer, and
/// only when \p AllowMerge (a schedule that will be run backwards as a
/// reduction cannot merge: partial sums are combined one chunk at a time).
ScheduleModel buildScheduleModel(const ir::Sketch &S, const ir::Schedule &Sched,
                                 bool AllowMerge);

/// buildScheduleModel, abandoned (nothing) once \p GiveUp has passed;
/// checks the compile's deadline as it goes.
std::optional<ScheduleModel> buildScheduleModel(const ir::Sketch &S,
                                                const ir::Schedule &Sched,
                                                bool AllowMerge,
                                                const Deadline &GiveUp);

/// The exact size of the model buildScheduleModel builds, counted without
/// building it.
ModelSize scheduleModelSize(const ir::Sketch &S, const ir::Schedule &Sched,
                            bool AllowMerge);

/// The earliest times of \p Sched's transfers when the transfers flagged in
/// \p JoinPrev share a message with the previous transfer of their lane,
/// keeping the order of \p Sched (by start) on every lane and shared port.
/// Messages are placed in a topological order of what they wait for, ties
/// by \p Key (one value per transfer, equal within a message; a solution's
/// start times), or without it by the stage-2 start of their last chunk.
/// Nothing if the messages would wait for each other in a cycle (merges
/// that no schedule allows).
std::optional<ir::Schedule> retime(const ir::Sketch &S,
                                   const ir::Schedule &Sched,
                                   const std::vector<bool> &JoinPrev,
                                   const std::vector<double> *Key = nullptr);

/// \p Sched with every allowed merge of consecutive chunks (up to
/// MaxChunksPerMessage per message), retimed, if that is shorter; else
/// \p Sched. A quick estimate of what stage 3 can gain, used to compare
/// stage-2 orderings.
ir::Schedule mergeGreedily(const ir::Sketch &S, const ir::Schedule &Sched);

/// Stage 3: decides merges with CBC and returns the retimed schedule, never
/// slower than \p Sched. Without decisions to make, returns \p Sched
/// (building the model only for \p OnModel). A solver failure, a model
/// that cannot fit Opts.Memory and a stage budget (Opts.Budget) that
/// passes before the model is built each keep the stage-2 schedule (with a
/// warning).
/// \p OnModel, when given, sees the model before it is solved.
ir::Schedule scheduleExactly(
    const ir::Sketch &S, const ir::Schedule &Sched, bool AllowMerge,
    const StageOptions &Opts, DiagnosticEngine &Diags,
    SolveStats *Stats = nullptr,
    llvm::function_ref<void(const solver::Model &)> OnModel = nullptr);

} // namespace tacclc

#endif // TACCLC_PASSES_EXACTSCHEDULE_H
