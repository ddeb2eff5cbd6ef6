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
#include <string>
#include <vector>

namespace tacclc::ir {

/// The collectives tacclc knows by name.
enum class CollectiveKind {
  AllGather,
  AllToAll,
  Broadcast,
  Scatter,
  Gather,
  ReduceScatter,
  Reduce,
  AllReduce,
};

/// The lower-case name used in sketches and in MSCCL XML ("allgather").
llvm::StringRef collectiveName(CollectiveKind K);
/// Parses a collective name as written in a sketch.
std::optional<CollectiveKind> parseCollectiveName(llvm::StringRef Name);
/// Every collective's name, in the order of CollectiveKind.
std::vector<llvm::StringRef> collectiveNames();
/// How the chunks of a collective of \p K with \p PerRank chunks (the
/// sketch's `chunks`) on \p NumRanks ranks divide, in words: "16 chunks (1
/// per rank)", "256 chunks (1 per ordered pair of ranks)", "2 chunks from
/// root rank 3".
std::string describeChunks(CollectiveKind K, unsigned NumRanks,
                           unsigned PerRank, unsigned Root);
/// True for broadcast, scatter, gather and reduce.
bool isRooted(CollectiveKind K);
/// True for the reducing collectives (reducescatter, reduce, allreduce).
bool isCombining(CollectiveKind K);

/// Every collective tacclc knows by name, in the order of its name table.
std::vector<CollectiveKind> allCollectives();

/// nccl-tests' bus bandwidth factor (busbw = algbw x factor) on \p N ranks:
/// 2(N-1)/N for ALLREDUCE, 1 for BROADCAST and REDUCE, (N-1)/N otherwise.
double busBandwidthFactor(CollectiveKind K, unsigned N);

/// One unit of data the collective moves. For a reducing collective the
/// chunk's value is the sum of the contributions of every Pre rank.
struct Chunk {
  RankId Source;            ///< The rank whose input holds the chunk
                            ///< (the first contributor when reducing).
  unsigned InputIndex = 0;  ///< Chunk offset in the source's input buffer.
  unsigned OutputIndex = 0; ///< Chunk offset in every output buffer.
  /// Ranks holding the chunk at the start, in increasing order.
  std::vector<RankId> Pre;
  /// Ranks that must hold it at the end, in increasing order.
  std::vector<RankId> Post;
};

/// A collective over NumRanks ranks with ChunksPerRank chunks per rank.
class Collective {
public:
  /// ALLGATHER: chunk c = r*K + j is input chunk j of rank r and output chunk
  /// c of every rank.
  static Collective allGather(unsigned NumRanks, unsigned ChunksPerRank);
  /// Any collective; \p Root matters only for rooted ones. Layouts (K
  /// chunks per part, R ranks):
  ///   alltoall       chunk (s, d, j): input d*K+j of s -> output s*K+j of d
  ///   broadcast      chunk j: input j of root -> output j of every rank
  ///   scatter        chunk (d, j): input d*K+j of root -> output j of d
  ///   gather         chunk (s, j): input j of s -> output s*K+j of root
  ///   reducescatter  chunk (d, j): sum of input d*K+j -> output j of d
  ///   reduce         chunk j: sum of input j -> output j of root
  ///   allreduce      chunk (p, j): sum of input p*K+j -> output p*K+j of all
  static Collective make(CollectiveKind Kind, unsigned NumRanks,
                         unsigned ChunksPerRank, RankId Root = RankId(0));

  CollectiveKind getKind() const { return Kind; }
  /// The root of a rooted collective.
  RankId getRoot() const { return Root; }
  /// The number of equal parts the size (as nccl-tests counts it) splits
  /// into: one per chunk of a rank's largest buffer.
  unsigned getSizeParts() const;
  unsigned getNumRanks() const { return NumRanks; }
  unsigned getChunksPerRank() const { return ChunksPerRank; }
  llvm::ArrayRef<Chunk> chunks() const { return Chunks; }
  const Chunk &chunk(ChunkId C) const { return Chunks[C.index()]; }
  unsigned getNumChunks() const { return Chunks.size(); }
  /// Chunks in each rank's input buffer.
  unsigned getInputChunks() const { return InputChunks; }
  /// Chunks in each rank's output buffer.
  unsigned getOutputChunks() const { return OutputChunks; }

  /// Replaces where chunk \p C starts and where it must end (both sorted):
  /// how one phase of a phased solve sees the collective.
  void setChunkEnds(ChunkId C, std::vector<RankId> Pre,
                    std::vector<RankId> Post) {
    Chunks[C.index()].Pre = std::move(Pre);
    Chunks[C.index()].Post = std::move(Post);
  }

  /// True if \p R holds \p C before the call.
  bool isPre(ChunkId C, RankId R) const;
  /// True if \p R must hold \p C after the call.
  bool isPost(ChunkId C, RankId R) const;

  /// Bytes of one chunk when the call moves \p SizeBytes, where the size is
  /// counted as nccl-tests does (the whole gathered buffer for allgather).
  double chunkBytes(double SizeBytes) const;

private:
  CollectiveKind Kind = CollectiveKind::AllGather;
  RankId Root = RankId(0);
  unsigned NumRanks = 0, ChunksPerRank = 0;
  unsigned InputChunks = 0, OutputChunks = 0;
  std::vector<Chunk> Chunks;
};

} // namespace tacclc::ir

#endif // TACCLC_IR_COLLECTIVE_H
