//===- ir/Ids.h - Strongly typed indices for IR entities --------*- C++ -*-===//
//
// IR entities live in vectors and refer to each other by index. Wrapping each
// index in its own type (RankId, LinkId, ChunkId) makes it a compile error to
// pass a chunk where a rank is expected, at no runtime cost.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_IDS_H
#define TACCLC_IR_IDS_H

#include <cstdint>
#include <limits>

namespace tacclc::ir {

/// A typed index. \p Tag only distinguishes the types.
template <typename Tag> struct Id {
  uint32_t Value = std::numeric_limits<uint32_t>::max();

  constexpr Id() = default;
  constexpr explicit Id(uint32_t V) : Value(V) {}
  /// True unless default-constructed.
  constexpr bool isValid() const {
    return Value != std::numeric_limits<uint32_t>::max();
  }
  constexpr uint32_t index() const { return Value; }
  friend constexpr bool operator==(Id A, Id B) { return A.Value == B.Value; }
  friend constexpr bool operator!=(Id A, Id B) { return A.Value != B.Value; }
  friend constexpr bool operator<(Id A, Id B) { return A.Value < B.Value; }
};

/// A GPU (an MSCCL rank).
using RankId = Id<struct RankTag>;
/// A directed link of the topology.
using LinkId = Id<struct LinkTag>;
/// A chunk of the collective's data.
using ChunkId = Id<struct ChunkTag>;

} // namespace tacclc::ir

#endif // TACCLC_IR_IDS_H
