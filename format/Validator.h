//===- format/Validator.h - Semantic rules of TACCL-EF plans ----*- C++ -*-===//
//
// Internal entry point of the semantic validation shared by loadPlan() and
// validatePlan(): structure of ranks and threadblocks, peers and channels,
// connection sharing, step numbering, counts, buffer bounds, dependencies
// and the per-dialect limits of the MSCCL runtimes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_VALIDATOR_H
#define TACCLC_FORMAT_VALIDATOR_H

#include "format/IssueSink.h"
#include "format/Loader.h"
#include "format/Plan.h"

namespace tacclrt {

/// Reports every semantic rule \p A breaks under \p Opts into \p Sink.
void validateAlgo(const Algo &A, const LoadOptions &Opts, IssueSink &Sink);

} // namespace tacclrt

#endif // TACCLC_FORMAT_VALIDATOR_H
