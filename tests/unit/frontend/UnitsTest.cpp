//===- tests/unit/frontend/UnitsTest.cpp - Unit conversion tests ----------===//
//
// Table-driven: every accepted unit converts exactly; MB and MiB differ, and
// so do GB (bytes) and Gb (bits); sizes are the command lines' units, spelled
// exactly; the lists of units (for editors) hold exactly the units that
// convert.
//
//===----------------------------------------------------------------------===//
#include "frontend/Units.h"

#include "llvm/ADT/StringExtras.h"
#include "support/Sizes.h"

#include <doctest/doctest.h>

using namespace tacclc;

TEST_CASE("time units convert to microseconds") {
  CHECK(*timeUnitInUs("us") == 1.0);
  CHECK(*timeUnitInUs("ns") == doctest::Approx(1e-3));
  CHECK(*timeUnitInUs("ms") == 1e3);
  CHECK(*timeUnitInUs("s") == 1e6);
  CHECK(!timeUnitInUs("min"));
  CHECK(!timeUnitInUs("US"));
}

TEST_CASE("decimal and binary sizes are never confused") {
  struct Row {
    const char *Unit;
    double Bytes;
  } Rows[] = {
      {"B", 1},         {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},      {"TB", 1e12},          {"KiB", 1024},
      {"MiB", 1048576}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
  for (const Row &R : Rows) {
    CAPTURE(R.Unit);
    CHECK(*sizeUnitInBytes(R.Unit) == R.Bytes);
  }
  CHECK(!sizeUnitInBytes("Mb"));
  CHECK(!sizeUnitInBytes("mb"));
  CHECK(!sizeUnitInBytes("M")); // nccl-tests' letters: command lines only
  CHECK(!sizeUnitInBytes("K"));
  CHECK(llvm::join(sizeUnitNames(), ", ") ==
        "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB");
}

TEST_CASE("a sketch's size units mean what the command lines' do") {
  for (const ByteUnit &U : byteUnits()) {
    CAPTURE(U.Name);
    if (U.Letter)
      continue;
    REQUIRE(sizeUnitInBytes(U.Name));
    CHECK(*sizeUnitInBytes(U.Name) == double(*byteSizeUnit(U.Name)));
    CHECK(*sizeUnitInBytes(U.Name) ==
          double(*parseByteSize(std::string("1 ") + U.Name)));
  }
}

TEST_CASE("beta accepts inverse bandwidths and bandwidths") {
  struct Row {
    double Value;
    const char *Unit;
    double UsPerByte;
  } Rows[] = {
      {46, "us/MB", 46e-6},         {1, "us/KiB", 1.0 / 1024},
      {1000, "ns/MB", 1e-6},        {25, "GB/s", 1e6 / 25e9},
      {1, "MiB/ms", 1e3 / 1048576},
  };
  for (const Row &R : Rows) {
    CAPTURE(R.Unit);
    auto V = toUsPerByte(R.Value, R.Unit);
    REQUIRE(V);
    CHECK(*V == doctest::Approx(R.UsPerByte));
  }
  CHECK(!toUsPerByte(1, "us"));
  CHECK(!toUsPerByte(1, "us/s"));
  CHECK(!toUsPerByte(1, "MB/MB"));
  CHECK(!toUsPerByte(0, "GB/s"));
}

TEST_CASE("beta accepts bit rates: 1 Gb/s is 1.25e8 B/s") {
  struct Row {
    double Value;
    const char *Unit;
    double BytesPerSecond;
  } Rows[] = {
      {1, "Gb/s", 1.25e8},   {100, "Gbit/s", 1.25e10},
      {200, "Gb/s", 2.5e10}, {10, "Mb/s", 1.25e6},
      {1, "Tb/s", 1.25e11},  {8, "kb/ms", 1e6},
      {8, "Kbit/us", 1e9},   {8, "b/s", 1},
      {8, "bit/s", 1},
  };
  for (const Row &R : Rows) {
    CAPTURE(R.Unit);
    auto V = toUsPerByte(R.Value, R.Unit);
    REQUIRE(V);
    CHECK(*V == doctest::Approx(1e6 / R.BytesPerSecond));
  }
  // Bits and bytes differ by case: Gb/s is an eighth of GB/s.
  CHECK(*toUsPerByte(1, "Gb/s") ==
        doctest::Approx(8 * *toUsPerByte(1, "GB/s")));
  // Bits are bandwidths only, never sizes or inverse bandwidths.
  CHECK(!sizeUnitInBytes("Gb"));
  CHECK(!toUsPerByte(1, "us/Mb"));
  for (const char *Bad : {"Gbits/s", "gb/s", "Pb/s", "Gib/s", "GBit/s"}) {
    CAPTURE(Bad);
    CHECK(!toUsPerByte(1, Bad));
  }
  CHECK(byteUnitFor("Gb") == "GB");
  CHECK(byteUnitFor("kbit") == "KB");
  CHECK(byteUnitFor("b") == "B");
}

TEST_CASE("the unit lists are the units the conversions accept") {
  std::vector<llvm::StringRef> Times = timeUnitNames(), Sizes = sizeUnitNames();
  CHECK(Times == std::vector<llvm::StringRef>{"ns", "us", "ms", "s"});
  CHECK(Sizes == std::vector<llvm::StringRef>{"B", "KB", "MB", "GB", "TB", "KiB",
                                              "MiB", "GiB", "TiB"});
  for (llvm::StringRef T : Times)
    CHECK(timeUnitInUs(T));
  for (llvm::StringRef S : Sizes) {
    CHECK(sizeUnitInBytes(S));
    for (llvm::StringRef T : Times)
      CHECK(toUsPerByte(1, T.str() + "/" + S.str()));
  }
}
