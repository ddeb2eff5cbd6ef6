//===- format/Collective.h - Collective semantics ---------------*- C++ -*-===//
//
// The reference semantics of each NCCL collective, independent of any XML:
// given the collective, the number of ranks, the root, the in-place flag and
// NCCL's `count`, describe every rank's input (sendbuff) and output
// (recvbuff) buffer, how the two alias for in-place calls, which of them a
// rooted collective leaves undefined, and where each output element must
// come from. The checker uses it at chunk granularity, the CPU executor at
// element granularity.
//
// MSCCL files carry no root: the runtimes run a broadcast, reduce, gather or
// scatter file for whatever root the call names. tacclc writes the root the
// algorithm was built for as an extra `root` attribute (ignored by both
// runtimes); without one the checker finds the root the file works for.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_COLLECTIVE_H
#define TACCLC_FORMAT_COLLECTIVE_H

#include "format/Diagnostic.h"
#include "format/Plan.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace tacclrt {

/// The reduction operator of an NCCL call.
enum class ReduceOp {
#define TACCLRT_REDUCE_OP(E, Name) E,
#include "format/Vocabulary.def"
};

/// "sum", "prod", "min", "max" or "avg".
std::string_view nameOf(ReduceOp Op);
/// The reduction named \p Name as nameOf() writes it, or nothing.
std::optional<ReduceOp> parseReduceOp(std::string_view Name);

/// How `i` and `o` share memory in a call.
enum class Aliasing {
  None,          ///< Out-of-place: two separate buffers.
  SameBuffer,    ///< In-place allreduce / alltoall: sendbuff == recvbuff.
  InputInOutput, ///< In-place allgather: sendbuff == recvbuff + rank*count.
  OutputInInput  ///< In-place reducescatter: recvbuff == sendbuff + rank*count.
};

/// The buffers of one call of a collective, per rank, in elements.
struct CollectiveLayout {
  /// The collective.
  CollKind Coll = CollKind::AllReduce;
  /// Number of ranks.
  unsigned NRanks = 1;
  /// NCCL's `count` argument (per rank / per peer as NCCL defines it).
  std::uint64_t Count = 0;
  /// True for an in-place call.
  bool InPlace = false;
  /// nRanks for allgather, reducescatter and alltoall, else 1.
  std::uint64_t SizeMultiplier = 1;
  /// Count * SizeMultiplier: the runtime's count_total.
  std::uint64_t TotalCount = 0;
  /// Elements of each rank's input buffer (`i`).
  std::uint64_t InputCount = 0;
  /// Elements of each rank's output buffer (`o`).
  std::uint64_t OutputCount = 0;
  /// How `i` and `o` alias.
  Aliasing Alias = Aliasing::None;
  /// The root of broadcast, reduce, gather and scatter (0 otherwise).
  unsigned Root = 0;

  /// For InputInOutput and OutputInInput: the element offset of the inner
  /// buffer inside the outer one on \p Rank (rank * count); 0 otherwise.
  std::uint64_t aliasOffset(unsigned Rank) const;
};

/// Where one output element comes from.
struct ElementSource {
  /// True: the reduction over all ranks of input element Index. False: a
  /// copy of input element Index of rank Rank.
  bool Reduced = false;
  /// The source rank (copies only).
  unsigned Rank = 0;
  /// The input element index.
  std::uint64_t Index = 0;
  /// False where the collective defines no result (the output of a
  /// non-root rank of reduce and gather).
  bool Checked = true;
};

/// nRanks for allgather, reducescatter and alltoall; 1 for the others
/// (gather and scatter included: their `count` is one rank's part).
std::uint64_t sizeMultiplier(CollKind C, unsigned NRanks);

/// nccl-tests' bus bandwidth factor (busbw = algbw x factor): 2(N-1)/N for
/// allreduce, 1 for broadcast and reduce, (N-1)/N for the others.
double busBandwidthFactor(CollKind C, unsigned NRanks);

/// True when the collective reduces (allreduce, reducescatter, reduce).
bool isReduction(CollKind C);

/// True for broadcast, reduce, gather and scatter.
bool isRooted(CollKind C);

/// True when describeCollective() supports \p C (the eight collectives of
/// NCCL and MSCCL: not alltoallv, send, recv or custom).
bool isSupportedCollective(CollKind C);

/// Describes one call. For an unsupported collective, NRanks == 0,
/// Count == 0 or a root out of range, appends an error to \p Out
/// (labelled with \p FileName) and returns std::nullopt.
std::optional<CollectiveLayout>
describeCollective(CollKind C, unsigned NRanks, std::uint64_t Count,
                   bool InPlace, Report &Out, std::string_view FileName = {},
                   unsigned Root = 0);

/// False where NCCL ignores a rank's sendbuff (non-root ranks of broadcast
/// and scatter, in place or not): its content is undefined.
bool inputDefined(const CollectiveLayout &L, unsigned Rank);

/// False where a caller need not provide a recvbuff at all (non-root ranks
/// of reduce and gather): an algorithm must not write it.
bool outputWritable(const CollectiveLayout &L, unsigned Rank);

/// The source of output element \p OutIndex (< L.OutputCount) of \p Rank.
ElementSource expectedSource(const CollectiveLayout &L, unsigned Rank,
                             std::uint64_t OutIndex);

} // namespace tacclrt

#endif // TACCLC_FORMAT_COLLECTIVE_H
