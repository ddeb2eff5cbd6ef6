//===- support/Sizes.cpp - Byte sizes in one grammar ----------------------===//
//
// parseByteSize() splits a spec into its number and unit, scales the number
// exactly (integers and short decimal fractions, no floating point) and
// refuses zero, fractions of a byte and sizes above 2^50 bytes.
// parseSizeList() builds sweeps from it; formatByteSize() goes back. One
// table of units, byteUnits(), serves all of them and the sketch language.
// The llvm::cl parsers of ByteSize and ByteSizeList make a bad size on a
// command line an option error that quotes the grammar.
//
//===----------------------------------------------------------------------===//
#include "support/Sizes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cassert>

using namespace tacclc;

namespace {
constexpr uint64_t MaxBytes = uint64_t(1) << 50;
constexpr uint64_t Pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
} // namespace

llvm::ArrayRef<ByteUnit> tacclc::byteUnits() {
  static constexpr ByteUnit Units[] = {
      {"B", 1, false},
      {"KB", 1000, false},
      {"MB", 1000 * 1000, false},
      {"GB", 1000 * 1000 * 1000, false},
      {"TB", uint64_t(1000) * 1000 * 1000 * 1000, false},
      {"KiB", uint64_t(1) << 10, false},
      {"MiB", uint64_t(1) << 20, false},
      {"GiB", uint64_t(1) << 30, false},
      {"TiB", uint64_t(1) << 40, false},
      {"K", uint64_t(1) << 10, true},
      {"M", uint64_t(1) << 20, true},
      {"G", uint64_t(1) << 30, true},
      {"T", uint64_t(1) << 40, true},
  };
  return Units;
}

std::optional<uint64_t> tacclc::byteSizeUnit(llvm::StringRef Unit) {
  for (const ByteUnit &U : byteUnits())
    if (Unit.equals_insensitive(U.Name))
      return U.Bytes;
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
  // The largest unit that divides: binary where both do (KiB > KB).
  const ByteUnit *Best = nullptr;
  for (const ByteUnit &U : byteUnits())
    if (!U.Letter && U.Bytes > 1 && Bytes >= U.Bytes && Bytes % U.Bytes == 0 &&
        (!Best || U.Bytes > Best->Bytes))
      Best = &U;
  if (!Best)
    return std::to_string(Bytes) + " B";
  return std::to_string(Bytes / Best->Bytes) + " " + Best->Name;
}

ByteSizeList ByteSizeList::of(llvm::StringRef Spec) {
  std::optional<std::vector<uint64_t>> Sizes = parseSizeList(Spec);
  assert(Sizes && "a default size list must parse");
  return {std::move(*Sizes)};
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

bool llvm::cl::parser<ByteSizeList>::parse(Option &O, StringRef, StringRef Arg,
                                           ByteSizeList &Value) {
  if (auto V = parseSizeList(Arg)) {
    Value.Bytes = std::move(*V);
    return false;
  }
  return O.error("'" + Arg + "' is not a list of sizes: expected " +
                 SizeListSyntax + "; a size is " + SizeSyntax);
}

void llvm::cl::parser<ByteSizeList>::printOptionDiff(
    const Option &O, const ByteSizeList &V, const OptionValue<ByteSizeList> &,
    size_t GlobalWidth) const {
  printOptionName(O, GlobalWidth);
  std::string Text;
  for (uint64_t B : V.Bytes)
    Text += (Text.empty() ? "" : ",") + formatByteSize(B);
  outs() << "= " << Text << "\n";
}

void llvm::cl::parser<ByteSizeList>::anchor() {}
