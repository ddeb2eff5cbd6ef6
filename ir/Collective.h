//===- ir/Collective.h - Collectives as chunk pre/postconditions -*- C++
//-*-===//
//
// A collective is specified, as in TACCL and SCCL, by its chunks: for each
// chunk, the ranks that hold it before the call (precondition), the ranks
// that must hold it after (postcondition), and where it lives in the input
// and output buffers. Every later stage reads only this description, never
// the collective's name, so adding a collective means adding a constructor.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_COLLECTIVE_H
#define TACCLC_IR_COLLECTIVE_H

#include "ir/Ids.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <vector>

namespace tacclc::ir {

/// The collectives tacclc knows by name.
enum class CollectiveKind { AllGather };

/// The lower-case name used in sketches and in MSCCL XML ("allgather").
llvm::StringRef collectiveName(CollectiveKind K);
/// Parses a collective name as written in a sketch.
std::optional<CollectiveKind> parseCollectiveName(llvm::StringRef Name);

/// One chunk: who has it, who needs it, and where it lives.
struct Chunk {
  RankId Source;            ///< The rank whose input holds the chunk.
  unsigned InputIndex = 0;  ///< Chunk offset in the source's input buffer.
  unsigned OutputIndex = 0; ///< Chunk offset in every output buffer.
  std::vector<RankId> Pre;  ///< Ranks holding the chunk at the start.
  std::vector<RankId> Post; ///< Ranks that must hold it at the end.
};

/// A collective over NumRanks ranks with ChunksPerRank chunks per rank.
class Collective {
public:
  /// ALLGATHER: chunk c = r*K + j is input chunk j of rank r and output chunk
  /// c of every rank.
  static Collective allGather(unsigned NumRanks, unsigned ChunksPerRank);

  CollectiveKind getKind() const { return Kind; }
  unsigned getNumRanks() const { return NumRanks; }
  unsigned getChunksPerRank() const { return ChunksPerRank; }
  llvm::ArrayRef<Chunk> chunks() const { return Chunks; }
  const Chunk &chunk(ChunkId C) const { return Chunks[C.index()]; }
  unsigned getNumChunks() const { return Chunks.size(); }
  /// Chunks in each rank's input buffer.
  unsigned getInputChunks() const { return InputChunks; }
  /// Chunks in each rank's output buffer.
  unsigned getOutputChunks() const { return OutputChunks; }

  /// True if \p R holds \p C before the call.
  bool isPre(ChunkId C, RankId R) const;
  /// True if \p R must hold \p C after the call.
  bool isPost(ChunkId C, RankId R) const;

  /// Bytes of one chunk when the call moves \p SizeBytes, where the size is
  /// counted as nccl-tests does (the whole gathered buffer for allgather).
  double chunkBytes(double SizeBytes) const;

private:
  CollectiveKind Kind = CollectiveKind::AllGather;
  unsigned NumRanks = 0, ChunksPerRank = 0;
  unsigned InputChunks = 0, OutputChunks = 0;
  std::vector<Chunk> Chunks;
};

} // namespace tacclc::ir

#endif // TACCLC_IR_COLLECTIVE_H
