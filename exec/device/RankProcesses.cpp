//===- exec/device/RankProcesses.cpp - One process per rank, supervised ---===//
//
// runRankProcesses and SharedMemory (RankProcesses.h): fork, then a polling
// wait (waitpid WNOHANG every few milliseconds) that applies the grace
// period after the first failure and the overall limit, killing with
// SIGKILL and always reaping, so no process outlives the call; and each
// rank asks for SIGKILL when its parent dies, so none outlives a
// supervisor that is killed either.
//
//===----------------------------------------------------------------------===//
#include "exec/device/RankProcesses.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace tacclrt {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

RankEnding endingOf(int Status, bool Stopped) {
  RankEnding E;
  E.Stopped = Stopped;
  if (WIFEXITED(Status)) {
    E.Exited = true;
    E.ExitCode = WEXITSTATUS(Status);
  } else if (WIFSIGNALED(Status)) {
    E.Signal = WTERMSIG(Status);
  }
  return E;
}

} // namespace

std::optional<std::vector<RankEnding>>
runRankProcesses(unsigned N, const std::function<int(unsigned)> &Body,
                 const std::function<void()> &AfterStart, double GraceSeconds,
                 double LimitSeconds, std::string &Why) {
  std::fflush(nullptr); // nothing buffered is written twice
  std::vector<pid_t> Pids;
  const pid_t Parent = getpid();
  for (unsigned R = 0; R < N; ++R) {
    pid_t Pid = fork();
    if (Pid == 0) {
      // A rank never outlives the supervisor, however that ends (this
      // thread waits for every rank, so it outlives them); the check
      // covers a supervisor that died before the request.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != Parent)
        _exit(1);
      int Status = 1;
      try {
        Status = Body(R);
      } catch (...) {
        Status = 1;
      }
      std::fflush(nullptr);
      _exit(Status);
    }
    if (Pid < 0) {
      Why = fmt::format("could not start rank {}'s process: {}", R,
                        std::strerror(errno));
      for (pid_t P : Pids) {
        kill(P, SIGKILL);
        waitpid(P, nullptr, 0);
      }
      if (AfterStart)
        AfterStart();
      return std::nullopt;
    }
    Pids.push_back(Pid);
  }
  if (AfterStart)
    AfterStart();

  std::vector<RankEnding> Endings(N);
  std::vector<bool> Done(N, false), Killed(N, false);
  const Clock::time_point Begin = Clock::now();
  std::optional<Clock::time_point> FirstFailure;
  for (unsigned Left = N; Left > 0;) {
    for (unsigned R = 0; R < N; ++R) {
      if (Done[R])
        continue;
      int Status = 0;
      pid_t Got = waitpid(Pids[R], &Status, WNOHANG);
      if (Got == 0 || (Got < 0 && errno == EINTR))
        continue;
      if (Got < 0) // not our child any more (reaped elsewhere): a failure
        Status = 1 << 8;
      Done[R] = true;
      --Left;
      Endings[R] = endingOf(Status, Killed[R]);
      if (!Endings[R].ok() && !FirstFailure)
        FirstFailure = Clock::now();
    }
    if (Left == 0)
      break;
    if (secondsSince(Begin) > LimitSeconds ||
        (FirstFailure && secondsSince(*FirstFailure) > GraceSeconds))
      for (unsigned R = 0; R < N; ++R)
        if (!Done[R] && !Killed[R]) {
          kill(Pids[R], SIGKILL);
          Killed[R] = true;
        }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Endings;
}

SharedMemory::SharedMemory(std::size_t Bytes) : Bytes(Bytes) {
  void *P = mmap(nullptr, Bytes ? Bytes : 1, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  Base = P == MAP_FAILED ? nullptr : static_cast<std::byte *>(P);
}

SharedMemory::~SharedMemory() {
  if (Base)
    munmap(Base, Bytes ? Bytes : 1);
}

} // namespace tacclrt
