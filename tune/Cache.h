//===- tune/Cache.h - Where tune keeps what it has done ---------*- C++ -*-===//
//
// A compile or simulation that `tacclc tune` has run once is not run again:
// its results lie in a folder of the cache named by a key, the SHA-256 of
// everything that decides them: the compiler itself (the digest of the
// tacclc executable, so a rebuilt compiler starts afresh), the sketch's text,
// the text of the machine's file, and the options that reach the compile
// (time limit, dialect). A re-run of tune with one sketch changed compiles
// only that sketch. The cache lives in $TACCLC_CACHE_DIR, else
// $XDG_CACHE_HOME/tacclc/tune, else ~/.cache/tacclc/tune, or where --cache
// says.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TUNE_CACHE_H
#define TACCLC_TUNE_CACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tacclc::tune {

/// The key of \p Parts: the hex SHA-256 of each part's length and bytes in
/// order, so that no two different lists of parts share a key.
std::string contentKey(llvm::ArrayRef<std::string> Parts);

/// The hex SHA-256 of the file at \p Path; nothing if it cannot be read.
std::optional<std::string> fileDigest(const std::string &Path);

/// The cache folder when none is named: $TACCLC_CACHE_DIR, else
/// $XDG_CACHE_HOME/tacclc/tune, else $HOME/.cache/tacclc/tune; empty when
/// none of these is set.
std::string defaultCacheDir();

} // namespace tacclc::tune

#endif // TACCLC_TUNE_CACHE_H
