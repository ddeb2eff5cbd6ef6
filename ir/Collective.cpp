//===- ir/Collective.cpp - Collective constructors and queries ------------===//
//
// The chunk-level definition of each collective, following the MSCCL buffer
// layouts (e.g. ALLGATHER: each rank's input holds its K chunks, each output
// holds all R*K chunks in rank-major order). The size a user gives is
// counted as nccl-tests counts it: the larger of a rank's two buffers.
//
//===----------------------------------------------------------------------===//
#include "ir/Collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

using namespace tacclc::ir;

namespace {
struct KindName {
  CollectiveKind Kind;
  const char *Name;
};
constexpr KindName KindNames[] = {
    {CollectiveKind::AllGather, "allgather"},
    {CollectiveKind::AllToAll, "alltoall"},
    {CollectiveKind::Broadcast, "broadcast"},
    {CollectiveKind::Scatter, "scatter"},
    {CollectiveKind::Gather, "gather"},
    {CollectiveKind::ReduceScatter, "reducescatter"},
    {CollectiveKind::Reduce, "reduce"},
    {CollectiveKind::AllReduce, "allreduce"},
};
} // namespace

llvm::StringRef tacclc::ir::collectiveName(CollectiveKind K) {
  for (const KindName &N : KindNames)
    if (N.Kind == K)
      return N.Name;
  return "unknown";
}

std::optional<CollectiveKind>
tacclc::ir::parseCollectiveName(llvm::StringRef Name) {
  for (const KindName &N : KindNames)
    if (Name == N.Name)
      return N.Kind;
  return std::nullopt;
}

std::vector<llvm::StringRef> tacclc::ir::collectiveNames() {
  std::vector<llvm::StringRef> Out;
  for (const KindName &N : KindNames)
    Out.push_back(N.Name);
  return Out;
}

std::string tacclc::ir::describeChunks(CollectiveKind K, unsigned NumRanks,
                                       unsigned PerRank, unsigned Root) {
  const uint64_t R = NumRanks;
  auto Count = [](uint64_t N) {
    return fmt::format("{} chunk{}", N, N == 1 ? "" : "s");
  };
  switch (K) {
  case CollectiveKind::AllToAll:
    return fmt::format("{} ({} per ordered pair of ranks)",
                       Count(R * R * PerRank), PerRank);
  case CollectiveKind::Broadcast:
    return fmt::format("{} from root rank {}", Count(PerRank), Root);
  case CollectiveKind::Reduce:
    return fmt::format("{} to root rank {}", Count(PerRank), Root);
  case CollectiveKind::Scatter:
    return fmt::format("{} ({} for each rank, from root rank {})",
                       Count(R * PerRank), PerRank, Root);
  case CollectiveKind::Gather:
    return fmt::format("{} ({} from each rank, to root rank {})",
                       Count(R * PerRank), PerRank, Root);
  case CollectiveKind::ReduceScatter:
    return fmt::format("{} ({} for each rank)", Count(R * PerRank), PerRank);
  case CollectiveKind::AllGather:
  case CollectiveKind::AllReduce:
    return fmt::format("{} ({} per rank)", Count(R * PerRank), PerRank);
  }
  return Count(R * PerRank);
}

std::vector<CollectiveKind> tacclc::ir::allCollectives() {
  std::vector<CollectiveKind> Out;
  for (const KindName &N : KindNames)
    Out.push_back(N.Kind);
  return Out;
}

bool tacclc::ir::isRooted(CollectiveKind K) {
  return K == CollectiveKind::Broadcast || K == CollectiveKind::Scatter ||
         K == CollectiveKind::Gather || K == CollectiveKind::Reduce;
}

bool tacclc::ir::isCombining(CollectiveKind K) {
  return K == CollectiveKind::ReduceScatter || K == CollectiveKind::Reduce ||
         K == CollectiveKind::AllReduce;
}

double tacclc::ir::busBandwidthFactor(CollectiveKind K, unsigned N) {
  double R = N;
  switch (K) {
  case CollectiveKind::AllReduce:
    return 2 * (R - 1) / R;
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    return 1;
  default:
    return (R - 1) / R;
  }
}

Collective Collective::allGather(unsigned NumRanks, unsigned ChunksPerRank) {
  return make(CollectiveKind::AllGather, NumRanks, ChunksPerRank);
}

Collective Collective::make(CollectiveKind Kind, unsigned NumRanks,
                            unsigned ChunksPerRank, RankId Root) {
  Collective C;
  C.Kind = Kind;
  C.Root = Root;
  C.NumRanks = NumRanks;
  C.ChunksPerRank = ChunksPerRank;
  const unsigned R = NumRanks, K = ChunksPerRank;
  std::vector<RankId> All;
  for (unsigned I = 0; I < R; ++I)
    All.push_back(RankId(I));
  auto Add = [&](std::vector<RankId> Pre, unsigned In, unsigned Out,
                 std::vector<RankId> Post) {
    assert(std::is_sorted(Pre.begin(), Pre.end()) &&
           std::is_sorted(Post.begin(), Post.end()));
    Chunk Ch;
    Ch.Source = Pre.front();
    Ch.InputIndex = In;
    Ch.OutputIndex = Out;
    Ch.Pre = std::move(Pre);
    Ch.Post = std::move(Post);
    C.Chunks.push_back(std::move(Ch));
  };
  switch (Kind) {
  case CollectiveKind::AllGather:
    C.InputChunks = K;
    C.OutputChunks = R * K;
    for (unsigned S = 0; S < R; ++S)
      for (unsigned J = 0; J < K; ++J)
        Add({RankId(S)}, J, S * K + J, All);
    break;
  case CollectiveKind::AllToAll:
    C.InputChunks = C.OutputChunks = R * K;
    for (unsigned S = 0; S < R; ++S)
      for (unsigned D = 0; D < R; ++D)
        for (unsigned J = 0; J < K; ++J)
          Add({RankId(S)}, D * K + J, S * K + J, {RankId(D)});
    break;
  case CollectiveKind::Broadcast:
    C.InputChunks = C.OutputChunks = K;
    for (unsigned J = 0; J < K; ++J)
      Add({Root}, J, J, All);
    break;
  case CollectiveKind::Scatter:
    C.InputChunks = R * K;
    C.OutputChunks = K;
    for (unsigned D = 0; D < R; ++D)
      for (unsigned J = 0; J < K; ++J)
        Add({Root}, D * K + J, J, {RankId(D)});
    break;
  case CollectiveKind::Gather:
    C.InputChunks = K;
    C.OutputChunks = R * K;
    for (unsigned S = 0; S < R; ++S)
      for (unsigned J = 0; J < K; ++J)
        Add({RankId(S)}, J, S * K + J, {Root});
    break;
  case CollectiveKind::ReduceScatter:
    C.InputChunks = R * K;
    C.OutputChunks = K;
    for (unsigned D = 0; D < R; ++D)
      for (unsigned J = 0; J < K; ++J)
        Add(All, D * K + J, J, {RankId(D)});
    break;
  case CollectiveKind::Reduce:
    C.InputChunks = C.OutputChunks = K;
    for (unsigned J = 0; J < K; ++J)
      Add(All, J, J, {Root});
    break;
  case CollectiveKind::AllReduce:
    C.InputChunks = C.OutputChunks = R * K;
    for (unsigned P = 0; P < R; ++P)
      for (unsigned J = 0; J < K; ++J)
        Add(All, P * K + J, P * K + J, All);
    break;
  }
  return C;
}

unsigned Collective::getSizeParts() const {
  return std::max(InputChunks, OutputChunks);
}

// Pre and Post are sorted (make() lists ranks in order): a binary search
// keeps these O(log R) for chunks every rank holds or needs.
bool Collective::isPre(ChunkId C, RankId R) const {
  const auto &Pre = chunk(C).Pre;
  return std::binary_search(Pre.begin(), Pre.end(), R);
}

bool Collective::isPost(ChunkId C, RankId R) const {
  const auto &Post = chunk(C).Post;
  return std::binary_search(Post.begin(), Post.end(), R);
}

double Collective::chunkBytes(double SizeBytes) const {
  return SizeBytes / getSizeParts();
}
