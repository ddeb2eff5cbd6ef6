//===- sim/SimGridRun.cpp - One SimGrid run per child process -------------===//
//
// SimGrid keeps one engine per process and cannot start a second one, so
// every simulated call runs in a forked child: the parent checks the plan
// and its sizes (the same checks and messages as the in-house engine),
// forks, and reads the outcome back through a pipe as plain records. While
// it waits it calls the poll hook, so a deadline or a signal that abandons
// the work also kills the child. A child that dies (SimGrid aborts on some
// inputs) is an error naming the signal, never a silent result. SimGrid's
// own log is silenced unless TACCLC_SIMGRID_LOG is set.
//
//===----------------------------------------------------------------------===//
#include "sim/SimGridRun.h"

#include "format/Poll.h"
#include "sim/SimGridModule.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>

namespace tacclrt {

namespace {

static_assert(std::is_trivially_copyable_v<SimTransfer>);
static_assert(std::is_trivially_copyable_v<SgStuck>);

/// The records a child writes: a header, the transfers, the stuck
/// threadblocks.
struct Header {
  std::uint32_t Ok = 0;
  double TimeUs = 0;
  std::uint64_t NTransfers = 0, NStuck = 0;
};

bool writeAll(int Fd, const void *Data, std::size_t Size) {
  const char *P = static_cast<const char *>(Data);
  while (Size > 0) {
    ssize_t N = ::write(Fd, P, Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    P += N;
    Size -= static_cast<std::size_t>(N);
  }
  return true;
}

[[noreturn]] void child(int Fd, const SimGridModule &Module, SimEngineKind K,
                        const Algo &A, const Program &P,
                        const SimCallShape &Shape, const SimMachine &M,
                        const SimOptions &O) {
  setPollHook(nullptr);
  if (!std::getenv("TACCLC_SIMGRID_LOG")) {
    int Null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (Null >= 0) {
      ::dup2(Null, STDOUT_FILENO);
      ::dup2(Null, STDERR_FILENO);
    }
  }
  SgOutcome R = Module.Run(A, P, Shape, M, O, K);
  Header H;
  H.Ok = R.Ok;
  H.TimeUs = R.TimeUs;
  H.NTransfers = R.Transfers.size();
  H.NStuck = R.Stuck.size();
  bool Ok = writeAll(Fd, &H, sizeof H) &&
            writeAll(Fd, R.Transfers.data(),
                     R.Transfers.size() * sizeof(SimTransfer)) &&
            writeAll(Fd, R.Stuck.data(), R.Stuck.size() * sizeof(SgStuck));
  ::_exit(Ok ? 0 : 3);
}

/// Kills and reaps the child unless released (the parent's wait was
/// abandoned by the poll hook).
struct ChildGuard {
  pid_t Pid;
  bool Reaped = false;
  ~ChildGuard() {
    if (Reaped)
      return;
    ::kill(Pid, SIGKILL);
    int St = 0;
    while (::waitpid(Pid, &St, 0) < 0 && errno == EINTR) {
    }
  }
};

/// Reads everything the child writes until it closes the pipe, polling.
std::string readChild(int Fd) {
  std::string Data;
  char Buf[1 << 16];
  for (;;) {
    struct pollfd Pfd = {Fd, POLLIN, 0};
    int N = ::poll(&Pfd, 1, 100);
    poll(); // may throw: the guard then kills the child
    if (N <= 0)
      continue;
    ssize_t Got = ::read(Fd, Buf, sizeof Buf);
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got <= 0)
      return Data;
    Data.append(Buf, static_cast<std::size_t>(Got));
  }
}

void reportStuck(const Algo &A, const std::vector<SgStuck> &Stuck,
                 IssueSink &Sink) {
  Sink.report<MsgId::SimDeadlock>(Where());
  for (const SgStuck &S : Stuck) {
    Where W = stepWhere(A, S.Rank, S.Tb, S.Pos);
    W.Iteration = S.Iteration;
    const char *What = S.What == 0   ? "a dependency"
                       : S.What == 1 ? "a message"
                                     : "room to send";
    Sink.report<MsgId::WaitsFor>(W, What);
  }
}

} // namespace

bool simgridAvailable(SimEngineKind K, std::string &Why) {
  if (K != SimEngineKind::SimGridNs3)
    return loadSimGridModule(Why) != nullptr;
  // Tried with Debian 12's SimGrid 3.32 (linked with ns-3.37): a message
  // above about 1 MB aborts in SimGrid's ns-3 glue ("total_bytes is not
  // sent_bytes"), and on a stdlib machine's routes its event loop did not
  // finish a 1 KiB ring allgather of NDv2 x2 in minutes.
  Why = "SimGrid 3.32's ns-3 binding aborts on messages above about 1 MB and "
        "does not finish a 16-rank 1 KiB allgather in minutes (see "
        "docs/simulator.md); use simgrid or simgrid:lv08";
  return false;
}

std::string describeSimGridEngines() {
  std::string Origin;
  std::string Path = simgridModulePath(Origin);
  return Path.empty() ? "SimGrid engines: the module tacclc-simgrid.so is "
                        "missing; reinstall tacclc or rebuild it"
                      : "SimGrid engines: " + Path + " (" + Origin + ")";
}

SimResult simulateSimGrid(SimEngineKind K, const Algo &A, const SimMachine &M,
                          const SimOptions &Opts, std::string_view FileName) {
  SimResult Out;
  IssueSink Sink(Out.Issues, FileName);
  // Loaded here, before the fork, so that a child never runs the loader.
  std::string Why;
  const SimGridModule *Module = loadSimGridModule(Why);
  if (!Module) {
    Sink.report<MsgId::SimGridUnavailable>(Where(), Why);
    return Out;
  }
  std::optional<Program> P = buildProgram(A, Sink);
  if (!P)
    return Out;
  SimCallShape Shape;
  if (!shapeCall(A, *P, M, Opts, Sink, Shape))
    return Out;
  Out.Iterations = Shape.Iterations;
  int Fds[2];
  if (::pipe2(Fds, O_CLOEXEC) != 0) {
    Sink.report<MsgId::SimGridCannotStart>(Where(), std::strerror(errno));
    return Out;
  }
  std::fflush(nullptr);
  pid_t Pid = ::fork();
  if (Pid < 0) {
    ::close(Fds[0]);
    ::close(Fds[1]);
    Sink.report<MsgId::SimGridCannotStart>(Where(), std::strerror(errno));
    return Out;
  }
  if (Pid == 0) {
    ::close(Fds[0]);
    child(Fds[1], *Module, K, A, *P, Shape, M, Opts);
  }
  ::close(Fds[1]);
  ChildGuard Guard{Pid};
  std::string Data;
  try {
    Data = readChild(Fds[0]);
  } catch (...) {
    ::close(Fds[0]);
    throw;
  }
  ::close(Fds[0]);
  int St = 0;
  while (::waitpid(Pid, &St, 0) < 0 && errno == EINTR) {
  }
  Guard.Reaped = true;
  Header H;
  if (!WIFEXITED(St) || WEXITSTATUS(St) != 0 || Data.size() < sizeof H) {
    Sink.report(Where(), WIFSIGNALED(St)
                             ? message<MsgId::SimGridSignal>(WTERMSIG(St))
                             : message<MsgId::SimGridFailed>(
                                   WIFEXITED(St) ? WEXITSTATUS(St) : -1));
    return Out;
  }
  std::memcpy(&H, Data.data(), sizeof H);
  const std::size_t Want = sizeof H + H.NTransfers * sizeof(SimTransfer) +
                           H.NStuck * sizeof(SgStuck);
  if (Data.size() != Want) {
    Sink.report<MsgId::SimGridAnswerCut>(Where());
    return Out;
  }
  const char *Cur = Data.data() + sizeof H;
  Out.Transfers.resize(H.NTransfers);
  std::memcpy(Out.Transfers.data(), Cur, H.NTransfers * sizeof(SimTransfer));
  Cur += H.NTransfers * sizeof(SimTransfer);
  std::vector<SgStuck> Stuck(H.NStuck);
  std::memcpy(Stuck.data(), Cur, H.NStuck * sizeof(SgStuck));
  if (!H.Ok) {
    reportStuck(A, Stuck, Sink);
    return Out;
  }
  Out.Ok = true;
  Out.TimeUs = H.TimeUs;
  return Out;
}

} // namespace tacclrt
