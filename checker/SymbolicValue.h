//===- checker/SymbolicValue.h - Chunk values of the checker ----*- C++ -*-===//
//
// Internal to the checker. A SymValue is what one chunk slot holds during
// symbolic execution: uninitialised, or a sorted multiset of contributions
// "input chunk j of rank r" (a plain copy has exactly one). Reducing two
// values merges the multisets and reports a contribution counted twice.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CHECKER_SYMBOLICVALUE_H
#define TACCLC_CHECKER_SYMBOLICVALUE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclrt {

/// "Input chunk Chunk of rank Rank".
struct Contribution {
  /// The rank whose input it is.
  unsigned Rank = 0;
  /// The chunk index inside that rank's input buffer.
  unsigned Chunk = 0;

  /// Orders by chunk, then rank.
  bool operator<(const Contribution &O) const {
    return Chunk != O.Chunk ? Chunk < O.Chunk : Rank < O.Rank;
  }
  /// Equality.
  bool operator==(const Contribution &O) const {
    return Rank == O.Rank && Chunk == O.Chunk;
  }
};

/// The symbolic content of one chunk slot.
struct SymValue {
  /// False for an uninitialised (or garbage-derived) value.
  bool Init = false;
  /// Sorted multiset of contributions; empty when !Init.
  std::vector<Contribution> Parts;
  /// How the reduction was bracketed, up to commutativity (floating-point
  /// addition and multiplication commute but do not associate, so equal
  /// orders give bitwise-equal results): a 64-bit hash of the expression
  /// tree. Not part of equality.
  std::uint64_t Order = 0;

  /// Input chunk \p Chunk of rank \p Rank.
  static SymValue input(unsigned Rank, unsigned Chunk);
  /// Equality of the values (uninitialised values are all equal), whatever
  /// the order of reduction.
  bool operator==(const SymValue &O) const {
    return Init == O.Init && Parts == O.Parts;
  }
  /// Inequality.
  bool operator!=(const SymValue &O) const { return !(*this == O); }
};

/// A (+) B. An uninitialised operand poisons the result. \p Dup receives
/// a contribution present in both operands, if any.
SymValue reduceValues(const SymValue &A, const SymValue &B,
                      std::optional<Contribution> &Dup);

/// Human-readable form: "input chunk 1 of rank 0", "the reduction of input
/// chunk 2 of all 4 ranks", "an uninitialised value", ...
std::string describe(const SymValue &V, unsigned NRanks);

/// "input chunk J of rank R".
std::string describe(const Contribution &C);

} // namespace tacclrt

#endif // TACCLC_CHECKER_SYMBOLICVALUE_H
