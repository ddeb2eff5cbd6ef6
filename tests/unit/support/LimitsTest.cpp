//===- tests/unit/support/LimitsTest.cpp - Deadlines and memory budget ----===//
//
// The compile's deadline throws naming the phase, scopes nest and restore;
// processStart() is when the process was forked; the memory budget follows
// --max-memory and never exceeds the process's own limits; an allocation
// failure prints one line naming the phase and exits 2 (or, in a reporting
// child, exits quietly with its status). The process-limit and
// out-of-memory cases run in forked children.
//
//===----------------------------------------------------------------------===//
#include "support/Deadline.h"
#include "support/Memory.h"

#include "llvm/Support/MemAlloc.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tacclc;

namespace {
/// An allocation too large for any machine, and where its result goes (so
/// that the compiler cannot drop the call).
volatile size_t Huge = size_t(1) << 60;
void *volatile Kept;

/// Runs \p Body in a forked child; returns its exit status (-signal when
/// killed) and what it wrote to stderr.
std::pair<int, std::string> inChild(const std::function<void()> &Body) {
  int Fds[2];
  REQUIRE(pipe(Fds) == 0);
  pid_t Pid = fork();
  REQUIRE(Pid >= 0);
  if (Pid == 0) {
    close(Fds[0]);
    dup2(Fds[1], STDERR_FILENO);
    Body();
    _exit(0);
  }
  close(Fds[1]);
  std::string Err;
  char Buf[4096];
  for (ssize_t N; (N = read(Fds[0], Buf, sizeof(Buf))) > 0;)
    Err.append(Buf, size_t(N));
  close(Fds[0]);
  int Status = 0;
  waitpid(Pid, &Status, 0);
  return {WIFEXITED(Status) ? WEXITSTATUS(Status) : -WTERMSIG(Status), Err};
}
} // namespace

TEST_CASE("deadlines pass, compare and count down") {
  Deadline Never;
  CHECK(!Never.isSet());
  CHECK(!Never.hasPassed());
  CHECK(std::isinf(Never.secondsLeft()));
  CHECK(!Deadline::after(std::nan("")).isSet());
  CHECK(!Deadline::after(1e12).isSet());
  Deadline Past = Deadline::after(-1), Soon = Deadline::after(30);
  CHECK(Past.hasPassed());
  CHECK(!Soon.hasPassed());
  CHECK(Soon.secondsLeft() > 29);
  CHECK(Soon.secondsLeft() <= 30);
  CHECK(Soon.earliest(Past).hasPassed());
  CHECK(Past.earliest(Soon).hasPassed());
  CHECK(Never.earliest(Soon).isSet());
  CHECK(!Soon.earliest(Never).hasPassed());
}

TEST_CASE("checkDeadline throws naming the phase, within its scope only") {
  CHECK(!compileDeadline().isSet());
  checkDeadline(); // no deadline: nothing happens
  {
    DeadlineScope Scope(Deadline::after(-1), 12.5);
    CHECK(compileDeadline().hasPassed());
    {
      PhaseScope Outer("ordering transfers");
      {
        PhaseScope Inner("building the scheduling model");
        CHECK(std::string(currentPhase()) == "building the scheduling model");
      }
      CHECK(std::string(currentPhase()) == "ordering transfers");
      try {
        checkDeadline();
        FAIL("no exception");
      } catch (const TimeLimitExceeded &E) {
        CHECK(std::string(E.phase()) == "ordering transfers");
        CHECK(E.limitSeconds() == 12.5);
        CHECK(std::string(E.what()) ==
              "the time limit of 12.5 s passed while ordering transfers");
      }
    }
    CHECK(currentPhase() == nullptr);
    {
      DeadlineScope Later(Deadline::after(30), 30);
      checkDeadline(); // the inner scope's deadline has not passed
      checkDeadlineAhead(1); // nor will it within a second
      CHECK_THROWS_AS(checkDeadlineAhead(60), TimeLimitExceeded);
    }
    CHECK_THROWS_AS(checkDeadline(), TimeLimitExceeded);
  }
  CHECK(!compileDeadline().isSet());
  checkDeadline();
  checkDeadlineAhead(1e9);
}

TEST_CASE("processStart is when the process began") {
  using Clock = Deadline::Clock;
  Clock::time_point Started = processStart();
  CHECK(Started <= Clock::now());
  // This test runs after the process started, and well within an hour.
  CHECK(Clock::now() - Started < std::chrono::hours(1));
  // A child asked 200 ms after it was forked says when it was forked (to
  // the 10 ms tick of /proc), not when it was asked.
  Clock::time_point Forked = Clock::now();
  auto Result = inChild([Forked] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Clock::time_point Child = processStart();
    bool Right = Child >= Forked - std::chrono::milliseconds(30) &&
                 Child <= Forked + std::chrono::milliseconds(100);
    std::_Exit(Right ? 0 : 1);
  });
  CHECK(Result.first == 0);
}

TEST_CASE("formatBytes prints binary units") {
  CHECK(formatBytes(0) == "0 B");
  CHECK(formatBytes(1023) == "1023 B");
  CHECK(formatBytes(1536) == "1.5 KiB");
  CHECK(formatBytes(64ull << 20) == "64.0 MiB");
  CHECK(formatBytes(3ull << 30) == "3.0 GiB");
  CHECK(formatBytes(5ull << 40) == "5.0 TiB");
}

TEST_CASE("the memory budget follows --max-memory and the process limits") {
  MemoryUsage U = currentMemoryUsage();
  CHECK(U.ResidentBytes > 0);
  CHECK(U.VirtualBytes >= U.ResidentBytes);
  CHECK(peakResidentBytes() >= U.ResidentBytes);
  CHECK(physicalMemoryBytes() > 0);
  auto [Status, Err] = inChild([] {
    rlimit L{RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_AS, &L);
    setrlimit(RLIMIT_DATA, &L);
    MemoryBudget Asked = memoryBudget(uint64_t(1) << 30);
    MemoryBudget Default = memoryBudget(std::nullopt);
    MemoryBudget None = memoryBudget(0);
    if (Asked.Bytes != uint64_t(1) << 30 || Asked.Source != "--max-memory")
      _exit(10);
    if (Default.Bytes != physicalMemoryBytes() / 2)
      _exit(11);
    if (None.Bytes != 0 || None.available() != UINT64_MAX)
      _exit(12);
    if (Asked.available() >= Asked.Bytes)
      _exit(13); // what the process uses counts against it
    // A limit of the process caps every budget, less what it has mapped
    // but not filled and a tenth for what no estimate covers.
    uint64_t Limit = currentMemoryUsage().VirtualBytes + (uint64_t(1) << 30);
    L.rlim_cur = Limit;
    setrlimit(RLIMIT_AS, &L);
    MemoryBudget Capped = memoryBudget(uint64_t(1) << 40);
    if (Capped.Bytes >= Limit - Limit / 10 ||
        Capped.Source != "the address-space limit (ulimit -v)")
      _exit(14);
    if (memoryBudget(0).Bytes != Capped.Bytes)
      _exit(15);
  });
  CHECK(Status == 0);
  CHECK(Err.empty());
}

TEST_CASE("running out of memory prints one line naming the phase") {
  auto [Status, Err] = inChild([] {
    installOutOfMemoryHandler();
    PhaseScope Phase("testing the handler");
    Kept = ::operator new(Huge);
  });
  CHECK(Status == 2);
  CHECK(Err.rfind("tacclc: error: out of memory while testing the handler; ",
                  0) == 0);
  CHECK(Err.find("--max-memory") != std::string::npos);
  CHECK(Err.find('\n') == Err.size() - 1);
  // LLVM's allocators report to the same handler instead of aborting.
  auto [LlvmStatus, LlvmErr] = inChild([] {
    installOutOfMemoryHandler();
    Kept = llvm::safe_malloc(Huge);
  });
  CHECK(LlvmStatus == 2);
  CHECK(LlvmErr.rfind("tacclc: error: out of memory while compiling; ", 0) ==
        0);
  CHECK(LlvmErr.find("LLVM ERROR") == std::string::npos);
}

TEST_CASE("a reporting child exits quietly when out of memory") {
  auto [Status, Err] = inChild([] {
    exitOnOutOfMemory(7);
    Kept = ::operator new(Huge);
  });
  CHECK(Status == 7);
  CHECK(Err.empty());
}
