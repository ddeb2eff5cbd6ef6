//===- ir/Collective.cpp - Collective constructors and queries ------------===//
//
// The chunk-level definition of each collective. ALLGATHER follows the
// MSCCL buffer layout: each rank's input holds its K chunks, each output
// holds all R*K chunks in rank-major order.
//
//===----------------------------------------------------------------------===//
#include "ir/Collective.h"

#include <algorithm>

using namespace tacclc::ir;

llvm::StringRef tacclc::ir::collectiveName(CollectiveKind K) {
  switch (K) {
  case CollectiveKind::AllGather:
    return "allgather";
  }
  return "unknown";
}

std::optional<CollectiveKind>
tacclc::ir::parseCollectiveName(llvm::StringRef Name) {
  if (Name == "allgather")
    return CollectiveKind::AllGather;
  return std::nullopt;
}

Collective Collective::allGather(unsigned NumRanks, unsigned ChunksPerRank) {
  Collective C;
  C.Kind = CollectiveKind::AllGather;
  C.NumRanks = NumRanks;
  C.ChunksPerRank = ChunksPerRank;
  C.InputChunks = ChunksPerRank;
  C.OutputChunks = NumRanks * ChunksPerRank;
  std::vector<RankId> All;
  for (unsigned R = 0; R < NumRanks; ++R)
    All.push_back(RankId(R));
  for (unsigned R = 0; R < NumRanks; ++R)
    for (unsigned J = 0; J < ChunksPerRank; ++J) {
      Chunk Ch;
      Ch.Source = RankId(R);
      Ch.InputIndex = J;
      Ch.OutputIndex = R * ChunksPerRank + J;
      Ch.Pre = {RankId(R)};
      Ch.Post = All;
      C.Chunks.push_back(std::move(Ch));
    }
  return C;
}

bool Collective::isPre(ChunkId C, RankId R) const {
  const auto &Pre = chunk(C).Pre;
  return std::find(Pre.begin(), Pre.end(), R) != Pre.end();
}

bool Collective::isPost(ChunkId C, RankId R) const {
  const auto &Post = chunk(C).Post;
  return std::find(Post.begin(), Post.end(), R) != Post.end();
}

double Collective::chunkBytes(double SizeBytes) const {
  switch (Kind) {
  case CollectiveKind::AllGather:
    return SizeBytes / (double(NumRanks) * ChunksPerRank);
  }
  return SizeBytes;
}
