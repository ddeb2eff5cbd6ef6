//===- tests/unit/solver/SubprocessTest.cpp - runInChild tests ------------===//
//
// The child's result comes back byte for byte; a crash, a failing exit and a
// hard-timeout overrun each become an error message, never a dead parent.
//
//===----------------------------------------------------------------------===//
#include "solver/Subprocess.h"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <unistd.h>

using namespace tacclc::solver;

TEST_CASE("runInChild returns the child's bytes") {
  std::string Error;
  std::string Big(200000, 'x'); // larger than a pipe buffer
  Big[12345] = '\0';
  auto Out = runInChild([&] { return Big; }, 30, Error);
  REQUIRE(Out);
  CHECK(*Out == Big);
  CHECK(Error.empty());
}

TEST_CASE("a crashing child is an error, not a crash") {
  std::string Error;
  auto Out = runInChild(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "unreachable";
      },
      30, Error);
  CHECK(!Out);
  CHECK(Error.find("crashed") != std::string::npos);
}

TEST_CASE("a failing child and an overrunning child are errors") {
  std::string Error;
  CHECK(!runInChild([]() -> std::string { _exit(7); }, 30, Error));
  CHECK(Error.find("exit status 7") != std::string::npos);
  Error.clear();
  CHECK(!runInChild(
      []() -> std::string {
        sleep(30);
        return "late";
      },
      0.3, Error));
  CHECK(Error.find("hard limit") != std::string::npos);
}
