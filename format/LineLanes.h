//===- format/LineLanes.h - LL and LL128 lines, one store at a time -*- C++
//-*-===//
//
// How the executors cut a message into connection steps and a step into
// 16-byte stores ("units"), the granularity at which the CUDA interpreter's
// threads write and poll the FIFO:
//   - a message of Cnt chunks is Cnt x stepsPerChunk() steps: each chunk's
//     slice, cut into pieces of at most one slot's data (stepPart());
//   - LL: a unit is one whole 16-byte line {d0, flag, d1, flag}: 8 bytes of
//     data, and the flag beside each 32-bit datum, so the one 16-byte store
//     that writes the data also writes its flags, and a reader that sees
//     both flags equal to the step's sees the data;
//   - LL128: a 128-byte line is eight units, stored by eight consecutive
//     threads of a warp; units 0-6 carry 16 bytes of data, unit 7 carries
//     8 bytes of data and then the 64-bit flag. As in NCCL, a reader trusts
//     a whole line once its flag unit is current, which relies on the GPU
//     delivering a warp's 128-byte line together (NVLink on sm_70 and
//     later, the only places NCCL enables LL128).
// The unit images are exactly the words exec/LineCodec writes for the CPU
// executor (a test compares them byte for byte), so both executors put the
// same bytes on the wire. Header-only and TACCLRT_HD: the kernel and host
// code share this one definition.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_LINELANES_H
#define TACCLC_FORMAT_LINELANES_H

#include "format/HostDevice.h"
#include "format/LineFormat.h"

#include <cstdint>

namespace tacclrt::lines {

/// Connection steps one chunk slice of \p ChunkBytes takes under \p P
/// (at least one, even for an empty slice).
TACCLRT_HD constexpr std::uint64_t stepsPerChunk(Protocol P,
                                                 std::uint64_t ChunkBytes) {
  const std::uint64_t Slot = slotDataBytes(P);
  const std::uint64_t N = Slot ? (ChunkBytes + Slot - 1) / Slot : 1;
  return N ? N : 1;
}

/// Which bytes of which chunk one step of a message carries.
struct StepPart {
  /// The chunk of the message (0 .. Cnt-1).
  std::uint32_t Chunk;
  /// Byte offset in that chunk's slice, and bytes carried.
  std::uint64_t Offset, Bytes;
};

/// Step \p K of a message whose chunk slices have \p ChunkBytes bytes each.
TACCLRT_HD constexpr StepPart stepPart(Protocol P, std::uint64_t ChunkBytes,
                                       std::uint64_t K) {
  const std::uint64_t PerChunk = stepsPerChunk(P, ChunkBytes);
  const std::uint64_t Slot = slotDataBytes(P);
  const std::uint64_t Offset = (K % PerChunk) * Slot;
  const std::uint64_t Left = ChunkBytes - Offset;
  return {std::uint32_t(K / PerChunk), Offset, Left < Slot ? Left : Slot};
}

/// Bytes of FIFO memory one unit occupies (one 16-byte store).
constexpr unsigned UnitBytes = 16;

/// Units of one LL128 line.
constexpr unsigned Ll128Units = 8;

/// Units that carry \p Bytes bytes of one step of \p P.
TACCLRT_HD constexpr std::uint64_t unitsFor(Protocol P, std::uint64_t Bytes) {
  return linesFor(P, Bytes) * (lineFormatOf(P).LineBytes / UnitBytes);
}

/// Whether unit \p U of \p P holds its line's flag (LL: every unit does).
TACCLRT_HD constexpr bool holdsFlag(Protocol P, std::uint64_t U) {
  return P == Protocol::LL || U % Ll128Units == Ll128Units - 1;
}

/// Byte offset in the step's data of the first byte unit \p U carries.
TACCLRT_HD constexpr std::uint64_t unitDataOffset(Protocol P, std::uint64_t U) {
  if (P == Protocol::LL)
    return U * 8;
  return U / Ll128Units * lineFormatOf(P).DataBytes +
         U % Ll128Units * UnitBytes;
}

/// Bytes of data unit \p U can carry (LL 8; LL128 16, or 8 beside the flag).
TACCLRT_HD constexpr unsigned unitCapacity(Protocol P, std::uint64_t U) {
  return P == Protocol::LL || holdsFlag(P, U) ? 8 : 16;
}

/// Bytes of a step of \p StepBytes that unit \p U carries (0 past the end).
TACCLRT_HD constexpr unsigned unitDataBytes(Protocol P, std::uint64_t U,
                                            std::uint64_t StepBytes) {
  const std::uint64_t First = unitDataOffset(P, U);
  if (First >= StepBytes)
    return 0;
  const std::uint64_t Left = StepBytes - First;
  return Left < unitCapacity(P, U) ? unsigned(Left) : unitCapacity(P, U);
}

/// The 16 bytes of one unit as four 32-bit words in memory order.
struct Unit {
  std::uint32_t W[4];
};

/// The unit \p U of \p P that carries \p Data (unitCapacity(P, U) bytes,
/// already zero-padded past the step's end) for a step stamped \p Flag.
TACCLRT_HD inline Unit packUnit(Protocol P, std::uint64_t U,
                                const unsigned char *Data, std::uint64_t Flag) {
  auto Word = [&](unsigned At) {
    return std::uint32_t(Data[At]) | std::uint32_t(Data[At + 1]) << 8 |
           std::uint32_t(Data[At + 2]) << 16 |
           std::uint32_t(Data[At + 3]) << 24;
  };
  if (P == Protocol::LL) {
    const std::uint32_t F = std::uint32_t(Flag);
    return {{Word(0), F, Word(4), F}};
  }
  if (holdsFlag(P, U))
    return {{Word(0), Word(4), std::uint32_t(Flag), std::uint32_t(Flag >> 32)}};
  return {{Word(0), Word(4), Word(8), Word(12)}};
}

/// Whether unit \p U as read, \p X, shows the step stamped \p Flag (units
/// without a flag: always; their line's flag unit decides).
TACCLRT_HD inline bool unitCurrent(Protocol P, std::uint64_t U, const Unit &X,
                                   std::uint64_t Flag) {
  if (P == Protocol::LL)
    return X.W[1] == std::uint32_t(Flag) && X.W[3] == std::uint32_t(Flag);
  if (!holdsFlag(P, U))
    return true;
  return X.W[2] == std::uint32_t(Flag) && X.W[3] == std::uint32_t(Flag >> 32);
}

/// The flag unit \p U as read, \p X, carries (LL: its first flag word).
TACCLRT_HD inline std::uint64_t unitFlag(Protocol P, const Unit &X) {
  if (P == Protocol::LL)
    return X.W[1];
  return std::uint64_t(X.W[3]) << 32 | X.W[2];
}

/// The data of unit \p U of \p P, \p X, into \p Data (unitCapacity bytes).
TACCLRT_HD inline void unpackUnit(Protocol P, std::uint64_t U, const Unit &X,
                                  unsigned char *Data) {
  const std::uint32_t Words[4] = {X.W[0], P == Protocol::LL ? X.W[2] : X.W[1],
                                  X.W[2], X.W[3]};
  const unsigned Bytes = unitCapacity(P, U);
  for (unsigned B = 0; B < Bytes; ++B)
    Data[B] = static_cast<unsigned char>(Words[B / 4] >> (8 * (B % 4)));
}

} // namespace tacclrt::lines

#endif // TACCLC_FORMAT_LINELANES_H
