//===- tests/unit/support/StdlibTest.cpp - Finding the standard library ---===//
//
// resolveStdlib() on explicit inputs: $TACCLC_STDLIB wins (even when it is
// not a folder, which is then reported), an empty one counts as unset, an
// installed tree beside the binary comes next, and the source tree last;
// describeStdlib() says which.
//
//===----------------------------------------------------------------------===//
#include "support/Stdlib.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <doctest/doctest.h>

using namespace tacclc;

namespace {

/// A temporary prefix with bin/ and share/tacclc/stdlib/, removed after.
struct Prefix {
  llvm::SmallString<128> Root;
  Prefix() {
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("stdlib-test", Root));
    REQUIRE(!llvm::sys::fs::create_directories(path("bin")));
    REQUIRE(!llvm::sys::fs::create_directories(path("share/tacclc/stdlib")));
  }
  ~Prefix() { llvm::sys::fs::remove_directories(Root); }
  std::string path(llvm::StringRef Rel) const {
    llvm::SmallString<128> P(Root);
    llvm::sys::path::append(P, Rel);
    return P.str().str();
  }
};

const char *Rel = "../share/tacclc/stdlib";

} // namespace

TEST_CASE("stdlib: installed beside the binary") {
  Prefix P;
  StdlibLocation L =
      resolveStdlib(std::nullopt, P.path("bin/tacclc"), Rel, "/src/stdlib");
  CHECK(L.Origin == StdlibOrigin::Installed);
  CHECK(L.Dir == P.path("share/tacclc/stdlib"));
  CHECK(L.Exists);
  CHECK(describeStdlib(L) ==
        "standard library: " + P.path("share/tacclc/stdlib") +
            " (installed beside the binary)");
}

TEST_CASE("stdlib: the environment wins, empty is unset") {
  Prefix P;
  StdlibLocation L = resolveStdlib(std::string(P.Root.str()),
                                   P.path("bin/tacclc"), Rel, "/src/stdlib");
  CHECK(L.Origin == StdlibOrigin::Environment);
  CHECK(L.Dir == P.Root.str());
  CHECK(L.Exists);
  L = resolveStdlib(std::string(), P.path("bin/tacclc"), Rel, "/src/stdlib");
  CHECK(L.Origin == StdlibOrigin::Installed);
  L = resolveStdlib(P.path("missing"), P.path("bin/tacclc"), Rel,
                    "/src/stdlib");
  CHECK(L.Origin == StdlibOrigin::Environment);
  CHECK_FALSE(L.Exists);
  CHECK(describeStdlib(L) == "standard library: " + P.path("missing") +
                                 " (from TACCLC_STDLIB; not a directory)");
}

TEST_CASE("stdlib: the source tree when nothing is installed") {
  Prefix P;
  StdlibLocation L =
      resolveStdlib(std::nullopt, P.path("bin/tacclc"), "../nowhere", P.Root);
  CHECK(L.Origin == StdlibOrigin::SourceTree);
  CHECK(L.Dir == P.Root.str());
  CHECK(L.Exists);
  CHECK(describeStdlib(L) == "standard library: " + P.Root.str().str() +
                                 " (the source tree of this build)");
  L = resolveStdlib(std::nullopt, "", Rel, P.path("gone"));
  CHECK(L.Origin == StdlibOrigin::SourceTree);
  CHECK_FALSE(L.Exists);
}
