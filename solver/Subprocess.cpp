//===- solver/Subprocess.cpp - Run work in a child process ----------------===//
//
// fork + pipe + poll: the child writes its result and _exits (skipping
// atexit handlers and static destructors of the parent's state); the parent
// reads until end of file, with a deadline, then reaps the child and
// classifies how it ended.
//
//===----------------------------------------------------------------------===//
#include "solver/Subprocess.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tacclc::solver;

std::optional<std::string>
tacclc::solver::runInChild(const std::function<std::string()> &Work,
                           double HardTimeoutSeconds, std::string &Error) {
  int Fds[2];
  if (pipe(Fds) != 0) {
    Error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return std::nullopt;
  }
  std::fflush(nullptr);
  pid_t Pid = fork();
  if (Pid < 0) {
    Error = fmt::format("cannot fork: {}", std::strerror(errno));
    close(Fds[0]);
    close(Fds[1]);
    return std::nullopt;
  }
  if (Pid == 0) {
    close(Fds[0]);
    // A crash in the child is an expected outcome the parent reports; the
    // signal handlers inherited from the parent (LLVM's stack dumper)
    // would print a bogus "please report" trace for it.
    for (int Sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP})
      std::signal(Sig, SIG_DFL);
    std::string Out = Work();
    size_t Done = 0;
    while (Done < Out.size()) {
      ssize_t N = write(Fds[1], Out.data() + Done, Out.size() - Done);
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0)
        _exit(3);
      Done += size_t(N);
    }
    close(Fds[1]);
    _exit(0);
  }
  close(Fds[1]);
  using Clock = std::chrono::steady_clock;
  auto Deadline =
      Clock::now() + std::chrono::milliseconds(
                         HardTimeoutSeconds > 0
                             ? static_cast<long long>(HardTimeoutSeconds * 1e3)
                             : 0);
  std::string Out;
  bool TimedOut = false;
  char Buf[65536];
  for (;;) {
    int Wait = -1;
    if (HardTimeoutSeconds > 0) {
      auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      Deadline - Clock::now())
                      .count();
      if (Left <= 0) {
        TimedOut = true;
        break;
      }
      Wait = static_cast<int>(std::min<long long>(Left, 1000));
    }
    pollfd P{Fds[0], POLLIN, 0};
    int R = poll(&P, 1, Wait);
    if (R < 0 && errno == EINTR)
      continue;
    if (R == 0)
      continue;
    ssize_t N = read(Fds[0], Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Out.append(Buf, size_t(N));
  }
  close(Fds[0]);
  if (TimedOut)
    kill(Pid, SIGKILL);
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  if (TimedOut) {
    Error = fmt::format("the solver ran past its hard limit of {:g} s and was "
                        "stopped",
                        HardTimeoutSeconds);
    return std::nullopt;
  }
  if (WIFSIGNALED(Status)) {
    Error = fmt::format("the solver crashed (signal {}: {})", WTERMSIG(Status),
                        strsignal(WTERMSIG(Status)));
    return std::nullopt;
  }
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0) {
    Error = fmt::format("the solver process failed (exit status {})",
                        WEXITSTATUS(Status));
    return std::nullopt;
  }
  return Out;
}
