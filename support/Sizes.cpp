//===- support/Sizes.cpp - Byte sizes in one grammar ----------------------===//
//
// parseByteSize() splits a spec into its number and unit, scales the number
// exactly (integers and short decimal fractions, no floating point) and
// refuses zero, fractions of a byte and sizes above 2^50 bytes.
// parseSizeList() builds sweeps from it; formatByteSize() goes back.
//
//===----------------------------------------------------------------------===//
#include "support/Sizes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace tacclc;

namespace {
constexpr uint64_t MaxBytes = uint64_t(1) << 50;
constexpr uint64_t Pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
} // namespace

std::optional<uint64_t> tacclc::byteSizeUnit(llvm::StringRef Unit) {
  struct Entry {
    const char *Name;
    uint64_t Bytes;
  };
  static constexpr Entry Units[] = {
      {"B", 1},
      {"KB", 1000},
      {"MB", 1000 * 1000},
      {"GB", 1000 * 1000 * 1000},
      {"TB", uint64_t(1000) * 1000 * 1000 * 1000},
      {"KiB", uint64_t(1) << 10},
      {"MiB", uint64_t(1) << 20},
      {"GiB", uint64_t(1) << 30},
      {"TiB", uint64_t(1) << 40},
      {"K", uint64_t(1) << 10},
      {"M", uint64_t(1) << 20},
      {"G", uint64_t(1) << 30},
      {"T", uint64_t(1) << 40},
  };
  for (const Entry &E : Units)
    if (Unit.equals_insensitive(E.Name))
      return E.Bytes;
  return std::nullopt;
}

std::optional<uint64_t> tacclc::parseByteSize(llvm::StringRef Spec) {
  Spec = Spec.trim();
  size_t NumEnd = Spec.find_if_not(
      [](char C) { return llvm::isDigit(C) || C == '.'; });
  llvm::StringRef Number = Spec.take_front(NumEnd);
  llvm::StringRef Unit = Spec.drop_front(NumEnd).trim();
  std::optional<uint64_t> Scale = Unit.empty() ? 1 : byteSizeUnit(Unit);
  if (!Scale || Number.empty())
    return std::nullopt;
  auto [Whole, Frac] = Number.split('.');
  if (Frac.contains('.') || Frac.size() >= std::size(Pow10) ||
      (Whole.empty() && Frac.empty()))
    return std::nullopt;
  uint64_t W = 0, F = 0;
  if ((!Whole.empty() && Whole.getAsInteger(10, W)) ||
      (!Frac.empty() && Frac.getAsInteger(10, F)))
    return std::nullopt;
  if (W > MaxBytes / *Scale)
    return std::nullopt;
  uint64_t Den = Pow10[Frac.size()];
  // The fraction must scale to a whole number of bytes: F * Scale / Den.
  if ((F * *Scale) % Den != 0)
    return std::nullopt;
  uint64_t Bytes = W * *Scale + F * *Scale / Den;
  if (Bytes == 0 || Bytes > MaxBytes)
    return std::nullopt;
  return Bytes;
}

std::optional<std::vector<uint64_t>>
tacclc::parseSizeList(llvm::StringRef Spec) {
  std::vector<uint64_t> Out;
  if (auto [Lo, Hi] = Spec.split(':'); Spec.contains(':')) {
    auto L = parseByteSize(Lo), H = parseByteSize(Hi);
    if (!L || !H || *L > *H)
      return std::nullopt;
    for (uint64_t S = *L; S <= *H; S *= 2)
      Out.push_back(S);
    return Out;
  }
  llvm::SmallVector<llvm::StringRef> Parts;
  Spec.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    auto V = parseByteSize(P);
    if (!V)
      return std::nullopt;
    Out.push_back(*V);
  }
  return Out;
}

std::string tacclc::formatByteSize(uint64_t Bytes) {
  static constexpr std::pair<const char *, uint64_t> Units[] = {
      {"TiB", uint64_t(1) << 40},
      {"TB", uint64_t(1000) * 1000 * 1000 * 1000},
      {"GiB", uint64_t(1) << 30},
      {"GB", 1000 * 1000 * 1000},
      {"MiB", uint64_t(1) << 20},
      {"MB", 1000 * 1000},
      {"KiB", uint64_t(1) << 10},
      {"KB", 1000}};
  for (auto [Name, Scale] : Units)
    if (Bytes >= Scale && Bytes % Scale == 0)
      return std::to_string(Bytes / Scale) + " " + Name;
  return std::to_string(Bytes) + " B";
}

bool llvm::cl::parser<ByteSize>::parse(Option &O, StringRef, StringRef Arg,
                                       ByteSize &Value) {
  if (auto V = parseByteSize(Arg)) {
    Value.Bytes = *V;
    return false;
  }
  return O.error("'" + Arg + "' is not a size: expected " + SizeSyntax);
}

void llvm::cl::parser<ByteSize>::printOptionDiff(
    const Option &O, ByteSize V, const OptionValue<ByteSize> &,
    size_t GlobalWidth) const {
  printOptionName(O, GlobalWidth);
  outs() << "= " << formatByteSize(V.Bytes) << "\n";
}

void llvm::cl::parser<ByteSize>::anchor() {}
