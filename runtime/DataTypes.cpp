//===- runtime/DataTypes.cpp - Element operations of the CPU executor -----===//
//
// One template instantiated per supported type. Inputs are small integers
// derived from a hash of (rank, element index), so every sum, product, min
// and max is exact in any supported type and independent of the reduction
// order: sums and min/max use values 0..4095, products use 1 or 2. Integer
// arithmetic wraps (as on the GPU) instead of overflowing.
//
//===----------------------------------------------------------------------===//
#include "DataTypes.h"

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

/// Sentinel stored in memory no operation wrote; never a pattern value.
constexpr int SentinelValue = -7777;

template <typename T> T load(const std::byte *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

template <typename T> void store(std::byte *P, T V) {
  std::memcpy(P, &V, sizeof(T));
}

template <typename T> T apply(ReduceOp Op, T A, T B) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (Op) {
    case ReduceOp::Sum:
      return static_cast<T>(static_cast<U>(A) + static_cast<U>(B));
    case ReduceOp::Prod:
      return static_cast<T>(static_cast<U>(A) * static_cast<U>(B));
    default:
      break;
    }
  } else {
    switch (Op) {
    case ReduceOp::Sum:
      return A + B;
    case ReduceOp::Prod:
      return A * B;
    default:
      break;
    }
  }
  if (Op == ReduceOp::Min)
    return std::min(A, B);
  return std::max(A, B);
}

template <typename T> T pattern(ReduceOp Op, unsigned Rank, std::uint64_t I) {
  std::uint64_t H = mix((static_cast<std::uint64_t>(Rank) << 40) ^ I);
  if (Op == ReduceOp::Prod)
    return static_cast<T>(1 + (H & 1));
  return static_cast<T>(H % 4096);
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

template <typename T> void fillSentinel(std::byte *Dst, std::size_t N) {
  for (std::size_t K = 0; K < N; ++K)
    store<T>(Dst + K * sizeof(T), static_cast<T>(SentinelValue));
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

template <typename T> bool equal(const std::byte *A, const std::byte *B) {
  return load<T>(A) == load<T>(B);
}

template <typename T> bool isSentinel(const std::byte *A) {
  return load<T>(A) == static_cast<T>(SentinelValue);
}

template <typename T> std::string print(const std::byte *A) {
  return fmt::format("{}", load<T>(A));
}

template <typename T> constexpr TypeOps makeOps(DataType Type) {
  return TypeOps{Type,          sizeof(T),        &reduceN<T>,
                 &fillInput<T>, &fillSentinel<T>, &reference<T>,
                 &equal<T>,     &isSentinel<T>,   &print<T>};
}

constexpr TypeOps Float32Ops = makeOps<float>(DataType::Float32);
constexpr TypeOps Float64Ops = makeOps<double>(DataType::Float64);
constexpr TypeOps Int32Ops = makeOps<std::int32_t>(DataType::Int32);

} // namespace

const TypeOps *typeOps(DataType T) {
  switch (T) {
  case DataType::Float32:
    return &Float32Ops;
  case DataType::Float64:
    return &Float64Ops;
  case DataType::Int32:
    return &Int32Ops;
  default:
    return nullptr;
  }
}

std::string_view nameOf(DataType T) {
  switch (T) {
  case DataType::Int8:
    return "int8";
  case DataType::UInt8:
    return "uint8";
  case DataType::Int32:
    return "int32";
  case DataType::UInt32:
    return "uint32";
  case DataType::Int64:
    return "int64";
  case DataType::UInt64:
    return "uint64";
  case DataType::Float16:
    return "float16";
  case DataType::Float32:
    return "float32";
  case DataType::Float64:
    return "float64";
  case DataType::BFloat16:
    return "bfloat16";
  }
  return "?";
}

std::size_t sizeOf(DataType T) {
  switch (T) {
  case DataType::Int8:
  case DataType::UInt8:
    return 1;
  case DataType::Float16:
  case DataType::BFloat16:
    return 2;
  case DataType::Int32:
  case DataType::UInt32:
  case DataType::Float32:
    return 4;
  case DataType::Int64:
  case DataType::UInt64:
  case DataType::Float64:
    return 8;
  }
  return 1;
}

} // namespace tacclrt
