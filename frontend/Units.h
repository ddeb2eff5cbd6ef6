//===- frontend/Units.h - Units of times, sizes and bandwidths --*- C++ -*-===//
//
// The unit vocabulary of the language. Decimal (KB, MB, GB = 10^3, 10^6,
// 10^9 bytes) and binary (KiB, MiB, GiB = 2^10, 2^20, 2^30) sizes are both
// accepted and never confused; `MB` always means 10^6 bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_UNITS_H
#define TACCLC_FRONTEND_UNITS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <vector>

namespace tacclc {

/// Microseconds in one \p Unit of time (us, ns, ms, s).
std::optional<double> timeUnitInUs(llvm::StringRef Unit);
/// Bytes in one \p Unit of size (B, KB, MB, GB, KiB, MiB, GiB).
std::optional<double> sizeUnitInBytes(llvm::StringRef Unit);
/// The time units, shortest first (ns, us, ms, s).
std::vector<llvm::StringRef> timeUnitNames();
/// The size units, decimal then binary (B, KB, MB, GB, KiB, MiB, GiB).
std::vector<llvm::StringRef> sizeUnitNames();
/// Converts an inverse bandwidth (`us/MB`, `ns/KiB`, ...) or a bandwidth
/// (`GB/s`, `MiB/ms`, ...) of value \p Value to microseconds per byte.
/// Returns nothing when \p Unit is neither.
std::optional<double> toUsPerByte(double Value, llvm::StringRef Unit);

/// Units listed in "expected one of" messages.
inline constexpr const char *TimeUnits = "ns, us, ms, s";
inline constexpr const char *SizeUnits = "B, KB, MB, GB, KiB, MiB, GiB";
inline constexpr const char *BetaUnits =
    "us/MB, us/MiB, ns/KB, ... or a bandwidth such as GB/s";

} // namespace tacclc

#endif // TACCLC_FRONTEND_UNITS_H
