//===- format/Dialect.cpp - The two MSCCL runtimes ------------------------===//
//
// The limits, `coll` spellings and size selection of each runtime
// (format/Dialect.h says where the figures come from).
//
//===----------------------------------------------------------------------===//
#include "format/Dialect.h"

namespace tacclrt {

const DialectLimits &limitsOf(Dialect D) {
  static constexpr DialectLimits Executor{
      /*StepsPerTb=*/64,        /*TbsPerRank=*/1024,
      /*TbsPerChannel=*/32,
      /*Channels=*/32,          /*DependencyTb=*/127,
      /*XmlNodesPerRank=*/4096,
      /*StepCount=*/71,         /*ChunkOffset=*/32767};
  static constexpr DialectLimits Legacy{
      /*StepsPerTb=*/256,       /*TbsPerRank=*/216,
      /*TbsPerChannel=*/32,
      /*Channels=*/32,          /*DependencyTb=*/127,
      /*XmlNodesPerRank=*/4096,
      /*StepCount=*/71,         /*ChunkOffset=*/32767};
  return D == Dialect::Executor ? Executor : Legacy;
}

bool selectsSize(const Algo &A, std::uint64_t Bytes, Dialect D) {
  if (Bytes < A.MinBytes)
    return false;
  if (D == Dialect::Legacy)
    return Bytes < A.MaxBytes;
  return A.MaxBytes == 0 || Bytes <= A.MaxBytes;
}

std::string_view runtimeName(Dialect D) {
  return D == Dialect::Executor ? "executor" : "legacy";
}

unsigned maxStepsPerTb(Dialect D) { return limitsOf(D).StepsPerTb; }

std::string_view collName(CollKind C, Dialect D) {
  if (D == Dialect::Executor)
    return C == CollKind::Custom ? std::string_view() : nameOf(C);
  switch (C) {
  case CollKind::ReduceScatter:
    return "reduce_scatter";
  case CollKind::AllGather:
  case CollKind::AllToAll:
  case CollKind::AllReduce:
  case CollKind::Broadcast:
  case CollKind::Reduce:
  case CollKind::Custom:
    return nameOf(C);
  default:
    return {};
  }
}

std::optional<CollKind> parseCollName(std::string_view Name, Dialect D) {
  for (int I = 0; I <= static_cast<int>(CollKind::Custom); ++I) {
    auto C = static_cast<CollKind>(I);
    std::string_view N = collName(C, D);
    if (!N.empty() && N == Name)
      return C;
  }
  return std::nullopt;
}

} // namespace tacclrt
