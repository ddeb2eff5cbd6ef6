//===- tests/unit/tune/CacheTest.cpp - Content keys -----------------------===//
//
// tune/Cache.h: keys are the SHA-256 of their parts, stable, and different
// for different parts (also where only the split between parts differs).
//
//===----------------------------------------------------------------------===//
#include "tune/Cache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <cstdlib>

using namespace tacclc::tune;

TEST_CASE("content keys are stable and tell their parts apart") {
  std::string K = contentKey({"machine", "sketch"});
  CHECK(K.size() == 64);
  CHECK(K == contentKey({"machine", "sketch"}));
  CHECK(K != contentKey({"machine", "sketch "}));
  CHECK(K != contentKey({"machin", "esketch"}));
  CHECK(K != contentKey({"machinesketch"}));
  CHECK(contentKey({}) != contentKey({""}));
}

TEST_CASE("a file's digest is the SHA-256 of its bytes") {
  llvm::SmallString<128> Path;
  std::error_code Made =
      llvm::sys::fs::createTemporaryFile("tune", "txt", Path);
  REQUIRE_FALSE(bool(Made));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << "abc";
  }
  // SHA-256("abc"), FIPS 180-2 appendix B.1.
  CHECK(fileDigest(std::string(Path)) ==
        std::string("ba7816bf8f01cfea414140de5dae2223"
                    "b00361a396177a9cb410ff61f20015ad"));
  llvm::sys::fs::remove(Path);
  CHECK_FALSE(fileDigest("/nonexistent/tune-file"));
}

TEST_CASE("the cache folder follows the environment") {
  setenv("TACCLC_CACHE_DIR", "/tmp/a-cache", 1);
  CHECK(defaultCacheDir() == "/tmp/a-cache");
  unsetenv("TACCLC_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(defaultCacheDir() == "/tmp/xdg/tacclc/tune");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  CHECK(defaultCacheDir() == "/home/someone/.cache/tacclc/tune");
}
