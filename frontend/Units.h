//===- frontend/Units.h - Units of times, sizes and bandwidths --*- C++ -*-===//
//
// The unit vocabulary of the language. Decimal (KB, MB, GB, TB = 10^3, 10^6,
// 10^9, 10^12 bytes) and binary (KiB, MiB, GiB, TiB = 2^10 ... 2^40) sizes
// are both accepted and never confused; `MB` always means 10^6 bytes, as it
// does on every command line (one table: support/Sizes.h). Bandwidths may
// also be bit rates (`100 Gb/s`, `25 Gbit/s`), as network links are sold.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_UNITS_H
#define TACCLC_FRONTEND_UNITS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// Microseconds in one \p Unit of time (us, ns, ms, s).
std::optional<double> timeUnitInUs(llvm::StringRef Unit);
/// Bytes in one \p Unit of size (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB;
/// case-sensitive).
std::optional<double> sizeUnitInBytes(llvm::StringRef Unit);
/// Bytes in one \p Unit of bits: `b` or `bit` with a decimal prefix (Kb,
/// kb, Mb, Gb, Tb, Kbit, ..., Tbit; 1 Gb = 10^9 bits = 1.25 * 10^8 B). The
/// case of `b` matters: `Gb` is gigabits, `GB` gigabytes.
std::optional<double> bitUnitInBytes(llvm::StringRef Unit);
/// The size unit that \p BitUnit (a unit bitUnitInBytes accepts) was
/// probably meant to be: `Gb` -> `GB`, `kbit` -> `KB`.
std::string byteUnitFor(llvm::StringRef BitUnit);
/// The time units, shortest first (ns, us, ms, s).
std::vector<llvm::StringRef> timeUnitNames();
/// The size units, decimal then binary (B, KB, ..., TB, KiB, ..., TiB).
std::vector<llvm::StringRef> sizeUnitNames();
/// Converts an inverse bandwidth (`us/MB`, `ns/KiB`, ...) or a bandwidth in
/// bytes (`GB/s`, `MiB/ms`, ...) or bits (`Gb/s`, `Gbit/s`, `Mb/ms`, ...)
/// of value \p Value to microseconds per byte. Returns nothing when \p Unit
/// is none of these.
std::optional<double> toUsPerByte(double Value, llvm::StringRef Unit);

/// Units listed in "expected one of" messages.
inline constexpr const char *TimeUnits = "ns, us, ms, s";
inline constexpr const char *BetaUnits =
    "us/MB, us/MiB, ns/KB, ... or a bandwidth such as GB/s or Gb/s (bits)";

} // namespace tacclc

#endif // TACCLC_FRONTEND_UNITS_H
