//===- support/Sizes.h - Byte sizes on command lines ------------*- C++ -*-===//
//
// The size sweeps the tools take (`tacclc sim --sizes`, `tacclc bounds
// --size`, `taccl-bench --sizes`): one syntax, one parser.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_SIZES_H
#define TACCLC_SUPPORT_SIZES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tacclc {

/// Parses `LO:HI` (powers of two from LO to HI) or a comma list of sizes,
/// each a positive integer with an optional binary unit (B, K or KB, M or
/// MB, G or GB; case-insensitive). Nothing on a bad spec.
std::optional<std::vector<uint64_t>> parseSizeList(llvm::StringRef Spec);

} // namespace tacclc

#endif // TACCLC_SUPPORT_SIZES_H
