//===- tests/unit/frontend/UnitsTest.cpp - Unit conversion tests ----------===//
//
// Table-driven: every accepted unit converts exactly; MB and MiB differ; the
// lists of units (for editors) hold exactly the units that convert.
//
//===----------------------------------------------------------------------===//
#include "frontend/Units.h"

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
      {"B", 1},      {"KB", 1e3},      {"MB", 1e6},          {"GB", 1e9},
      {"KiB", 1024}, {"MiB", 1048576}, {"GiB", 1073741824.0}};
  for (const Row &R : Rows) {
    CAPTURE(R.Unit);
    CHECK(*sizeUnitInBytes(R.Unit) == R.Bytes);
  }
  CHECK(!sizeUnitInBytes("Mb"));
  CHECK(!sizeUnitInBytes("mb"));
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

TEST_CASE("the unit lists are the units the conversions accept") {
  std::vector<llvm::StringRef> Times = timeUnitNames(), Sizes = sizeUnitNames();
  CHECK(Times == std::vector<llvm::StringRef>{"ns", "us", "ms", "s"});
  CHECK(Sizes == std::vector<llvm::StringRef>{"B", "KB", "MB", "GB", "KiB",
                                              "MiB", "GiB"});
  for (llvm::StringRef T : Times)
    CHECK(timeUnitInUs(T));
  for (llvm::StringRef S : Sizes) {
    CHECK(sizeUnitInBytes(S));
    for (llvm::StringRef T : Times)
      CHECK(toUsPerByte(1, T.str() + "/" + S.str()));
  }
}
