//===- runtime/Validator.h - Semantic rules of TACCL-EF plans ---*- C++ -*-===//
//
// Internal entry point of the semantic validation shared by loadPlan() and
// validatePlan(): structure of ranks and threadblocks, peers and channels,
// connection sharing, step numbering, counts, buffer bounds, dependencies
// and the per-dialect limits of the MSCCL runtimes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLRT_VALIDATOR_H
#define TACCLRT_VALIDATOR_H

#include "IssueSink.h"
#include "tacclrt/Loader.h"
#include "tacclrt/Plan.h"

namespace tacclrt {

/// Largest `cnt` of a step (MSCCL_MAX_COUNT is 72, exclusive).
constexpr int MaxStepCount = 71;
/// Channels the runtimes support (MAXCHANNELS).
constexpr int MaxChannels = 32;
/// Offsets are int16 in the runtimes.
constexpr int MaxChunkOffset = 32767;
/// Highest threadblock id a dependency may name (dependentBid is int8_t).
constexpr int MaxDependencyTb = 127;
/// Threadblocks with a send (or recv) peer allowed per channel and rank.
constexpr int MaxTbsPerChannel = 32;

/// Reports every semantic rule \p A breaks under \p Opts into \p Sink.
void validateAlgo(const Algo &A, const LoadOptions &Opts, IssueSink &Sink);

} // namespace tacclrt

#endif // TACCLRT_VALIDATOR_H
