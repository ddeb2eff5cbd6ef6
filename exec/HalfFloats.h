//===- exec/HalfFloats.h - float16 and bfloat16 on the host -----*- C++ -*-===//
//
// Internal to the CPU executor: the two 16-bit floating-point formats NCCL
// reduces on GPUs (IEEE binary16 and bfloat16), as storage types with
// exact conversions to float and round-to-nearest-even conversions from
// it. Arithmetic happens in float and is rounded back, which is what the
// GPU does for one reduction step (a sum of two halves is computed exactly
// in float, then rounded once).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_HALFFLOATS_H
#define TACCLC_EXEC_HALFFLOATS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tacclrt {

namespace detail {
inline std::uint32_t bitsOf(float F) {
  std::uint32_t U;
  std::memcpy(&U, &F, sizeof(U));
  return U;
}
inline float floatOf(std::uint32_t U) {
  float F;
  std::memcpy(&F, &U, sizeof(F));
  return F;
}
} // namespace detail

/// IEEE 754 binary16: 1 sign bit, 5 exponent bits, 10 mantissa bits.
struct Float16 {
  std::uint16_t Bits = 0;

  Float16() = default;
  explicit Float16(float F) : Bits(fromFloat(F)) {}

  /// The exact value as a float.
  float toFloat() const {
    std::uint32_t Sign = std::uint32_t(Bits & 0x8000) << 16;
    std::uint32_t Exp = (Bits >> 10) & 0x1f, Mant = Bits & 0x3ff;
    if (Exp == 0) { // zero or subnormal: Mant * 2^-24
      float V = std::ldexp(float(Mant), -24);
      return Sign ? -V : V;
    }
    if (Exp == 31) // infinity or NaN
      return detail::floatOf(Sign | 0x7f800000 | (Mant << 13));
    return detail::floatOf(Sign | ((Exp + 112) << 23) | (Mant << 13));
  }

  /// \p F rounded to the nearest binary16 value, ties to even.
  static std::uint16_t fromFloat(float F) {
    std::uint32_t X = detail::bitsOf(F);
    std::uint16_t Sign = std::uint16_t((X >> 16) & 0x8000);
    std::uint32_t Abs = X & 0x7fffffff;
    if (Abs > 0x7f800000) // NaN: keep it a (quiet) NaN
      return Sign | 0x7e00;
    if (Abs >= 0x477ff000) // 65520 and above round to infinity
      return Sign | 0x7c00;
    if (Abs < 0x38800000) { // below 2^-14: a subnormal half (or zero)
      float Scaled = detail::floatOf(Abs) * 16777216.0f; // exact: * 2^24
      return Sign | std::uint16_t(std::nearbyint(Scaled));
    }
    std::uint32_t Mant = Abs & 0x7fffff;
    std::uint32_t H = (((Abs >> 23) - 112) << 10) | (Mant >> 13);
    std::uint32_t Rest = Mant & 0x1fff;
    if (Rest > 0x1000 || (Rest == 0x1000 && (H & 1)))
      ++H; // a carry into the exponent is the right result
    return Sign | std::uint16_t(H);
  }
};

/// bfloat16: the upper half of a float (8 exponent bits, 7 mantissa bits).
struct BFloat16 {
  std::uint16_t Bits = 0;

  BFloat16() = default;
  explicit BFloat16(float F) : Bits(fromFloat(F)) {}

  /// The exact value as a float.
  float toFloat() const { return detail::floatOf(std::uint32_t(Bits) << 16); }

  /// \p F rounded to the nearest bfloat16 value, ties to even.
  static std::uint16_t fromFloat(float F) {
    std::uint32_t X = detail::bitsOf(F);
    if ((X & 0x7fffffff) > 0x7f800000) // NaN
      return std::uint16_t((X >> 16) | 0x40);
    X += 0x7fff + ((X >> 16) & 1);
    return std::uint16_t(X >> 16);
  }
};

} // namespace tacclrt

#endif // TACCLC_EXEC_HALFFLOATS_H
