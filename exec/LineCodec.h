//===- exec/LineCodec.h - LL and LL128 lines on the host --------*- C++ -*-===//
//
// The CPU executor's form of NCCL's low-latency protocols: a step's data is
// written into the FIFO as flagged lines (format/LineFormat.h), and the
// receiver accepts a line only when its flag says the sender's step wrote
// it, as NCCL's LL and LL128 receivers poll. encodeStep() writes one step's
// lines, decodeStep() reads them back and reports the first line whose
// flag is not the expected one (a stale or torn line).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_LINECODEC_H
#define TACCLC_EXEC_LINECODEC_H

#include "format/LineFormat.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tacclrt {

/// The flag the lines of connection step \p Step carry (never 0).
constexpr std::uint64_t stepFlag(std::uint64_t Step) { return Step + 1; }

/// Appends the lines of one step of \p P carrying \p Bytes bytes of
/// \p Data, stamped with \p Flag, to \p Lines (64-bit words, as the FIFO
/// holds them on a little-endian machine). LL keeps the low 32 bits of the
/// flag. The last line is padded with zero data.
void encodeStep(Protocol P, const std::byte *Data, std::size_t Bytes,
                std::uint64_t Flag, std::vector<std::uint64_t> &Lines);

/// A line whose flag was not the expected one.
struct LineFault {
  /// Index of the line within the step.
  std::uint64_t Line = 0;
  /// The flag found and the one expected.
  std::uint64_t Found = 0, Expected = 0;
};

/// Reads \p Bytes bytes of one step of \p P from the words at \p Lines
/// (linesFor(P, Bytes) lines) into \p Out, checking that every flag of
/// every line is \p Flag. Returns the first fault; \p Out is then partly
/// written.
std::optional<LineFault> decodeStep(Protocol P, const std::uint64_t *Lines,
                                    std::size_t Bytes, std::uint64_t Flag,
                                    std::byte *Out);

/// 64-bit words of one line of \p P.
constexpr std::size_t lineWords(Protocol P) {
  return lineFormatOf(P).LineBytes / 8;
}

} // namespace tacclrt

#endif // TACCLC_EXEC_LINECODEC_H
