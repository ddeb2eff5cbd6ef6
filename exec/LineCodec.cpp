//===- exec/LineCodec.cpp - LL and LL128 lines on the host ----------------===//
//
// LL: a 16-byte line is two 64-bit words, each a 32-bit datum in its low
// half and the 32-bit flag in its high half ({data1, flag1, data2, flag2}
// in memory order on a little-endian machine), so a datum and its flag are
// stored and loaded together. LL128: a 128-byte line is sixteen 64-bit
// words, fifteen of data and the flag last. Data bytes are copied in memory
// order, so any element type (1 to 8 bytes) round-trips unchanged.
//
//===----------------------------------------------------------------------===//
#include "exec/LineCodec.h"

#include <algorithm>
#include <cstring>

namespace tacclrt {

namespace {

/// Copies up to \p Max bytes from \p Src (of \p Left remaining) into a
/// zeroed word; returns it and advances.
std::uint64_t takeWord(const std::byte *&Src, std::size_t &Left,
                       std::size_t Max) {
  std::uint64_t W = 0;
  std::size_t N = std::min(Left, Max);
  std::memcpy(&W, Src, N);
  Src += N;
  Left -= N;
  return W;
}

void putBytes(std::byte *&Dst, std::size_t &Left, std::uint64_t W,
              std::size_t Max) {
  std::size_t N = std::min(Left, Max);
  std::memcpy(Dst, &W, N);
  Dst += N;
  Left -= N;
}

} // namespace

void encodeStep(Protocol P, const std::byte *Data, std::size_t Bytes,
                std::uint64_t Flag, std::vector<std::uint64_t> &Lines) {
  std::uint64_t N = linesFor(P, Bytes);
  std::size_t Left = Bytes;
  const std::byte *Src = Data;
  if (P == Protocol::LL) {
    std::uint64_t F = (Flag & 0xffffffffu) << 32;
    for (std::uint64_t L = 0; L < N; ++L) {
      Lines.push_back(takeWord(Src, Left, 4) | F);
      Lines.push_back(takeWord(Src, Left, 4) | F);
    }
    return;
  }
  if (P == Protocol::LL128) {
    for (std::uint64_t L = 0; L < N; ++L) {
      for (unsigned W = 0; W + 1 < lineWords(P); ++W)
        Lines.push_back(takeWord(Src, Left, 8));
      Lines.push_back(Flag);
    }
    return;
  }
  // Simple has no lines: the data itself, in words.
  while (Left)
    Lines.push_back(takeWord(Src, Left, 8));
}

std::optional<LineFault> decodeStep(Protocol P, const std::uint64_t *Lines,
                                    std::size_t Bytes, std::uint64_t Flag,
                                    std::byte *Out) {
  std::uint64_t N = linesFor(P, Bytes);
  std::size_t Left = Bytes;
  std::byte *Dst = Out;
  if (P == Protocol::LL) {
    std::uint64_t Want = Flag & 0xffffffffu;
    for (std::uint64_t L = 0; L < N; ++L)
      for (unsigned H = 0; H < 2; ++H) {
        std::uint64_t W = Lines[2 * L + H];
        if ((W >> 32) != Want)
          return LineFault{L, W >> 32, Want};
        putBytes(Dst, Left, W & 0xffffffffu, 4);
      }
    return std::nullopt;
  }
  if (P == Protocol::LL128) {
    const std::size_t Words = lineWords(P);
    for (std::uint64_t L = 0; L < N; ++L) {
      const std::uint64_t *Line = Lines + L * Words;
      if (Line[Words - 1] != Flag)
        return LineFault{L, Line[Words - 1], Flag};
      for (std::size_t W = 0; W + 1 < Words; ++W)
        putBytes(Dst, Left, Line[W], 8);
    }
    return std::nullopt;
  }
  for (std::size_t W = 0; Left; ++W)
    putBytes(Dst, Left, Lines[W], 8);
  return std::nullopt;
}

} // namespace tacclrt
