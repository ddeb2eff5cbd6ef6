//===- tests/unit/solver/SubprocessTest.cpp - runInChild tests ------------===//
//
// The child's result comes back byte for byte; a crash, a failing exit, a
// hard-timeout overrun and running out of its memory limit each become an
// error message, never a dead parent; and a child never outlives the
// process that forked it, even one killed with SIGKILL.
//
//===----------------------------------------------------------------------===//
#include "solver/Subprocess.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace tacclc::solver;

namespace {
ChildLimits timeout(double Seconds) {
  ChildLimits L;
  L.HardTimeoutSeconds = Seconds;
  return L;
}

/// True while \p Pid names a process that has not terminated (a zombie
/// waiting for a parent that does not reap counts as terminated).
bool running(pid_t Pid) {
  std::ifstream Stat("/proc/" + std::to_string(Pid) + "/stat");
  std::string Text;
  if (!std::getline(Stat, Text))
    return false;
  size_t Close = Text.rfind(')');
  return Close != std::string::npos && Close + 2 < Text.size() &&
         Text[Close + 2] != 'Z' && Text[Close + 2] != 'X';
}
} // namespace

TEST_CASE("runInChild returns the child's bytes") {
  std::string Error;
  std::string Big(200000, 'x'); // larger than a pipe buffer
  Big[12345] = '\0';
  ChildReport Report;
  auto Out = runInChild([&] { return Big; }, timeout(30), Error, &Report);
  REQUIRE(Out);
  CHECK(*Out == Big);
  CHECK(Error.empty());
  CHECK(Report.PeakBytes > 0);
  CHECK(!Report.OutOfMemory);
}

TEST_CASE("a crashing child is an error, not a crash") {
  std::string Error;
  auto Out = runInChild(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "unreachable";
      },
      timeout(30), Error);
  CHECK(!Out);
  CHECK(Error.find("crashed") != std::string::npos);
}

TEST_CASE("a failing child and an overrunning child are errors") {
  std::string Error;
  CHECK(!runInChild([]() -> std::string { _exit(7); }, timeout(30), Error));
  CHECK(Error.find("exit status 7") != std::string::npos);
  Error.clear();
  ChildReport Report;
  CHECK(!runInChild(
      []() -> std::string {
        sleep(30);
        return "late";
      },
      timeout(0.3), Error, &Report));
  CHECK(Error.find("still running when its time limit") != std::string::npos);
  CHECK(Report.TimedOut);
}

TEST_CASE("a child that exceeds its memory limit is reported as such") {
  ChildLimits Limits;
  Limits.MemoryBytes = 64 << 20;
  std::string Error;
  ChildReport Report;
  auto Out = runInChild(
      []() -> std::string {
        std::vector<std::vector<char>> Hog;
        for (int I = 0; I < 64; ++I)
          Hog.emplace_back(16 << 20, 'x'); // 1 GB in all
        return "unreachable";
      },
      Limits, Error, &Report);
  CHECK(!Out);
  CHECK(Report.OutOfMemory);
  CHECK(Error.find("ran out of memory") != std::string::npos);
  CHECK(Error.find("64.0 MiB") != std::string::npos);
  // Within the limit all is well.
  Error.clear();
  CHECK(runInChild([] { return std::string(8 << 20, 'y').substr(0, 2); },
                   Limits, Error) == std::string("yy"));
}

TEST_CASE("the child dies with the process that forked it") {
  int Fds[2];
  REQUIRE(pipe(Fds) == 0);
  pid_t Middle = fork();
  REQUIRE(Middle >= 0);
  if (Middle == 0) {
    // The middle process runs a child that reports its pid and sleeps.
    close(Fds[0]);
    std::string Error;
    runInChild(
        [&]() -> std::string {
          pid_t Me = getpid();
          (void)!write(Fds[1], &Me, sizeof(Me));
          sleep(60);
          return "";
        },
        ChildLimits(), Error);
    _exit(0);
  }
  close(Fds[1]);
  pid_t Child = 0;
  REQUIRE(read(Fds[0], &Child, sizeof(Child)) == ssize_t(sizeof(Child)));
  close(Fds[0]);
  CHECK(running(Child));
  kill(Middle, SIGKILL);
  int Status = 0;
  waitpid(Middle, &Status, 0);
  auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (running(Child) && std::chrono::steady_clock::now() < Until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(!running(Child));
}
