//===- format/LineFormat.h - NCCL's FIFO line formats -----------*- C++ -*-===//
//
// How each protocol lays data out in a connection's FIFO, as NCCL defines it
// (src/include/device.h and src/include/protocol.h of NCCL 2.x): the
// connection buffer has NCCL_STEPS = 8 step slots, and a slot holds one
// slice.
//   Simple  raw bytes; the receiver learns that a slot is full from the
//           sender's tail counter (a separate store after a fence).
//   LL      16-byte lines {data1, flag1, data2, flag2} of 32-bit words: 8
//           bytes of data per line, each 32-bit datum beside its flag in one
//           8-byte word, so one store carries both and the receiver polls the
//           line itself. 512 KiB of lines per connection: 32 KiB of data per
//           step.
//   LL128   128-byte lines of sixteen 64-bit words, the last one the flag:
//           120 bytes of data per line. 4,915,200 bytes per connection:
//           600 KiB of lines, 576,000 bytes of data per step.
// The flag a step's lines carry is the connection's step count plus one, so
// zeroed memory never reads as written.
//
// Header-only and constexpr, so host code (the CPU executor, the simulator)
// and the CUDA interpreter share one definition.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_LINEFORMAT_H
#define TACCLC_FORMAT_LINEFORMAT_H

#include "format/HostDevice.h"
#include "format/Plan.h"

#include <cstdint>

namespace tacclrt {

/// Step slots per connection (NCCL_STEPS).
constexpr unsigned FifoSteps = 8;

/// The line layout of one protocol.
struct LineFormat {
  /// Bytes of one line in the FIFO (0 for Simple: raw data).
  unsigned LineBytes;
  /// Bytes of data one line carries.
  unsigned DataBytes;
  /// Lines of one step slot (0 for Simple).
  unsigned SlotLines;
};

/// The layout \p P uses.
TACCLRT_HD constexpr LineFormat lineFormatOf(Protocol P) {
  switch (P) {
  case Protocol::LL:
    // 512 KiB per connection / 8 steps / 16 B per line.
    return {16, 8, (512u << 10) / FifoSteps / 16};
  case Protocol::LL128:
    // 4,915,200 B per connection / 8 steps / 128 B per line.
    return {128, 120, 4915200u / FifoSteps / 128};
  case Protocol::Simple:
    break;
  }
  return {0, 0, 0};
}

/// Whether \p P moves data in flagged lines (LL and LL128).
TACCLRT_HD constexpr bool usesLines(Protocol P) {
  return lineFormatOf(P).LineBytes != 0;
}

/// Bytes of data one step slot of \p P holds (0 for Simple).
TACCLRT_HD constexpr std::uint64_t slotDataBytes(Protocol P) {
  LineFormat F = lineFormatOf(P);
  return std::uint64_t(F.SlotLines) * F.DataBytes;
}

/// Lines that carry \p Bytes of data in \p P (the last one padded).
TACCLRT_HD constexpr std::uint64_t linesFor(Protocol P, std::uint64_t Bytes) {
  LineFormat F = lineFormatOf(P);
  return F.DataBytes ? (Bytes + F.DataBytes - 1) / F.DataBytes : 0;
}

/// Bytes on the wire for \p Bytes of data in \p P (Simple: the data).
TACCLRT_HD constexpr std::uint64_t lineWireBytes(Protocol P,
                                                 std::uint64_t Bytes) {
  return usesLines(P) ? linesFor(P, Bytes) * lineFormatOf(P).LineBytes : Bytes;
}

static_assert(slotDataBytes(Protocol::LL) == 32u << 10,
              "LL carries 32 KiB of data per step");
static_assert(slotDataBytes(Protocol::LL128) == 576000,
              "LL128 carries 576,000 B of data per step");

} // namespace tacclrt

#endif // TACCLC_FORMAT_LINEFORMAT_H
