//===- checker/Checker.h - Symbolic checker ---------------------*- C++ -*-===//
//
// Proves a loaded plan correct for one loop iteration by symbolic execution
// at chunk granularity: every chunk slot of i/o/s on every rank holds a
// symbolic value (a copy of "input chunk j of rank r", a multiset of such
// contributions for reductions, or "uninitialised"); every threadblock runs
// its steps as the MSCCL runtime would, with one capacity-1 FIFO per
// (sender, receiver, channel) and monotone dependency flags. It reports
// deadlocks (every blocked threadblock and what it waits for), unmatched or
// mismatched messages, double-counted contributions, uninitialised reads,
// data races between the threadblocks of a rank (accesses to one chunk, at
// least one a write, that no chain of dependencies and messages orders) and
// finally each output chunk that differs from the collective's definition.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CHECKER_CHECKER_H
#define TACCLC_CHECKER_CHECKER_H

#include "format/Diagnostic.h"
#include "format/Plan.h"

#include <string_view>

namespace tacclrt {

/// Knobs of checkPlan(); the defaults are what `tacclc check` uses.
struct CheckOptions {
  /// Messages one FIFO holds before the sender blocks. 1 is conservative: a
  /// plan free of deadlock with 1 slot is free of it with NCCL's 8.
  unsigned FifoCapacity = 1;
  /// Check in-place calls when the plan declares inplace="1".
  bool CheckInPlace = true;
  /// Check out-of-place calls when the plan declares outofplace="1".
  bool CheckOutOfPlace = true;
  /// Report data races: two accesses to the same chunk slot by different
  /// threadblocks of a rank, at least one a write, that no chain of
  /// dependencies and messages orders. Plans too large for the vector
  /// clocks get a note instead.
  bool CheckRaces = true;
  /// The root of a broadcast, reduce, gather or scatter plan; -1 takes the
  /// plan's `root` attribute, and without one the first rank the plan is
  /// correct for (ranks that never receive, for broadcast and scatter, or
  /// never send, for reduce and gather, are tried first).
  int Root = -1;
  /// Require bitwise-identical reduction results: every rank that holds a
  /// reduced element must have reduced it in the same order (up to
  /// commutativity). Without it, differing orders get one warning.
  bool IdenticalOrder = false;
};

/// Symbolically executes \p A for every call kind it serves (in-place and/or
/// out-of-place) and returns every problem found. When both kinds are checked
/// and an issue affects only one, its message ends in "(in-place call)" or
/// "(out-of-place call)". \p FileName labels the issues.
Report checkPlan(const Algo &A, std::string_view FileName);

/// Same as checkPlan(A, FileName) with explicit options.
Report checkPlan(const Algo &A, std::string_view FileName,
                 const CheckOptions &Opts);

} // namespace tacclrt

#endif // TACCLC_CHECKER_CHECKER_H
