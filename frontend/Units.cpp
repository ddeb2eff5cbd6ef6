//===- frontend/Units.cpp - Unit conversion tables ------------------------===//
//
// Lookup tables for time, size and bit units, read by the conversions and
// listed for messages and editors; an inverse bandwidth is a time unit over a
// size unit, a bandwidth a size or bit unit over a time unit. Size units come
// from the command lines' table (support/Sizes.h), spelled out and
// case-sensitive: the sketch language does not take nccl-tests' lone K, M, G.
//
//===----------------------------------------------------------------------===//
#include "frontend/Units.h"

#include "support/Sizes.h"

using namespace tacclc;

namespace {

struct Scale {
  const char *Name;
  double Factor;
};

/// Microseconds per time unit.
constexpr Scale TimeScales[] = {
    {"ns", 1e-3}, {"us", 1.0}, {"ms", 1e3}, {"s", 1e6}};

template <size_t N>
std::optional<double> find(const Scale (&Table)[N], llvm::StringRef Unit) {
  for (const Scale &S : Table)
    if (Unit == S.Name)
      return S.Factor;
  return std::nullopt;
}

} // namespace

std::optional<double> tacclc::timeUnitInUs(llvm::StringRef Unit) {
  return find(TimeScales, Unit);
}

std::optional<double> tacclc::sizeUnitInBytes(llvm::StringRef Unit) {
  // The command lines' table, spelled exactly as it lists a unit.
  for (const ByteUnit &U : byteUnits())
    if (!U.Letter && Unit == U.Name)
      return double(U.Bytes);
  return std::nullopt;
}

std::vector<llvm::StringRef> tacclc::timeUnitNames() {
  std::vector<llvm::StringRef> Out;
  for (const Scale &S : TimeScales)
    Out.push_back(S.Name);
  return Out;
}

std::vector<llvm::StringRef> tacclc::sizeUnitNames() {
  std::vector<llvm::StringRef> Out;
  for (const ByteUnit &U : byteUnits())
    if (!U.Letter)
      Out.push_back(U.Name);
  return Out;
}

std::optional<double> tacclc::bitUnitInBytes(llvm::StringRef Unit) {
  if (!Unit.consume_back("bit") && !Unit.consume_back("b"))
    return std::nullopt;
  double Bits;
  if (Unit.empty())
    Bits = 1;
  else if (Unit == "K" || Unit == "k")
    Bits = 1e3;
  else if (Unit == "M")
    Bits = 1e6;
  else if (Unit == "G")
    Bits = 1e9;
  else if (Unit == "T")
    Bits = 1e12;
  else
    return std::nullopt;
  return Bits / 8;
}

std::string tacclc::byteUnitFor(llvm::StringRef BitUnit) {
  if (!BitUnit.consume_back("bit"))
    BitUnit.consume_back("b");
  return BitUnit.upper() + "B";
}

std::optional<double> tacclc::toUsPerByte(double Value, llvm::StringRef Unit) {
  auto [Num, Den] = Unit.split('/');
  if (Den.empty())
    return std::nullopt;
  if (auto T = timeUnitInUs(Num))
    if (auto S = sizeUnitInBytes(Den))
      return Value * *T / *S;
  // A bandwidth: bytes or bits per unit of time.
  std::optional<double> S = sizeUnitInBytes(Num);
  if (!S)
    S = bitUnitInBytes(Num);
  if (S)
    if (auto T = timeUnitInUs(Den)) {
      if (Value <= 0)
        return std::nullopt;
      return *T / (Value * *S);
    }
  return std::nullopt;
}
