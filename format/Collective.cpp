//===- format/Collective.cpp - Collective semantics -----------------------===//
//
// Buffer shapes, NCCL in-place aliasing and the element-wise definition of
// the eight collectives, following NCCL (RCCL for gather and scatter) and
// the MSCCL runtime's sizeMultiplier rule. Nothing here looks at a plan.
//
//===----------------------------------------------------------------------===//
#include "format/Collective.h"

#include "format/IssueSink.h"

#include <fmt/format.h>

namespace tacclrt {

std::string_view nameOf(ReduceOp Op) {
  switch (Op) {
#define TACCLRT_REDUCE_OP(E, Name)                                             \
  case ReduceOp::E:                                                            \
    return Name;
#include "format/Vocabulary.def"
  }
  return "?";
}

std::optional<ReduceOp> parseReduceOp(std::string_view Name) {
#define TACCLRT_REDUCE_OP(E, N)                                                \
  if (Name == N)                                                               \
    return ReduceOp::E;
#include "format/Vocabulary.def"
  return std::nullopt;
}

double busBandwidthFactor(CollKind C, unsigned NRanks) {
  double N = NRanks;
  switch (C) {
  case CollKind::AllReduce:
    return 2 * (N - 1) / N;
  case CollKind::Broadcast:
  case CollKind::Reduce:
    return 1;
  default:
    return (N - 1) / N;
  }
}

std::uint64_t sizeMultiplier(CollKind C, unsigned NRanks) {
  switch (C) {
  case CollKind::AllGather:
  case CollKind::ReduceScatter:
  case CollKind::AllToAll:
    return NRanks;
  default:
    return 1;
  }
}

bool isReduction(CollKind C) {
  return C == CollKind::AllReduce || C == CollKind::ReduceScatter ||
         C == CollKind::Reduce;
}

bool isRooted(CollKind C) {
  return C == CollKind::Broadcast || C == CollKind::Reduce ||
         C == CollKind::Gather || C == CollKind::Scatter;
}

bool isSupportedCollective(CollKind C) {
  return C == CollKind::AllGather || C == CollKind::AllToAll ||
         C == CollKind::AllReduce || C == CollKind::ReduceScatter ||
         isRooted(C);
}

bool inputDefined(const CollectiveLayout &L, unsigned Rank) {
  return Rank == L.Root ||
         (L.Coll != CollKind::Broadcast && L.Coll != CollKind::Scatter);
}

bool outputWritable(const CollectiveLayout &L, unsigned Rank) {
  return Rank == L.Root ||
         (L.Coll != CollKind::Reduce && L.Coll != CollKind::Gather);
}

std::uint64_t CollectiveLayout::aliasOffset(unsigned Rank) const {
  if (Alias == Aliasing::InputInOutput || Alias == Aliasing::OutputInInput)
    return static_cast<std::uint64_t>(Rank) * Count;
  return 0;
}

std::optional<CollectiveLayout> describeCollective(CollKind C, unsigned NRanks,
                                                   std::uint64_t Count,
                                                   bool InPlace, Report &Out,
                                                   std::string_view FileName,
                                                   unsigned Root) {
  IssueSink Sink(Out, FileName);
  if (!isSupportedCollective(C)) {
    Sink.report<MsgId::CollectiveNotSupported>(Where(), nameOf(C));
    return std::nullopt;
  }
  if (isRooted(C) && Root >= NRanks) {
    Sink.report<MsgId::CallRootNotARank>(Where(), Root, nameOf(C), NRanks);
    return std::nullopt;
  }
  if (NRanks == 0 || Count == 0) {
    Sink.report<MsgId::EmptyCall>(Where(), nameOf(C), NRanks, Count);
    return std::nullopt;
  }
  CollectiveLayout L;
  L.Coll = C;
  L.NRanks = NRanks;
  L.Count = Count;
  L.InPlace = InPlace;
  L.Root = isRooted(C) ? Root : 0;
  L.SizeMultiplier = sizeMultiplier(C, NRanks);
  L.TotalCount = Count * L.SizeMultiplier;
  switch (C) {
  case CollKind::AllGather:
    L.InputCount = Count;
    L.OutputCount = Count * NRanks;
    L.Alias = InPlace ? Aliasing::InputInOutput : Aliasing::None;
    break;
  case CollKind::ReduceScatter:
    L.InputCount = Count * NRanks;
    L.OutputCount = Count;
    L.Alias = InPlace ? Aliasing::OutputInInput : Aliasing::None;
    break;
  case CollKind::AllToAll:
    L.InputCount = Count * NRanks;
    L.OutputCount = Count * NRanks;
    L.Alias = InPlace ? Aliasing::SameBuffer : Aliasing::None;
    break;
  case CollKind::Gather: // count = one rank's part, as RCCL's ncclGather
    L.InputCount = Count;
    L.OutputCount = Count * NRanks;
    L.Alias = InPlace ? Aliasing::InputInOutput : Aliasing::None;
    break;
  case CollKind::Scatter: // count = one rank's part, as RCCL's ncclScatter
    L.InputCount = Count * NRanks;
    L.OutputCount = Count;
    L.Alias = InPlace ? Aliasing::OutputInInput : Aliasing::None;
    break;
  default: // AllReduce, Broadcast, Reduce
    L.InputCount = Count;
    L.OutputCount = Count;
    L.Alias = InPlace ? Aliasing::SameBuffer : Aliasing::None;
    break;
  }
  return L;
}

ElementSource expectedSource(const CollectiveLayout &L, unsigned Rank,
                             std::uint64_t OutIndex) {
  ElementSource S;
  switch (L.Coll) {
  case CollKind::AllGather:
    // recvbuff[q*count + e] = sendbuff of rank q [e].
    S.Rank = static_cast<unsigned>(OutIndex / L.Count);
    S.Index = OutIndex % L.Count;
    break;
  case CollKind::AllToAll:
    // recvbuff[q*count + e] = sendbuff of rank q [Rank*count + e].
    S.Rank = static_cast<unsigned>(OutIndex / L.Count);
    S.Index = static_cast<std::uint64_t>(Rank) * L.Count + OutIndex % L.Count;
    break;
  case CollKind::ReduceScatter:
    S.Reduced = true;
    S.Index = static_cast<std::uint64_t>(Rank) * L.Count + OutIndex;
    break;
  case CollKind::Broadcast:
    S.Rank = L.Root;
    S.Index = OutIndex;
    break;
  case CollKind::Reduce:
    S.Reduced = true;
    S.Index = OutIndex;
    S.Checked = Rank == L.Root;
    break;
  case CollKind::Gather:
    // root's recvbuff[q*count + e] = sendbuff of rank q [e].
    S.Rank = static_cast<unsigned>(OutIndex / L.Count);
    S.Index = OutIndex % L.Count;
    S.Checked = Rank == L.Root;
    break;
  case CollKind::Scatter:
    // recvbuff[e] = root's sendbuff [Rank*count + e].
    S.Rank = L.Root;
    S.Index = static_cast<std::uint64_t>(Rank) * L.Count + OutIndex;
    break;
  default: // AllReduce
    S.Reduced = true;
    S.Index = OutIndex;
    break;
  }
  return S;
}

} // namespace tacclrt
