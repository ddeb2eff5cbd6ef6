//===- tests/unit/runtime/HalfFloatsTest.cpp - float16 and bfloat16 -------===//
//
// The CPU executor's 16-bit floats against known encodings: exact values,
// the largest finite ones, overflow to infinity, subnormals, ties rounding
// to even, NaN, and every float16 surviving a round trip through float.
//
//===----------------------------------------------------------------------===//
#include "exec/HalfFloats.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace tacclrt;

TEST_CASE("float16 encodes like IEEE binary16") {
  CHECK(Float16(0.0f).Bits == 0x0000);
  CHECK(Float16(-0.0f).Bits == 0x8000);
  CHECK(Float16(1.0f).Bits == 0x3c00);
  CHECK(Float16(-2.0f).Bits == 0xc000);
  CHECK(Float16(0.1f).Bits == 0x2e66);
  CHECK(Float16(65504.0f).Bits == 0x7bff); // largest finite
  CHECK(Float16(65519.0f).Bits == 0x7bff); // rounds down
  CHECK(Float16(65520.0f).Bits == 0x7c00); // the tie goes to infinity
  CHECK(Float16(1e9f).Bits == 0x7c00);
  CHECK(Float16(std::ldexp(1.0f, -24)).Bits == 0x0001); // smallest subnormal
  CHECK(Float16(std::ldexp(1.0f, -25)).Bits == 0x0000); // tie to even: 0
  CHECK(Float16(std::ldexp(3.0f, -25)).Bits == 0x0002); // tie to even: 2
  CHECK(Float16(std::ldexp(1.0f, -14)).Bits == 0x0400); // smallest normal
  // 2049 is halfway between 2048 and 2050: ties to even (2048).
  CHECK(Float16(2049.0f).toFloat() == 2048.0f);
  CHECK(Float16(2051.0f).toFloat() == 2052.0f);
  CHECK(std::isnan(Float16(std::numeric_limits<float>::quiet_NaN()).toFloat()));
  CHECK(std::isinf(Float16(-1e9f).toFloat()));
  // Every encoding but NaN survives a round trip.
  for (unsigned B = 0; B < 0x10000; ++B) {
    Float16 H;
    H.Bits = static_cast<std::uint16_t>(B);
    if (std::isnan(H.toFloat()))
      continue;
    CAPTURE(B);
    REQUIRE(Float16(H.toFloat()).Bits == B);
  }
}

TEST_CASE("bfloat16 is a rounded upper half of a float") {
  CHECK(BFloat16(1.0f).Bits == 0x3f80);
  CHECK(BFloat16(-2.0f).Bits == 0xc000);
  CHECK(BFloat16(257.0f).toFloat() == 256.0f); // tie to even
  CHECK(BFloat16(259.0f).toFloat() == 260.0f); // tie to even
  CHECK(BFloat16(256.0f + 1.5f).toFloat() == 258.0f);
  CHECK(std::isinf(BFloat16(std::numeric_limits<float>::max()).toFloat()));
  CHECK(
      std::isnan(BFloat16(std::numeric_limits<float>::quiet_NaN()).toFloat()));
  for (unsigned B = 0; B < 0x10000; ++B) {
    BFloat16 H;
    H.Bits = static_cast<std::uint16_t>(B);
    if (std::isnan(H.toFloat()))
      continue;
    CAPTURE(B);
    REQUIRE(BFloat16(H.toFloat()).Bits == B);
  }
}
