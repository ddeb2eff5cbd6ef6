//===- exec/DataTypes.h - Element ops of the CPU executor -------*- C++ -*-===//
//
// Internal to the CPU executor, which moves untyped bytes. Everything that
// depends on the element type (reduction, the deterministic input pattern,
// the reference value, the "never written" sentinel, comparison, printing)
// sits behind one TypeOps table per supported DataType. Adding a type means
// adding one table entry.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DATATYPES_H
#define TACCLC_EXEC_DATATYPES_H

#include "format/Call.h"
#include "format/Collective.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tacclrt {

/// Type-dependent element operations.
struct TypeOps {
  /// The type.
  DataType Type;
  /// Bytes per element.
  std::size_t Size;
  /// Dst[k] = A[k] (op) B[k] for k < N (Dst may alias A or B).
  void (*Reduce)(ReduceOp Op, std::byte *Dst, const std::byte *A,
                 const std::byte *B, std::size_t N);
  /// Writes the input pattern of \p Rank for elements First..First+N-1.
  void (*FillInput)(ReduceOp Op, unsigned Rank, std::uint64_t First,
                    std::byte *Dst, std::size_t N);
  /// Writes the sentinel of never-written memory into N elements.
  void (*FillSentinel)(std::byte *Dst, std::size_t N);
  /// Writes into \p Dst the reference value of an element with source
  /// \p Src among \p NRanks ranks.
  void (*Reference)(ReduceOp Op, const ElementSource &Src, unsigned NRanks,
                    std::byte *Dst);
  /// Exact equality of two elements.
  bool (*Equal)(const std::byte *A, const std::byte *B);
  /// True when the element holds the sentinel.
  bool (*IsSentinel)(const std::byte *A);
  /// Prints one element.
  std::string (*Print)(const std::byte *A);
};

/// The operations of \p T, or nullptr when the CPU executor does not support
/// that type yet.
const TypeOps *typeOps(DataType T);

} // namespace tacclrt

#endif // TACCLC_EXEC_DATATYPES_H
