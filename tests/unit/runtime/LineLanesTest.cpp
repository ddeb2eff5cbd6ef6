//===- tests/unit/runtime/LineLanesTest.cpp - The kernel's LL units -------===//
//
// format/LineLanes.h is what the CUDA interpreter's threads store and poll.
// Here it runs on the host: the units of a step, stored one by one as the
// kernel's threads do, must form exactly the FIFO image the CPU executor's
// codec writes (so the two executors put the same bytes on the wire);
// every unit of a written step must read as current and give its data
// back; a unit of an older step, or never written, must not; and a
// message's steps must tile its chunks as the CPU executor cuts them.
//
//===----------------------------------------------------------------------===//
#include "format/LineLanes.h"
#include "exec/LineCodec.h"

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

using namespace tacclrt;

namespace {

/// Bytes of data \p N long, seeded.
std::vector<unsigned char> randomBytes(std::size_t N, unsigned Seed) {
  std::mt19937 Gen(Seed);
  std::vector<unsigned char> Out(N);
  for (unsigned char &B : Out)
    B = static_cast<unsigned char>(Gen());
  return Out;
}

/// The FIFO image of one step as the kernel's threads store it: unit by
/// unit, each from its zero-padded share of the data.
std::vector<lines::Unit> storeStep(Protocol P,
                                   const std::vector<unsigned char> &Data,
                                   std::uint64_t Flag) {
  std::vector<lines::Unit> Image;
  for (std::uint64_t U = 0; U < lines::unitsFor(P, Data.size()); ++U) {
    unsigned char Share[16] = {};
    const unsigned N = lines::unitDataBytes(P, U, Data.size());
    if (N)
      std::memcpy(Share, Data.data() + lines::unitDataOffset(P, U), N);
    Image.push_back(lines::packUnit(P, U, Share, Flag));
  }
  return Image;
}

const Protocol LineProtocols[] = {Protocol::LL, Protocol::LL128};

} // namespace

TEST_CASE("line units: the kernel's stores form the CPU codec's lines") {
  for (Protocol P : LineProtocols) {
    CAPTURE(nameOf(P));
    for (std::size_t Bytes = 0; Bytes <= 400; Bytes += Bytes < 130 ? 1 : 37) {
      CAPTURE(Bytes);
      std::vector<unsigned char> Data = randomBytes(Bytes, unsigned(Bytes));
      const std::uint64_t Flag = 0x1234567800000000ull + Bytes + 1;
      std::vector<std::uint64_t> Codec;
      encodeStep(P, reinterpret_cast<const std::byte *>(Data.data()), Bytes,
                 Flag, Codec);
      std::vector<lines::Unit> Units = storeStep(P, Data, Flag);
      REQUIRE(Units.size() * sizeof(lines::Unit) ==
              Codec.size() * sizeof(std::uint64_t));
      CHECK(Units.size() * lines::UnitBytes == lineWireBytes(P, Bytes));
      CHECK(std::memcmp(Units.data(), Codec.data(),
                        Codec.size() * sizeof(std::uint64_t)) == 0);
    }
  }
}

TEST_CASE("line units: a written step reads back; old and empty ones wait") {
  for (Protocol P : LineProtocols) {
    CAPTURE(nameOf(P));
    for (std::size_t Bytes : {1u, 7u, 8u, 120u, 121u, 1000u, 32768u}) {
      CAPTURE(Bytes);
      std::vector<unsigned char> Data = randomBytes(Bytes, 7);
      const std::uint64_t Flag = 42;
      std::vector<lines::Unit> Units = storeStep(P, Data, Flag);
      std::vector<unsigned char> Back(Bytes);
      std::uint64_t FlagUnits = 0;
      for (std::uint64_t U = 0; U < Units.size(); ++U) {
        CHECK(lines::unitCurrent(P, U, Units[U], Flag));
        // The next step's flag, and zeroed memory, never read as written.
        const lines::Unit Zero = {};
        if (lines::holdsFlag(P, U)) {
          ++FlagUnits;
          CHECK(lines::unitFlag(P, Units[U]) == Flag);
          CHECK_FALSE(lines::unitCurrent(P, U, Units[U], Flag + 1));
          CHECK_FALSE(lines::unitCurrent(P, U, Zero, Flag));
        }
        unsigned char Share[16] = {};
        lines::unpackUnit(P, U, Units[U], Share);
        const unsigned N = lines::unitDataBytes(P, U, Bytes);
        if (N)
          std::memcpy(Back.data() + lines::unitDataOffset(P, U), Share, N);
      }
      CHECK(Back == Data);
      CHECK(FlagUnits == linesFor(P, Bytes));
    }
  }
}

TEST_CASE("line units: a torn LL line is not current") {
  std::vector<unsigned char> Data = randomBytes(16, 3);
  std::vector<lines::Unit> Units = storeStep(Protocol::LL, Data, 9);
  lines::Unit Torn = Units[1];
  Torn.W[3] = 8; // the second half still from the step before
  CHECK_FALSE(lines::unitCurrent(Protocol::LL, 1, Torn, 9));
}

TEST_CASE("line units: units tile a step with element-aligned shares") {
  for (Protocol P : LineProtocols) {
    const std::uint64_t Bytes = slotDataBytes(P);
    std::uint64_t Next = 0;
    for (std::uint64_t U = 0; U < lines::unitsFor(P, Bytes); ++U) {
      REQUIRE(lines::unitDataOffset(P, U) == Next);
      CHECK(lines::unitDataOffset(P, U) % 8 == 0);
      Next += lines::unitDataBytes(P, U, Bytes);
    }
    CHECK(Next == Bytes);
  }
}

TEST_CASE("line steps: a message's steps tile each chunk in slot pieces") {
  for (Protocol P : LineProtocols) {
    CAPTURE(nameOf(P));
    const std::uint64_t Slot = slotDataBytes(P);
    for (std::uint64_t ChunkBytes :
         {std::uint64_t(4), Slot - 4, Slot, Slot + 4, 3 * Slot + 100}) {
      CAPTURE(ChunkBytes);
      const std::uint64_t PerChunk = lines::stepsPerChunk(P, ChunkBytes);
      CHECK(PerChunk == (ChunkBytes + Slot - 1) / Slot);
      const int Cnt = 3;
      std::vector<std::uint64_t> Covered(Cnt);
      for (std::uint64_t K = 0; K < Cnt * PerChunk; ++K) {
        lines::StepPart S = lines::stepPart(P, ChunkBytes, K);
        REQUIRE(S.Chunk < std::uint32_t(Cnt));
        CHECK(S.Offset == Covered[S.Chunk]);
        CHECK(S.Bytes > 0);
        CHECK(S.Bytes <= Slot);
        Covered[S.Chunk] += S.Bytes;
      }
      for (std::uint64_t C : Covered)
        CHECK(C == ChunkBytes);
    }
    // An empty slice still takes one (empty) step.
    CHECK(lines::stepsPerChunk(P, 0) == 1);
    CHECK(lines::stepPart(P, 0, 0).Bytes == 0);
  }
}
