//===- solver/Subprocess.cpp - Run work in a child process ----------------===//
//
// fork + pipe + poll: the child writes its result and _exits (skipping
// atexit handlers and static destructors of the parent's state); the parent
// reads until end of file, with a deadline, then reaps the child (wait4, for
// its peak memory) and classifies how it ended.
//
// Termination signals are blocked from just before fork until the parent
// has recorded the child's pid, so a handler never misses a child; the child
// restores the default actions before it unblocks them. A child whose parent
// died before it could ask for PR_SET_PDEATHSIG sees another parent pid and
// leaves at once.
//
//===----------------------------------------------------------------------===//
#include "solver/Subprocess.h"

#include "support/Memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tacclc;
using namespace tacclc::solver;

namespace {
/// Exit statuses of a child that did not run its work to the end.
constexpr int ChildWriteFailed = 3, ChildOrphaned = 4, ChildOutOfMemory = 121;

constexpr int TerminationSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// The child runInChild waits for, or 0.
std::atomic<pid_t> ActiveChild{0};
/// The handlers installed before ours, by signal number.
struct sigaction Previous[NSIG];

sigset_t terminationSet() {
  sigset_t Set;
  sigemptyset(&Set);
  for (int Sig : TerminationSignals)
    sigaddset(&Set, Sig);
  return Set;
}

void onTermination(int Sig, siginfo_t *Info, void *Context) {
  int SavedErrno = errno;
  if (pid_t Child = ActiveChild.exchange(0); Child > 0) {
    kill(Child, SIGKILL);
    while (waitpid(Child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  const struct sigaction &Prev = Previous[Sig];
  if (Prev.sa_flags & SA_SIGINFO) {
    if (Prev.sa_sigaction)
      Prev.sa_sigaction(Sig, Info, Context);
  } else if (Prev.sa_handler != SIG_DFL && Prev.sa_handler != SIG_IGN) {
    Prev.sa_handler(Sig);
  }
  // Still alive (no handler before ours, or one that returned): die of the
  // signal as its default action does.
  signal(Sig, SIG_DFL);
  sigset_t Set;
  sigemptyset(&Set);
  sigaddset(&Set, Sig);
  pthread_sigmask(SIG_UNBLOCK, &Set, nullptr);
  raise(Sig);
  errno = SavedErrno;
}

/// In the child, right after fork: die with the parent, take the default
/// signal actions, and keep to the memory limit.
void setUpChild(pid_t Parent, const sigset_t &OldMask, uint64_t MemoryBytes) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != Parent)
    _exit(ChildOrphaned); // the parent died before the request
  // A crash or signal in the child is an outcome the parent reports; the
  // handlers inherited from it (LLVM's stack dumper, the termination
  // handler above) would print a bogus "please report" trace or act on
  // the parent's behalf. A signal the parent ignores stays ignored.
  for (int Sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP})
    signal(Sig, SIG_DFL);
  for (int Sig : TerminationSignals) {
    struct sigaction Now;
    if (sigaction(Sig, nullptr, &Now) == 0 &&
        ((Now.sa_flags & SA_SIGINFO) || Now.sa_handler != SIG_IGN))
      signal(Sig, SIG_DFL);
  }
  pthread_sigmask(SIG_SETMASK, &OldMask, nullptr);
  exitOnOutOfMemory(ChildOutOfMemory);
  if (MemoryBytes > 0) {
    rlimit L;
    if (getrlimit(RLIMIT_DATA, &L) == 0) {
      uint64_t Inherited = currentMemoryUsage().DataBytes;
      uint64_t Want = Inherited + MemoryBytes;
      if (L.rlim_cur == RLIM_INFINITY || Want < L.rlim_cur)
        L.rlim_cur = Want;
      setrlimit(RLIMIT_DATA, &L);
    }
  }
}

[[noreturn]] void runChild(const std::function<std::string()> &Work, int Fd) {
  std::string Out = Work();
  size_t Done = 0;
  while (Done < Out.size()) {
    ssize_t N = write(Fd, Out.data() + Done, Out.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      _exit(ChildWriteFailed);
    Done += size_t(N);
  }
  close(Fd);
  _exit(0);
}
} // namespace

std::optional<std::string>
tacclc::solver::runInChild(const std::function<std::string()> &Work,
                           const ChildLimits &Limits, std::string &Error,
                           ChildReport *Report) {
  int Fds[2];
  if (pipe(Fds) != 0) {
    Error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return std::nullopt;
  }
  std::fflush(nullptr);
  pid_t Parent = getpid();
  sigset_t Block = terminationSet(), OldMask;
  pthread_sigmask(SIG_BLOCK, &Block, &OldMask);
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Fds[0]);
    setUpChild(Parent, OldMask, Limits.MemoryBytes);
    runChild(Work, Fds[1]);
  }
  if (Pid > 0)
    ActiveChild.store(Pid);
  pthread_sigmask(SIG_SETMASK, &OldMask, nullptr);
  if (Pid < 0) {
    Error = fmt::format("cannot fork: {}", std::strerror(errno));
    close(Fds[0]);
    close(Fds[1]);
    return std::nullopt;
  }
  close(Fds[1]);
  using Clock = std::chrono::steady_clock;
  const double Hard = Limits.HardTimeoutSeconds;
  auto Deadline =
      Clock::now() + std::chrono::milliseconds(
                         Hard > 0 ? static_cast<long long>(Hard * 1e3) : 0);
  std::string Out;
  bool TimedOut = false;
  char Buf[65536];
  for (;;) {
    int Wait = -1;
    if (Hard > 0) {
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
  // The child is done or dying: a termination signal from here on needs
  // not kill it (and must not kill a reused pid once it is reaped).
  ActiveChild.store(0);
  int Status = 0;
  rusage Usage{};
  while (wait4(Pid, &Status, 0, &Usage) < 0 && errno == EINTR) {
  }
  bool OutOfMemory =
      WIFEXITED(Status) && WEXITSTATUS(Status) == ChildOutOfMemory;
  if (Report) {
    Report->PeakBytes = uint64_t(Usage.ru_maxrss) * 1024;
    Report->OutOfMemory = OutOfMemory;
    Report->TimedOut = TimedOut;
  }
  if (TimedOut) {
    Error = fmt::format("the solver was still running when its time limit "
                        "({:.3g} s) ran out and was stopped",
                        Hard);
    return std::nullopt;
  }
  if (OutOfMemory) {
    Error = fmt::format("the solver ran out of memory (its limit was {})",
                        formatBytes(Limits.MemoryBytes));
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

std::vector<int> tacclc::solver::ignoredTerminationSignals() {
  std::vector<int> Ignored;
  for (int Sig : TerminationSignals) {
    struct sigaction Now;
    if (sigaction(Sig, nullptr, &Now) == 0 && !(Now.sa_flags & SA_SIGINFO) &&
        Now.sa_handler == SIG_IGN)
      Ignored.push_back(Sig);
  }
  return Ignored;
}

void tacclc::solver::installTerminationHandlers(
    const std::vector<int> &Ignored) {
  for (int Sig : TerminationSignals) {
    struct sigaction Ours {};
    sigemptyset(&Ours.sa_mask);
    if (std::find(Ignored.begin(), Ignored.end(), Sig) != Ignored.end()) {
      Ours.sa_handler = SIG_IGN; // as inherited (nohup, a background job)
    } else {
      if (sigaction(Sig, nullptr, &Previous[Sig]) != 0)
        continue;
      Ours.sa_sigaction = onTermination;
      Ours.sa_flags = SA_SIGINFO;
    }
    sigaction(Sig, &Ours, nullptr);
  }
}
