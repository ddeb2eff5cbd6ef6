//===- passes/Retime.h - Stage 3's view of a schedule -----------*- C++ -*-===//
//
// What stage 3 (ExactSchedule.cpp) needs of a stage-2 schedule: its
// transfers grouped by lane and shared port in stage-2 order and linked to
// the transfers that bring their chunks, which consecutive transfers may
// share a message, and the retiming that gives the earliest times once the
// merges are chosen (also used to estimate, in stage 2, what merging would
// gain). Internal to the passes layer; ExactSchedule.h has the public
// retime() and mergeGreedily().
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_RETIME_H
#define TACCLC_PASSES_RETIME_H

#include "ir/Schedule.h"
#include "ir/Sketch.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace tacclc::stage3 {

/// Transfers of the schedule grouped the ways the model needs them.
struct Structure {
  /// The transfer bringing each transfer's chunk to its source, or -1.
  std::vector<int> Parent;
  /// Per lane (link, lane): its transfers in stage-2 order.
  std::vector<std::vector<size_t>> Lanes;
  /// Per shared port: its transfers in the order stage 2 moves their data.
  std::vector<std::vector<size_t>> Ports;
  /// The transfer before each one on its lane, or -1.
  std::vector<int> LanePrev;
};

/// Transfer indices in stage-2 order: by start, then as listed.
std::vector<size_t> byStart(const ir::Schedule &Sched);

/// The lanes, ports and parents of \p Sched's transfers.
Structure analyse(const ir::Sketch &S, const ir::Schedule &Sched);

/// True if transfer \p J may share a message with \p I, the transfer before
/// it on the same lane (see mayShareMessage).
bool mayMerge(const ir::Sketch &S, const ir::Transfer &I,
              const ir::Transfer &J);

/// retime(), with the transfers left in \p Sched's order.
std::optional<ir::Schedule> retimeInOrder(const ir::Sketch &S,
                                          const ir::Schedule &Sched,
                                          const std::vector<bool> &JoinPrev,
                                          const std::vector<double> *Key);

/// Every allowed merge of consecutive chunks on a lane, up to
/// MaxChunksPerMessage chunks per message.
std::vector<bool> greedyJoins(const ir::Sketch &S, const ir::Schedule &Sched);

} // namespace tacclc::stage3

#endif // TACCLC_PASSES_RETIME_H
