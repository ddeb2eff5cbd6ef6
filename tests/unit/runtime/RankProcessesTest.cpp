//===- tests/unit/runtime/RankProcessesTest.cpp - Supervised processes ----===//
//
// runRankProcesses (the NCCL backend's process supervision) with bodies
// that succeed, fail, crash and hang: every process is reaped, a failure
// stops the others after the grace period, the limit stops a run that
// never ends, and memory shared before the fork carries results back.
//
//===----------------------------------------------------------------------===//
#include "exec/device/RankProcesses.h"

#include <doctest/doctest.h>

#include <csignal>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

using namespace tacclrt;

namespace {

/// A body that never returns by itself.
int hang() {
  for (;;)
    pause();
}

} // namespace

TEST_CASE("every rank's process runs its body and its result is seen") {
  SharedMemory Shared(4 * sizeof(int));
  REQUIRE(Shared.get() != nullptr);
  auto *Seen = reinterpret_cast<int *>(Shared.get());
  bool Started = false;
  std::string Why;
  auto Ends = runRankProcesses(
      4,
      [&](unsigned R) {
        Seen[R] = int(R) + 100;
        return 0;
      },
      [&] { Started = true; }, 5, 60, Why);
  REQUIRE(Ends);
  CHECK(Started);
  for (unsigned R = 0; R < 4; ++R) {
    CHECK((*Ends)[R].ok());
    CHECK(Seen[R] == int(R) + 100);
  }
}

TEST_CASE("a failing rank stops the others after the grace period") {
  std::string Why;
  auto Ends = runRankProcesses(
      3, [](unsigned R) { return R == 1 ? 3 : hang(); }, nullptr, 0.2, 600,
      Why);
  REQUIRE(Ends);
  CHECK((*Ends)[1].Exited);
  CHECK((*Ends)[1].ExitCode == 3);
  CHECK(!(*Ends)[1].Stopped);
  for (unsigned R : {0u, 2u}) {
    CHECK((*Ends)[R].Stopped);
    CHECK((*Ends)[R].Signal == SIGKILL);
    CHECK(!(*Ends)[R].ok());
  }
}

TEST_CASE("a crash and an exception are failures, not hangs") {
  std::string Why;
  auto Ends = runRankProcesses(
      2,
      [](unsigned R) -> int {
        if (R == 0)
          kill(getpid(), SIGKILL); // a crash no handler intercepts
        throw std::runtime_error("boom");
      },
      nullptr, 5, 600, Why);
  REQUIRE(Ends);
  CHECK((*Ends)[0].Signal == SIGKILL);
  CHECK(!(*Ends)[0].Stopped);
  CHECK((*Ends)[1].Exited);
  CHECK((*Ends)[1].ExitCode == 1);
}

TEST_CASE("the limit stops ranks that never finish") {
  std::string Why;
  auto Ends = runRankProcesses(
      2, [](unsigned) { return hang(); }, nullptr, 600, 0.2, Why);
  REQUIRE(Ends);
  for (const RankEnding &E : *Ends) {
    CHECK(E.Stopped);
    CHECK(E.Signal == SIGKILL);
  }
}
