//===- format/Dialect.h - The two MSCCL runtimes ----------------*- C++ -*-===//
//
// Which MSCCL runtime a file must satisfy, and everything that differs
// between the two or that either runtime limits: the one place the
// validator, the loader, codegen and the drivers take these numbers from.
// The figures are the runtimes' own compile-time constants:
//   - msccl-executor-nccl (Azure, also embedded in RCCL): MSCCL_MAX_NUM_STEPS
//     64 (makefiles/common.mk), 32 threadblocks with a send (recv) peer per
//     channel and rank (MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL) over 32
//     channels (MAXCHANNELS), so 1024 threadblocks per rank;
//   - microsoft/msccl (the NCCL 2.12 fork): MSCCL_MAX_NUM_STEPS 256 and
//     MSCCL_MAX_NUM_THREAD_BLOCKS 108 * 2 = 216;
//   - both: a step moves at most 71 chunks (MSCCL_MAX_COUNT 72 exclusive),
//     offsets and chunk counts are int16, a dependency names a threadblock
//     id that fits int8_t (dependentBid), and the XML reader keeps at most
//     4096 nodes per rank (MAX_NODES).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_DIALECT_H
#define TACCLC_FORMAT_DIALECT_H

#include "format/Plan.h"

#include <optional>
#include <string_view>

namespace tacclrt {

/// Which MSCCL runtime the file must satisfy.
enum class Dialect {
  /// Azure/msccl-executor-nccl (and RCCL): 64 steps per tb, coll
  /// "reducescatter", outofplace/minBytes/maxBytes required, maxBytes
  /// inclusive with 0 meaning unlimited.
  Executor,
  /// microsoft/msccl (NCCL 2.12 fork): 256 steps per tb, coll
  /// "reduce_scatter", name required, maxBytes exclusive and non-zero,
  /// outofplace ignored (an algo serves only calls matching `inplace`).
  Legacy
};

/// What a runtime accepts.
struct DialectLimits {
  /// Steps (nops included) per threadblock.
  unsigned StepsPerTb;
  /// Threadblocks per rank.
  unsigned TbsPerRank;
  /// Threadblocks with a send (and with a recv) peer per channel and rank.
  unsigned TbsPerChannel;
  /// Channels (`nchannels`, `chan` + 1).
  unsigned Channels;
  /// Highest threadblock id a dependency may name.
  unsigned DependencyTb;
  /// XML elements of one rank the reader keeps: the algorithm, one per
  /// rank, one per threadblock and one per step.
  unsigned XmlNodesPerRank;
  /// Chunks one step moves (`cnt`).
  unsigned StepCount;
  /// Largest chunk offset, and largest `nchunksperloop`.
  unsigned ChunkOffset;
};

/// The limits of \p D.
const DialectLimits &limitsOf(Dialect D);

/// "executor" or "legacy", as messages name the runtimes.
std::string_view runtimeName(Dialect D);

/// Steps allowed per threadblock: 64 (Executor) or 256 (Legacy).
unsigned maxStepsPerTb(Dialect D);

/// The spelling of \p C in \p D's `coll` attribute ("reducescatter" or
/// "reduce_scatter", ...); empty where \p D has no such collective.
std::string_view collName(CollKind C, Dialect D);

/// Parses a `coll` value accepted by \p D; std::nullopt for names that
/// dialect rejects.
std::optional<CollKind> parseCollName(std::string_view Name, Dialect D);

/// Whether a runtime of dialect \p D would select \p A for a call of
/// \p Bytes (counted as the runtime counts them: format/Call.h): minBytes <=
/// Bytes, and Bytes <= maxBytes in the executor (where 0 is no upper end),
/// Bytes < maxBytes in the legacy runtime.
bool selectsSize(const Algo &A, std::uint64_t Bytes, Dialect D);

} // namespace tacclrt

#endif // TACCLC_FORMAT_DIALECT_H
