//===- ir/Schedule.h - Timed transfers on links -----------------*- C++ -*-===//
//
// Output of the scheduling stage: every (chunk, link) transfer of the routes
// with a start and end time under the stages' cost model (one slice of
// every chunk; passes/TimeModel.h): a transfer's start is when its data
// starts less its hop latency, its end when its data has landed, so
// intervals of one lane may overlap by a latency but their data does not.
// The order of transfers on each link is the order codegen must keep, since
// MSCCL matches sends and receives purely by order.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_SCHEDULE_H
#define TACCLC_IR_SCHEDULE_H

#include "ir/Ids.h"

#include <algorithm>
#include <tuple>

#include <vector>

namespace tacclc::ir {

/// One chunk crossing one link.
struct Transfer {
  ChunkId Chunk;
  LinkId Link;
  double StartUs = 0, EndUs = 0;
  unsigned Lane = 0; ///< Which of the link's parallel links carries it.
  /// The chunk carries a partial reduction that the receiver combines with
  /// its own (combining collectives); otherwise it is a copy.
  bool Reduce = false;
};

/// All transfers, sorted by (StartUs, Link, Chunk).
struct Schedule {
  std::vector<Transfer> Transfers;
  /// The schedule's length: one slice of every chunk (predictCall in
  /// passes/TimeModel.h makes a whole call's prediction of it).
  double MakespanUs = 0;

  /// Puts the transfers in the promised order (stable for equal keys).
  void sortTransfers() {
    std::stable_sort(
        Transfers.begin(), Transfers.end(),
        [](const Transfer &A, const Transfer &B) {
          return std::make_tuple(A.StartUs, A.Link.index(), A.Chunk.index()) <
                 std::make_tuple(B.StartUs, B.Link.index(), B.Chunk.index());
        });
  }
};

} // namespace tacclc::ir

#endif // TACCLC_IR_SCHEDULE_H
