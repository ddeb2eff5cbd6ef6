//===- passes/ListSchedule.h - Order and time every transfer ----*- C++ -*-===//
//
// Turns routes into a schedule under the exact alpha-beta model: a link
// carries one chunk at a time, and a chunk leaves a rank only after it has
// arrived there. This is a greedy list scheduler (TACCL's stage 2 in its
// simplest form); the exact scheduling MILP of stage 3 comes later.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_LISTSCHEDULE_H
#define TACCLC_PASSES_LISTSCHEDULE_H

#include "ir/Routes.h"
#include "ir/Schedule.h"
#include "ir/Sketch.h"

namespace tacclc {

/// Schedules every (chunk, link) of \p R on the links of \p S.
ir::Schedule scheduleTransfers(const ir::Sketch &S, const ir::Routes &R);

} // namespace tacclc

#endif // TACCLC_PASSES_LISTSCHEDULE_H
