//===- tools/tacclc/TuneReport.h - What a tune chose and wrote --*- C++ -*-===//
//
// The end of `tacclc tune`: for each collective, the fastest program at each
// size of the sweep among every candidate, user sketch and NCCL algorithm
// that compiled (tune/Stitch.h); one file per run of sizes a synthesised
// program wins, with minBytes/maxBytes that tile the sweep; every file
// proved by `tacclc check`, and the folder loaded the way libtaccl-nccl
// loads it, to show that each size of the sweep goes to the file chosen for
// it or, where NCCL's own algorithm won, to NCCL. Then report.md,
// report.json and one SVG per collective (the winning envelope against
// NCCL's ring, its tree for allreduce, and the lower bound).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_TUNEREPORT_H
#define TACCLC_TOOLS_TACCLC_TUNEREPORT_H

#include "tools/tacclc/TunePlan.h"

#include <string>

namespace tacclc {

/// Chooses, writes and verifies the algorithm folder \p OutDir for \p P and
/// its report; \p Seconds is the tune's wall time so far. The exit status.
int writeTuneOutput(const TunePlan &P, const std::string &OutDir,
                    const std::string &Tacclc, double Seconds);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_TUNEREPORT_H
