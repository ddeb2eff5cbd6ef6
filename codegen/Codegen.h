//===- codegen/Codegen.h - Public API of code generation --------*- C++ -*-===//
//
// Lowers a scheduled sketch to an ir::Program (threadblocks, steps,
// dependencies, buffer offsets): the format's plan model, which
// format/PlanWriter.h prints as TACCL-EF XML that the MSCCL runtimes accept.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CODEGEN_CODEGEN_H
#define TACCLC_CODEGEN_CODEGEN_H

#include "ir/Program.h"
#include "ir/Schedule.h"
#include "ir/Sketch.h"
#include "support/Diagnostics.h"

#include "format/Dialect.h"
#include "format/PlanWriter.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <vector>

namespace tacclc {

/// How to lower: the limits of the target runtime (format/Dialect.h;
/// msccl-executor by default) and the lowering's choices.
struct CodegenOptions {
  /// The runtime the program is for; setDialect() sets the limits below.
  tacclrt::Dialect Dialect = tacclrt::Dialect::Executor;
  unsigned MaxStepsPerTb = limits().StepsPerTb;
  unsigned MaxDepTargetTb = limits().DependencyTb;
  unsigned MaxTbsPerRank = limits().TbsPerRank;
  /// XML elements of one rank the MSCCL reader keeps: the algorithm, one
  /// per rank, one per threadblock and one per step.
  unsigned MaxXmlNodesPerRank = limits().XmlNodesPerRank;
  unsigned MaxChannels = limits().Channels;
  /// Sending (and receiving) threadblocks per channel and rank
  /// (MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL).
  unsigned MaxTbsPerChannel = limits().TbsPerChannel;
  /// Mark programs that are also correct in place (inplace="1" beside
  /// outofplace="1"). Off for the legacy runtime, which has no outofplace
  /// attribute and would then use the program for in-place calls only.
  bool ServeInPlace = true;
  /// Forward relayed chunks with one `rcs` step (FuseRelays.cpp).
  bool FuseRelays = true;
  /// Messages a connection's FIFO holds, as the order of fused threadblocks
  /// may count on: with 1, fusion cannot deadlock whatever the runtime's
  /// FIFO; with more, a fused threadblock may post sends ahead of receives
  /// as a schedule whose messages overlap their latency does, and the
  /// program must be verified (the driver lowers again with 1 if it fails).
  unsigned FifoMessages = 1;
  /// Send consecutive chunks that the schedule sends back to back over a
  /// `contiguous` link class as one step with cnt > 1 (MergeSteps.cpp).
  /// Parallel instances need single-chunk steps.
  bool MergeContiguous = true;
  /// The most chunks one merged step moves.
  unsigned MaxMergedChunks = 32;
  /// Give an ALLREDUCE's spreading half threadblocks (channels) of its own,
  /// so that the halves of consecutive buffer slices overlap. Worth its
  /// extra threadblocks (and the relays it cannot fuse across the halves)
  /// when a call takes several slices per chunk.
  bool SeparateHalves = false;
  /// Put sends that wait for nothing on connections apart from forwards of
  /// received data, so that they run ahead into later buffer slices. Worth
  /// its extra threadblocks when a call takes several slices per chunk.
  bool PipelineWaves = false;
  /// Make a rank's sends through its NIC wait their turn as the
  /// schedule gives it, on the receives the schedule completes in between
  /// (PaceNics.cpp).
  bool PaceNics = false;
  /// Ranks left unfused (indexed by rank; missing entries mean fuse).
  std::vector<bool> NoFuseRanks;

  /// Targets runtime \p D: its limits, and in-place service only where
  /// the runtime can tell it from out-of-place (not the legacy one).
  void setDialect(tacclrt::Dialect D) {
    Dialect = D;
    const tacclrt::DialectLimits &L = limits();
    MaxStepsPerTb = L.StepsPerTb;
    MaxDepTargetTb = L.DependencyTb;
    MaxTbsPerRank = L.TbsPerRank;
    MaxXmlNodesPerRank = L.XmlNodesPerRank;
    MaxChannels = L.Channels;
    MaxTbsPerChannel = L.TbsPerChannel;
    ServeInPlace = D != tacclrt::Dialect::Legacy;
  }
  /// The limits of the target runtime.
  const tacclrt::DialectLimits &limits() const {
    return tacclrt::limitsOf(Dialect);
  }
};

/// nchunksperloop of \p C's program: the chunks of the runtime's
/// count_total (count x sizeMultiplier), which is the larger buffer except
/// for GATHER and SCATTER, whose count is one rank's part.
unsigned chunksPerLoop(const ir::Collective &C);

/// The size the runtime selects programs by (count x sizeMultiplier x type
/// size, what minBytes and maxBytes bound) for a call of \p C whose larger
/// buffer holds \p Bytes bytes (the sketch's `size`); 0 stays 0.
uint64_t runtimeBytes(const ir::Collective &C, uint64_t Bytes);

/// Lowers the schedule \p Sch of \p S to a program. Reports an error (and
/// returns nothing) when the program would break a runtime limit.
std::optional<ir::Program> lowerToProgram(const ir::Sketch &S,
                                          const ir::Schedule &Sch,
                                          const CodegenOptions &Opts,
                                          DiagnosticEngine &Diags);

/// Runs \p Instances copies of every threadblock side by side (MSCCL's
/// parallel instances): each chunk splits into that many subchunks, copy i
/// moves subchunk i of every chunk on channel i. Reports a diagnostic and
/// returns false when the copies exceed the runtime's limits.
bool replicateInstances(ir::Program &P, unsigned Instances,
                        const CodegenOptions &Opts, llvm::SMRange Loc,
                        DiagnosticEngine &Diags);

} // namespace tacclc

#endif // TACCLC_CODEGEN_CODEGEN_H
