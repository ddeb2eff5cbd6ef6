//===- tune/Stitch.h - The fastest program for every size -------*- C++ -*-===//
//
// The last step of `tacclc tune`: from each program's simulated time at
// every size of the sweep, the fastest program per size, and from those the
// size ranges each written file serves. Neighbouring sizes with one winner
// share a file; a size NCCL's own algorithm wins is left to NCCL (no file:
// the drop-in library forwards the call). The ranges cover the sweep from
// its first size to its last with no gap and no overlap: a run of winners
// starting at sweep size s_i serves every call from s_i up to one byte
// below the next run's first size, so a call between two sweep sizes (calls
// come in any size, most in powers of two) goes to the run of the size
// below it. minBytes/maxBytes are then written as each runtime reads them:
// both ends included for the MSCCL executor, the upper end excluded for the
// legacy runtime.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TUNE_STITCH_H
#define TACCLC_TUNE_STITCH_H

#include "format/Dialect.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace tacclc::tune {

/// A program's time at each size of the sweep (microseconds; nothing where
/// it was not simulated or could not be), and whether it is NCCL's own
/// algorithm, which the runtime reaches by forwarding rather than a file.
struct ProgramTimes {
  std::vector<std::optional<double>> TimesUs;
  bool Nccl = false;
};

/// The winner at one size: the index of the fastest program, or -1 where
/// no program has a time. Forward is true where that program is NCCL's.
struct SizeWinner {
  std::uint64_t Bytes = 0;
  int Program = -1;
  bool Forward = false;
  double TimeUs = 0;
};

/// For each size of \p Sizes (ascending), the fastest of \p Programs. Ties
/// (within \p TieFraction of the fastest) go to NCCL's algorithms first,
/// then to the lowest index, so the choice is deterministic and a file is
/// written only where it is faster than what NCCL already runs.
std::vector<SizeWinner> pickWinners(llvm::ArrayRef<std::uint64_t> Sizes,
                                    llvm::ArrayRef<ProgramTimes> Programs,
                                    double TieFraction = 0.0);

/// The sizes one file serves: [MinBytes, MaxBytes], both ends included.
/// Program is -1 for a range forwarded to NCCL (or served by nothing).
struct ServedRange {
  int Program = -1;
  bool Forward = false;
  std::uint64_t MinBytes = 0, MaxBytes = 0;
  /// Indices into the sweep of the first and last size of the range.
  unsigned FirstSize = 0, LastSize = 0;
};

/// Merges neighbouring sizes with one winner into ranges that tile
/// [Winners.front().Bytes, Winners.back().Bytes]: each ends one byte below
/// the next one's start, the last at the last size.
std::vector<ServedRange> stitchRanges(llvm::ArrayRef<SizeWinner> Winners);

/// The minBytes and maxBytes attributes that make a runtime of dialect
/// \p D select a file for exactly the sizes of \p R (format/Dialect.h,
/// selectsSize).
std::pair<std::uint64_t, std::uint64_t> xmlBounds(const ServedRange &R,
                                                  tacclrt::Dialect D);

} // namespace tacclc::tune

#endif // TACCLC_TUNE_STITCH_H
