//===- frontend/Units.cpp - Unit conversion tables ------------------------===//
//
// One table per dimension, read by the conversions and listed for editors;
// an inverse bandwidth is a time unit over a size unit, a bandwidth a size
// unit over a time unit.
//
//===----------------------------------------------------------------------===//
#include "frontend/Units.h"

using namespace tacclc;

namespace {

struct Scale {
  const char *Name;
  double Factor;
};

/// Microseconds per time unit.
constexpr Scale TimeScales[] = {
    {"ns", 1e-3}, {"us", 1.0}, {"ms", 1e3}, {"s", 1e6}};
/// Bytes per size unit.
constexpr Scale SizeScales[] = {{"B", 1.0},
                                {"KB", 1e3},
                                {"MB", 1e6},
                                {"GB", 1e9},
                                {"KiB", 1024.0},
                                {"MiB", 1024.0 * 1024.0},
                                {"GiB", 1024.0 * 1024.0 * 1024.0}};

template <size_t N>
std::optional<double> find(const Scale (&Table)[N], llvm::StringRef Unit) {
  for (const Scale &S : Table)
    if (Unit == S.Name)
      return S.Factor;
  return std::nullopt;
}

template <size_t N>
std::vector<llvm::StringRef> names(const Scale (&Table)[N]) {
  std::vector<llvm::StringRef> Out;
  for (const Scale &S : Table)
    Out.push_back(S.Name);
  return Out;
}

} // namespace

std::optional<double> tacclc::timeUnitInUs(llvm::StringRef Unit) {
  return find(TimeScales, Unit);
}

std::optional<double> tacclc::sizeUnitInBytes(llvm::StringRef Unit) {
  return find(SizeScales, Unit);
}

std::vector<llvm::StringRef> tacclc::timeUnitNames() {
  return names(TimeScales);
}

std::vector<llvm::StringRef> tacclc::sizeUnitNames() {
  return names(SizeScales);
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
