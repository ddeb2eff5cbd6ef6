//===- exec/DataTypes.cpp - Element operations of the CPU executor --------===//
//
// One template instantiated per type NCCL reduces (8-, 32- and 64-bit
// integers, float16, bfloat16, float32, float64). Inputs are small integers
// derived from a hash of (rank, element index), so every sum, product, min
// and max is exact and independent of the reduction order: sums and min/max
// use values 0..4095 (0..127 for 8-bit integers, 0..7 for float16, 0..1 for
// bfloat16, so that sums over 256 ranks stay exact), products use 1 or 2
// (powers of two: exact until they overflow to infinity, in any order).
// Integer arithmetic wraps (as on the GPU) instead of overflowing.
//
//===----------------------------------------------------------------------===//
#include "exec/DataTypes.h"
#include "exec/HalfFloats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace tacclrt {

namespace {

std::uint64_t mix(std::uint64_t X) {
  X += 0x9e3779b97f4a7c15ULL;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

/// Sentinel stored in memory no operation wrote; never a pattern value of
/// the wider types (8-bit sums wrap onto every value, so there it only
/// labels a wrong element "never written" when it most likely was not).
constexpr int SentinelValue = -7777;

/// How an element type is stored and computed with: Arith is the type the
/// arithmetic happens in (float for the 16-bit floats, rounded back after
/// each operation as on the GPU), and Range bounds the input pattern so
/// that every sum over up to 256 ranks is exact (2048 is the largest
/// integer float16 holds exactly with its neighbours, 256 for bfloat16).
template <typename T> struct Elem {
  using Arith = T;
  static constexpr std::uint64_t Range = sizeof(T) == 1 ? 128 : 4096;
  static T make(Arith V) { return V; }
  static Arith get(T V) { return V; }
};
template <> struct Elem<Float16> {
  using Arith = float;
  static constexpr std::uint64_t Range = 8;
  static Float16 make(float V) { return Float16(V); }
  static float get(Float16 V) { return V.toFloat(); }
};
template <> struct Elem<BFloat16> {
  using Arith = float;
  static constexpr std::uint64_t Range = 2;
  static BFloat16 make(float V) { return BFloat16(V); }
  static float get(BFloat16 V) { return V.toFloat(); }
};

template <typename T> T load(const std::byte *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

template <typename T> void store(std::byte *P, T V) {
  std::memcpy(P, &V, sizeof(T));
}

template <typename A> A applyArith(ReduceOp Op, A X, A Y) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    switch (Op) {
    case ReduceOp::Sum:
      return static_cast<A>(static_cast<U>(X) + static_cast<U>(Y));
    case ReduceOp::Prod:
      return static_cast<A>(static_cast<U>(X) * static_cast<U>(Y));
    default:
      break;
    }
  } else {
    switch (Op) {
    case ReduceOp::Sum:
      return X + Y;
    case ReduceOp::Prod:
      return X * Y;
    default:
      break;
    }
  }
  if (Op == ReduceOp::Min)
    return std::min(X, Y);
  return std::max(X, Y);
}

template <typename T> T apply(ReduceOp Op, T X, T Y) {
  return Elem<T>::make(applyArith(Op, Elem<T>::get(X), Elem<T>::get(Y)));
}

template <typename T> T pattern(ReduceOp Op, unsigned Rank, std::uint64_t I) {
  using A = typename Elem<T>::Arith;
  std::uint64_t H = mix((static_cast<std::uint64_t>(Rank) << 40) ^ I);
  if (Op == ReduceOp::Prod)
    return Elem<T>::make(static_cast<A>(1 + (H & 1)));
  return Elem<T>::make(static_cast<A>(H % Elem<T>::Range));
}

template <typename T>
void reduceN(ReduceOp Op, std::byte *Dst, const std::byte *A,
             const std::byte *B, std::size_t N) {
  for (std::size_t K = 0; K < N; ++K)
    store<T>(Dst + K * sizeof(T), apply<T>(Op, load<T>(A + K * sizeof(T)),
                                           load<T>(B + K * sizeof(T))));
}

template <typename T>
void fillInput(ReduceOp Op, unsigned Rank, std::uint64_t First, std::byte *Dst,
               std::size_t N) {
  for (std::size_t K = 0; K < N; ++K)
    store<T>(Dst + K * sizeof(T), pattern<T>(Op, Rank, First + K));
}

/// The sentinel in T (unsigned types wrap it, as intended).
template <typename T> T sentinel() {
  return Elem<T>::make(static_cast<typename Elem<T>::Arith>(SentinelValue));
}

template <typename T> void fillSentinel(std::byte *Dst, std::size_t N) {
  const T S = sentinel<T>();
  for (std::size_t K = 0; K < N; ++K)
    store<T>(Dst + K * sizeof(T), S);
}

template <typename T>
void reference(ReduceOp Op, const ElementSource &Src, unsigned NRanks,
               std::byte *Dst) {
  if (!Src.Reduced) {
    store<T>(Dst, pattern<T>(Op, Src.Rank, Src.Index));
    return;
  }
  T Acc = pattern<T>(Op, 0, Src.Index);
  for (unsigned Q = 1; Q < NRanks; ++Q)
    Acc = apply<T>(Op, Acc, pattern<T>(Op, Q, Src.Index));
  store<T>(Dst, Acc);
}

/// Bitwise equality: the results are exact, so the GPU's bits are the
/// reference's bits (and a NaN is never a right answer).
template <typename T> bool equal(const std::byte *A, const std::byte *B) {
  return std::memcmp(A, B, sizeof(T)) == 0 &&
         Elem<T>::get(load<T>(A)) == Elem<T>::get(load<T>(A));
}

template <typename T> bool isSentinel(const std::byte *A) {
  const T S = sentinel<T>();
  return std::memcmp(A, &S, sizeof(T)) == 0;
}

template <typename T> std::string print(const std::byte *A) {
  auto V = Elem<T>::get(load<T>(A));
  using Value = decltype(V);
  if constexpr (std::is_integral_v<Value> && std::is_signed_v<Value>)
    return fmt::format("{}", static_cast<std::int64_t>(V)); // not as a char
  else if constexpr (std::is_integral_v<Value>)
    return fmt::format("{}", static_cast<std::uint64_t>(V));
  else
    return fmt::format("{}", V);
}

template <typename T> constexpr TypeOps makeOps(DataType Type) {
  return TypeOps{Type,          sizeof(T),        &reduceN<T>,
                 &fillInput<T>, &fillSentinel<T>, &reference<T>,
                 &equal<T>,     &isSentinel<T>,   &print<T>};
}

constexpr TypeOps Int8Ops = makeOps<std::int8_t>(DataType::Int8);
constexpr TypeOps UInt8Ops = makeOps<std::uint8_t>(DataType::UInt8);
constexpr TypeOps Int32Ops = makeOps<std::int32_t>(DataType::Int32);
constexpr TypeOps UInt32Ops = makeOps<std::uint32_t>(DataType::UInt32);
constexpr TypeOps Int64Ops = makeOps<std::int64_t>(DataType::Int64);
constexpr TypeOps UInt64Ops = makeOps<std::uint64_t>(DataType::UInt64);
constexpr TypeOps Float16Ops = makeOps<Float16>(DataType::Float16);
constexpr TypeOps Float32Ops = makeOps<float>(DataType::Float32);
constexpr TypeOps Float64Ops = makeOps<double>(DataType::Float64);
constexpr TypeOps BFloat16Ops = makeOps<BFloat16>(DataType::BFloat16);

} // namespace

const TypeOps *typeOps(DataType T) {
  switch (T) {
  case DataType::Int8:
    return &Int8Ops;
  case DataType::UInt8:
    return &UInt8Ops;
  case DataType::Int32:
    return &Int32Ops;
  case DataType::UInt32:
    return &UInt32Ops;
  case DataType::Int64:
    return &Int64Ops;
  case DataType::UInt64:
    return &UInt64Ops;
  case DataType::Float16:
    return &Float16Ops;
  case DataType::Float32:
    return &Float32Ops;
  case DataType::Float64:
    return &Float64Ops;
  case DataType::BFloat16:
    return &BFloat16Ops;
  }
  return nullptr;
}

} // namespace tacclrt
