//===- support/Sizes.h - Byte sizes in one grammar --------------*- C++ -*-===//
//
// One size grammar for the whole project, the sketch language's: decimal
// units are powers of ten (KB = 10^3 B, MB = 10^6 B, GB, TB) and binary
// units powers of two (KiB = 2^10 B, MiB, GiB, TiB). A lone K, M, G or T is
// binary, as nccl-tests reads `-e 128M`. Every flag that takes a size
// (`tacclc sim --sizes`, `bounds --size`, `baseline --size`, `run --bytes`,
// `--max-memory`, `taccl-bench -b/-e/--sizes`) parses with these functions,
// and the sketch language takes the same units from the same table
// (spelled out and case-sensitive there), so `64MB` is 64,000,000 bytes
// everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_SIZES_H
#define TACCLC_SUPPORT_SIZES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// How a size is written, for help texts and error messages.
inline constexpr const char *SizeSyntax =
    "a whole number of bytes with an optional unit: B; KB, MB, GB, TB "
    "(powers of 10); KiB, MiB, GiB, TiB or K, M, G, T (powers of 2)";

/// How a list of sizes is written, for help texts and error messages.
inline constexpr const char *SizeListSyntax =
    "LO:HI (LO, 2 LO, 4 LO, ... up to HI) or a comma list of sizes";

/// One unit of the grammar.
struct ByteUnit {
  const char *Name; ///< The canonical spelling: `KB`, `MiB`, `M`.
  uint64_t Bytes;
  /// A lone letter (K, M, G, T) as nccl-tests writes binary sizes; the
  /// sketch language, which spells every unit out, does not take these.
  bool Letter;
};

/// Every unit of the grammar: B, the decimal units, the binary ones, then
/// the lone letters. The one table behind the command lines and the
/// sketch language (frontend/Units.h), so that the two cannot drift apart.
llvm::ArrayRef<ByteUnit> byteUnits();

/// Bytes in one \p Unit (`B`, `KB`, `MiB`, `M`, ...; case-insensitive).
/// Nothing for an unknown unit.
std::optional<uint64_t> byteSizeUnit(llvm::StringRef Unit);

/// Parses one size: a number (a decimal fraction is allowed when the result
/// is a whole number of bytes, `1.5KiB`) and an optional unit, with or
/// without a space between. Sizes of zero or above 2^50 bytes are refused.
std::optional<uint64_t> parseByteSize(llvm::StringRef Spec);

/// Parses `LO:HI` (LO doubling until it passes HI) or a comma list of
/// sizes. Nothing on a bad spec.
std::optional<std::vector<uint64_t>> parseSizeList(llvm::StringRef Spec);

/// The shortest exact spelling of \p Bytes: `64 MiB`, `64 MB`, `1000 B`.
/// Prefers the binary unit when both are exact.
std::string formatByteSize(uint64_t Bytes);

/// A size given on the command line: `cl::opt<ByteSize> Size("size",
/// cl::init(ByteSize{1 << 20}))` parses with parseByteSize() and reads as a
/// uint64_t.
struct ByteSize {
  uint64_t Bytes = 0;
  operator uint64_t() const { return Bytes; }
};

/// Sizes given on the command line, as parseSizeList() reads them:
/// `cl::opt<ByteSizeList> Sizes("sizes", cl::init(ByteSizeList::of(
/// "1KiB:1GiB")))`.
struct ByteSizeList {
  std::vector<uint64_t> Bytes;
  /// The list \p Spec names; it must be a valid spec (for defaults).
  static ByteSizeList of(llvm::StringRef Spec);
};

} // namespace tacclc

namespace llvm::cl {
/// Parses a tacclc::ByteSize option; a bad value is an option error that
/// quotes the grammar.
template <>
class parser<tacclc::ByteSize> : public basic_parser<tacclc::ByteSize> {
public:
  parser(Option &O) : basic_parser(O) {}
  bool parse(Option &O, StringRef ArgName, StringRef Arg,
             tacclc::ByteSize &Value);
  StringRef getValueName() const override { return "size"; }
  void printOptionDiff(const Option &O, tacclc::ByteSize V,
                       const OptionValue<tacclc::ByteSize> &Default,
                       size_t GlobalWidth) const;
  void anchor() override;
};

/// Parses a tacclc::ByteSizeList option; a bad value is an option error
/// that quotes the grammar.
template <>
class parser<tacclc::ByteSizeList> : public basic_parser<tacclc::ByteSizeList> {
public:
  parser(Option &O) : basic_parser(O) {}
  bool parse(Option &O, StringRef ArgName, StringRef Arg,
             tacclc::ByteSizeList &Value);
  StringRef getValueName() const override { return "sizes"; }
  void printOptionDiff(const Option &O, const tacclc::ByteSizeList &V,
                       const OptionValue<tacclc::ByteSizeList> &Default,
                       size_t GlobalWidth) const;
  void anchor() override;
};
} // namespace llvm::cl

#endif // TACCLC_SUPPORT_SIZES_H
