//===- support/Suggest.h - "Did you mean" suggestions -----------*- C++ -*-===//
//
// The one way tacclc picks a suggestion for a name it does not know (a
// collective, a link class, a switch, a command-line value): the known name
// that the unknown one spells with other case or separators (`all_gather`,
// `AllGather` -> `allgather`), else the nearest within a small edit
// distance.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_SUGGEST_H
#define TACCLC_SUPPORT_SUGGEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tacclc {

/// \p Name in lower case without '_', '-' and '.': the form in which two
/// spellings of one name compare equal.
std::string normalizeName(llvm::StringRef Name);

/// The candidate to suggest for the unknown \p Name, or empty when none is
/// close: first a candidate equal to \p Name once both are normalised
/// (normalizeName), else the one fewest edits away when that is at most
/// \p MaxDistance edits and fewer than the length of \p Name (so that a
/// two-letter name is not "corrected" into an unrelated one). Ties go to
/// the earlier candidate.
std::string closestName(llvm::StringRef Name,
                        llvm::ArrayRef<llvm::StringRef> Candidates,
                        unsigned MaxDistance = 2);

} // namespace tacclc

#endif // TACCLC_SUPPORT_SUGGEST_H
