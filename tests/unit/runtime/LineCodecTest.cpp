//===- tests/unit/runtime/LineCodecTest.cpp - LL and LL128 lines ----------===//
//
// The FIFO line formats of NCCL's low-latency protocols: geometry (slot
// sizes as NCCL's buffers give them, in step with the slice sizes the
// runtime uses), every byte count round-trips with its flags where NCCL
// puts them, a stale flag is found on the line it is on, and the CPU
// executor computes every collective fixture under LL and LL128 in every
// data type, with slices that span several connection steps.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "exec/CpuExecutor.h"
#include "exec/LineCodec.h"

#include <doctest/doctest.h>

#include <random>

using namespace tacclrt;
using namespace tacclrt::test;

TEST_CASE("lines: geometry is NCCL's and matches the runtime's slices") {
  CHECK(lineFormatOf(Protocol::LL).LineBytes == 16);
  CHECK(lineFormatOf(Protocol::LL).DataBytes == 8);
  CHECK(lineFormatOf(Protocol::LL).SlotLines == 4096);
  CHECK(lineFormatOf(Protocol::LL128).LineBytes == 128);
  CHECK(lineFormatOf(Protocol::LL128).DataBytes == 120);
  CHECK(lineFormatOf(Protocol::LL128).SlotLines == 4800);
  CHECK_FALSE(usesLines(Protocol::Simple));
  for (Protocol P : {Protocol::LL, Protocol::LL128})
    CHECK(slotDataBytes(P) == protocolSliceBytes(P));
  CHECK(lineWireBytes(Protocol::LL, 8) == 16);
  CHECK(lineWireBytes(Protocol::LL, 9) == 32);
  CHECK(lineWireBytes(Protocol::LL128, 120) == 128);
  CHECK(lineWireBytes(Protocol::LL128, 121) == 256);
  CHECK(lineWireBytes(Protocol::Simple, 121) == 121);
  CHECK(lineWireBytes(Protocol::LL, 0) == 0);
  CHECK(stepFlag(0) != 0);
}

TEST_CASE("lines: every byte count round-trips with flags in place") {
  std::mt19937 Gen(7);
  for (Protocol P : {Protocol::Simple, Protocol::LL, Protocol::LL128}) {
    std::string Name(nameOf(P));
    CAPTURE(Name);
    for (std::size_t Bytes = 0; Bytes <= 300; ++Bytes) {
      CAPTURE(Bytes);
      std::vector<std::byte> In(Bytes), Out(Bytes, std::byte{0xee});
      for (std::byte &B : In)
        B = std::byte(Gen() & 0xff);
      const std::uint64_t Flag = 0x1234567800000000ull + Bytes + 1;
      std::vector<std::uint64_t> Lines;
      encodeStep(P, In.data(), Bytes, Flag, Lines);
      if (usesLines(P)) {
        REQUIRE(Lines.size() * 8 == lineWireBytes(P, Bytes));
        const std::size_t W = lineWords(P);
        for (std::size_t L = 0; L < Lines.size() / W; ++L) {
          if (P == Protocol::LL) {
            CHECK((Lines[L * W] >> 32) == (Flag & 0xffffffffu));
            CHECK((Lines[L * W + 1] >> 32) == (Flag & 0xffffffffu));
          } else {
            CHECK(Lines[L * W + W - 1] == Flag);
          }
        }
      }
      CHECK_FALSE(decodeStep(P, Lines.data(), Bytes, Flag, Out.data()));
      CHECK(In == Out);
    }
  }
}

TEST_CASE("lines: a line with another step's flag is found") {
  std::vector<std::byte> In(1000, std::byte{1}), Out(1000);
  for (Protocol P : {Protocol::LL, Protocol::LL128}) {
    std::string Name(nameOf(P));
    CAPTURE(Name);
    std::vector<std::uint64_t> Lines;
    encodeStep(P, In.data(), In.size(), stepFlag(5), Lines);
    // Not yet written: zeroed memory never matches a flag.
    std::vector<std::uint64_t> Zero(Lines.size(), 0);
    auto Fault = decodeStep(P, Zero.data(), In.size(), stepFlag(5), Out.data());
    REQUIRE(Fault);
    CHECK(Fault->Line == 0);
    CHECK(Fault->Found == 0);
    CHECK(Fault->Expected == stepFlag(5));
    // One line left from the previous use of the slot.
    std::vector<std::uint64_t> Old;
    encodeStep(P, In.data(), In.size(), stepFlag(4), Old);
    const std::size_t W = lineWords(P);
    std::copy(Old.begin() + 3 * W, Old.begin() + 4 * W, Lines.begin() + 3 * W);
    Fault = decodeStep(P, Lines.data(), In.size(), stepFlag(5), Out.data());
    REQUIRE(Fault);
    CHECK(Fault->Line == 3);
    CHECK(Fault->Found == stepFlag(4));
    // LL: half a line is enough to be caught (its two 8-byte stores are
    // separate).
    if (P == Protocol::LL) {
      encodeStep(P, In.data(), In.size(), stepFlag(5), Lines = {});
      Lines[2 * 7 + 1] = Old[2 * 7 + 1];
      Fault = decodeStep(P, Lines.data(), In.size(), stepFlag(5), Out.data());
      REQUIRE(Fault);
      CHECK(Fault->Line == 7);
    }
  }
}

TEST_CASE("lines: the CPU executor runs every fixture under LL and LL128") {
  struct Case {
    const char *Fixture;
    std::uint64_t Elems;
    bool InPlace;
  };
  // Element counts that need whole elements per rank and chunk.
  const Case Cases[] = {
      {"allgather_ring4.xml", 4 * 48, false},
      {"allreduce_ring3.xml", 3 * 40, true},
      {"allreduce_rrc2.xml", 2 * 50, false},
      {"alltoall3.xml", 3 * 3 * 20, false},
      {"reducescatter2.xml", 2 * 2 * 30, true},
  };
  for (Protocol P : {Protocol::LL, Protocol::LL128}) {
    std::string Name(nameOf(P));
    CAPTURE(Name);
    for (const Case &C : Cases) {
      CAPTURE(C.Fixture);
      Algo A = loadFixture(C.Fixture);
      A.Proto = P;
      for (DataType T :
           {DataType::Int8, DataType::UInt8, DataType::Int32, DataType::UInt32,
            DataType::Int64, DataType::UInt64, DataType::Float16,
            DataType::BFloat16, DataType::Float32, DataType::Float64}) {
        std::string TypeName(nameOf(T));
        CAPTURE(TypeName);
        RunOptions O;
        O.Bytes = C.Elems * sizeOf(T);
        O.InPlace = C.InPlace;
        O.Type = T;
        O.WatchdogSeconds = 30;
        RunResult R = runOnCpu(A, O, C.Fixture);
        CHECK_MESSAGE(R.Ok, R.Summary, "\n", R.Issues.str());
        CHECK(R.WrongElements == 0);
      }
    }
  }
}

TEST_CASE("lines: a slice larger than a slot takes several steps") {
  // 3 ranks x 4 B x 40,000 elements: 160 KB chunks, so LL's 32 KiB slots
  // take five steps per chunk and slice, LL128's 576,000 B one.
  for (Protocol P : {Protocol::LL, Protocol::LL128}) {
    std::string Name(nameOf(P));
    CAPTURE(Name);
    Algo A = loadFixture("allreduce_ring3.xml");
    A.Proto = P;
    RunOptions O;
    O.Bytes = 3 * 4 * 40000;
    O.InPlace = true;
    O.SliceBytes = 160000;
    O.WatchdogSeconds = 30;
    RunResult R = runOnCpu(A, O, "ar");
    CHECK_MESSAGE(R.Ok, R.Summary, "\n", R.Issues.str());
    CHECK(R.WrongElements == 0);
  }
}
