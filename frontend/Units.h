//===- frontend/Units.h - Units of times, sizes and bandwidths --*- C++ -*-===//
//
// The unit vocabulary of the language. Decimal (KB, MB, GB, TB = 10^3, 10^6,
// 10^9, 10^12 bytes) and binary (KiB, MiB, GiB, TiB = 2^10 ... 2^40) sizes
// are both accepted and never confused; `MB` always means 10^6 bytes, as it
// does on every command line (one table: support/Sizes.h).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_UNITS_H
#define TACCLC_FRONTEND_UNITS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tacclc {

/// Microseconds in one \p Unit of time (us, ns, ms, s).
std::optional<double> timeUnitInUs(llvm::StringRef Unit);
/// Bytes in one \p Unit of size (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB;
/// case-sensitive).
std::optional<double> sizeUnitInBytes(llvm::StringRef Unit);
/// The size units, for "expected one of" messages: "B, KB, ..., TiB".
std::string sizeUnitNames();
/// Converts an inverse bandwidth (`us/MB`, `ns/KiB`, ...) or a bandwidth
/// (`GB/s`, `MiB/ms`, ...) of value \p Value to microseconds per byte.
/// Returns nothing when \p Unit is neither.
std::optional<double> toUsPerByte(double Value, llvm::StringRef Unit);

/// Units listed in "expected one of" messages.
inline constexpr const char *TimeUnits = "ns, us, ms, s";
inline constexpr const char *BetaUnits =
    "us/MB, us/MiB, ns/KB, ... or a bandwidth such as GB/s";

} // namespace tacclc

#endif // TACCLC_FRONTEND_UNITS_H
