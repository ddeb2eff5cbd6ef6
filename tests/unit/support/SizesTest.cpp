//===- tests/unit/support/SizesTest.cpp - The one size grammar -----------===//
//
// Decimal and binary units are never confused, lone K/M/G are binary,
// fractions must come to whole bytes, sweeps double, bad specs are refused,
// and formatByteSize() spells a size so that parseByteSize() reads it back.
//
//===----------------------------------------------------------------------===//
#include "support/Sizes.h"

#include <doctest/doctest.h>

using namespace tacclc;

TEST_CASE("sizes: decimal and binary units") {
  CHECK(parseByteSize("64MB") == 64000000u);
  CHECK(parseByteSize("64 MB") == 64000000u);
  CHECK(parseByteSize("64MiB") == 64u << 20);
  CHECK(parseByteSize("64M") == 64u << 20);
  CHECK(parseByteSize("64mb") == 64000000u);
  CHECK(parseByteSize("1GB") == 1000000000u);
  CHECK(parseByteSize("1 GiB") == 1u << 30);
  CHECK(parseByteSize("1TB") == uint64_t(1000000000000));
  CHECK(parseByteSize("8") == 8u);
  CHECK(parseByteSize("8B") == 8u);
  CHECK(parseByteSize("1.5KiB") == 1536u);
  CHECK(parseByteSize("2.5KB") == 2500u);
}

TEST_CASE("sizes: refused") {
  for (const char *Bad : {"", "0", "0KB", "MB", "1.5B", "1.0001KB", "1..5KB",
                          "-1", "1 XB", "1Gb/s", "2000TiB", "1e3", "1.KB2"})
    CHECK_MESSAGE(!parseByteSize(Bad), Bad);
}

TEST_CASE("sizes: lists and ranges") {
  auto R = parseSizeList("1KiB:8KiB");
  REQUIRE(R);
  CHECK(*R == std::vector<uint64_t>{1024, 2048, 4096, 8192});
  auto L = parseSizeList("1MB,1MiB");
  REQUIRE(L);
  CHECK(*L == std::vector<uint64_t>{1000000, 1048576});
  CHECK(!parseSizeList("8KB:1KB"));
  CHECK(!parseSizeList("1KB:"));
  CHECK(!parseSizeList("1KB,,2KB"));
}

TEST_CASE("sizes: formatted exactly and read back") {
  CHECK(formatByteSize(1u << 20) == "1 MiB");
  CHECK(formatByteSize(64000000) == "64 MB");
  CHECK(formatByteSize(1000) == "1 KB");
  CHECK(formatByteSize(1023) == "1023 B");
  CHECK(formatByteSize(0) == "0 B");
  CHECK(formatByteSize(3u << 30) == "3 GiB");
  CHECK(formatByteSize(uint64_t(1) << 40) == "1 TiB");
  CHECK(formatByteSize(uint64_t(2000000000000)) == "2 TB");
  for (uint64_t B : {uint64_t(1), uint64_t(1000), uint64_t(1) << 33,
                     uint64_t(1536), uint64_t(999999), uint64_t(1) << 40})
    CHECK(parseByteSize(formatByteSize(B)) == B);
}

TEST_CASE("sizes: the command-line parser") {
  static llvm::cl::OptionCategory Cat("sizes-test");
  static llvm::cl::opt<ByteSize> Size("sizes-test-size", llvm::cl::cat(Cat),
                                      llvm::cl::init(ByteSize{1}));
  CHECK(uint64_t(Size) == 1u);
  ByteSize V;
  CHECK_FALSE(Size.getParser().parse(Size, "sizes-test-size", "64MB", V));
  CHECK(V == 64000000u);
  CHECK(Size.getParser().parse(Size, "sizes-test-size", "64 XB", V));
  CHECK(V == 64000000u);
}

TEST_CASE("sizes: one table of units") {
  for (const ByteUnit &U : byteUnits()) {
    CAPTURE(U.Name);
    CHECK(byteSizeUnit(U.Name) == U.Bytes);
    CHECK(parseByteSize(std::string("2") + U.Name) == 2 * U.Bytes);
  }
  CHECK(byteSizeUnit("kib") == 1024u);
  CHECK(!byteSizeUnit("PB"));
}

TEST_CASE("sizes: the command-line parser of lists") {
  static llvm::cl::OptionCategory Cat("sizes-list-test");
  static llvm::cl::opt<ByteSizeList> Sizes(
      "sizes-test-list", llvm::cl::cat(Cat),
      llvm::cl::init(ByteSizeList::of("1KiB:4KiB")));
  CHECK(Sizes.Bytes == std::vector<uint64_t>{1024, 2048, 4096});
  ByteSizeList V;
  CHECK_FALSE(Sizes.getParser().parse(Sizes, "sizes-test-list", "1KB,1MiB", V));
  CHECK(V.Bytes == std::vector<uint64_t>{1000, 1048576});
  CHECK(Sizes.getParser().parse(Sizes, "sizes-test-list", "1KB:x", V));
  CHECK(V.Bytes == std::vector<uint64_t>{1000, 1048576});
}
