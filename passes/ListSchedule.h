//===- passes/ListSchedule.h - Order and time every transfer ----*- C++ -*-===//
//
// Turns routes into a schedule under the stages' cost model
// (passes/TimeModel.h): a link lane and a shared port move one chunk's data
// at a time, latencies overlap within a connection's FIFO, and a chunk
// leaves a rank only after it has arrived there. This is TACCL's stage 2: a
// greedy list scheduler whose choice among ready transfers follows one of
// TACCL's ordering heuristics; orderTransfers() runs them all and keeps the
// shortest schedule. Stage 3 (passes/ExactSchedule.h) then fixes these orders
// and optimises the rest.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_LISTSCHEDULE_H
#define TACCLC_PASSES_LISTSCHEDULE_H

#include "ir/Routes.h"
#include "ir/Schedule.h"
#include "ir/Sketch.h"
#include "support/Deadline.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <utility>
#include <vector>

namespace tacclc {

/// TACCL's stage-2 heuristics: which ready transfer the list scheduler
/// starts next. Ties always fall to the lower chunk, then the lower link.
enum class Ordering {
  /// Earliest possible start, then the longest path still to travel below
  /// the transfer (critical path).
  EarliestStart,
  /// Longest path still to travel first, then earliest start (TACCL's h10,
  /// for machines with a switch).
  CriticalPath,
  /// Earliest start, then transfers inside the node the chunk starts in,
  /// then the longest path (TACCL's h14, for multi-node machines).
  OwnNodeFirst,
  /// Most total work below the transfer (summed over every branch of the
  /// chunk's tree) first, then earliest start (TACCL's h12).
  WidestSubtree,
  /// As EarliestStart, but chunks that may share one message on a
  /// `contiguous` link (mayShareMessage) form batches in buffer order: a
  /// batch leaves when all its chunks have arrived, back to back, so that
  /// stage 3 can send it as one message. For links whose lanes hold more
  /// small messages than their FIFO.
  Batched,
};

/// Every heuristic, in the order orderTransfers() tries them.
inline constexpr Ordering AllOrderings[] = {
    Ordering::EarliestStart, Ordering::CriticalPath, Ordering::OwnNodeFirst,
    Ordering::WidestSubtree, Ordering::Batched};

/// The heuristics orderTransfers() runs on \p S, in AllOrderings order:
/// all of them, but Batched only where some link class is `contiguous`
/// (elsewhere it forms no batch and schedules exactly as EarliestStart).
std::vector<Ordering> orderingsFor(const ir::Sketch &S);

/// A short name: "earliest-start", "critical-path", "own-node-first",
/// "widest-subtree", "batched".
llvm::StringRef orderingName(Ordering O);

/// Where a list schedule starts from: when each chunk is available at the
/// ranks that start with it, and transfers already running on the links.
/// The default is an idle machine with every chunk in place at time 0.
struct ListStart {
  /// Per chunk (indexed by ChunkId), when its pre ranks have it; empty:
  /// all at 0.
  std::vector<double> Release;
  /// Transfers that occupy the links first (a schedule on the same
  /// topology): each lane and shared port is busy until they have moved
  /// their data, and their messages in flight hold the lanes' FIFOs.
  const ir::Schedule *Busy = nullptr;
};

/// Schedules every (chunk, link) of \p R on the links of \p S, choosing
/// among ready transfers by \p O.
ir::Schedule scheduleTransfers(const ir::Sketch &S, const ir::Routes &R,
                               Ordering O = Ordering::EarliestStart);

/// scheduleTransfers, abandoned (nothing) once \p GiveUp has passed; checks
/// the compile's deadline (checkDeadline) as it goes.
/// With \p From, the schedule continues from that state: its transfers start
/// no earlier than their chunk's release and after \p From.Busy.
std::optional<ir::Schedule> listSchedule(const ir::Sketch &S,
                                         const ir::Routes &R, Ordering O,
                                         const Deadline &GiveUp,
                                         const ListStart &From = {});

/// Stage 2: the schedules of every heuristic, and the best.
struct OrderingResult {
  ir::Schedule Best;
  Ordering BestOrdering = Ordering::EarliestStart;
  /// Score of each heuristic's schedule, in AllOrderings order; fewer than
  /// orderingsFor() gives when the time ran out.
  std::vector<std::pair<Ordering, double>> Tried;
};

/// Runs every heuristic of orderingsFor(\p S) and keeps the schedule of lowest
/// \p Score (by default its makespan; ties: the first in AllOrderings), so the
/// result is deterministic. Once \p GiveUp has passed, the heuristics not
/// finished by then are left out (the first always runs to the end).
OrderingResult
orderTransfers(const ir::Sketch &S, const ir::Routes &R,
               llvm::function_ref<double(const ir::Schedule &)> Score = nullptr,
               const Deadline &GiveUp = {}, const ListStart &From = {});

} // namespace tacclc

#endif // TACCLC_PASSES_LISTSCHEDULE_H
