//===- frontend/Units.cpp - Unit conversion tables ------------------------===//
//
// Lookup tables for time and size units; an inverse bandwidth is a time unit
// over a size unit, a bandwidth a size unit over a time unit.
//
//===----------------------------------------------------------------------===//
#include "frontend/Units.h"

using namespace tacclc;

std::optional<double> tacclc::timeUnitInUs(llvm::StringRef Unit) {
  if (Unit == "ns")
    return 1e-3;
  if (Unit == "us")
    return 1.0;
  if (Unit == "ms")
    return 1e3;
  if (Unit == "s")
    return 1e6;
  return std::nullopt;
}

std::optional<double> tacclc::sizeUnitInBytes(llvm::StringRef Unit) {
  if (Unit == "B")
    return 1.0;
  if (Unit == "KB")
    return 1e3;
  if (Unit == "MB")
    return 1e6;
  if (Unit == "GB")
    return 1e9;
  if (Unit == "KiB")
    return 1024.0;
  if (Unit == "MiB")
    return 1024.0 * 1024.0;
  if (Unit == "GiB")
    return 1024.0 * 1024.0 * 1024.0;
  return std::nullopt;
}

std::optional<double> tacclc::toUsPerByte(double Value, llvm::StringRef Unit) {
  auto [Num, Den] = Unit.split('/');
  if (Den.empty())
    return std::nullopt;
  if (auto T = timeUnitInUs(Num))
    if (auto S = sizeUnitInBytes(Den))
      return Value * *T / *S;
  if (auto S = sizeUnitInBytes(Num))
    if (auto T = timeUnitInUs(Den)) {
      if (Value <= 0)
        return std::nullopt;
      return *T / (Value * *S);
    }
  return std::nullopt;
}
