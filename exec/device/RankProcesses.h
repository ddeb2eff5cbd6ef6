//===- exec/device/RankProcesses.h - A process per rank ---------*- C++ -*-===//
//
// Backends that give every rank a process of its own (the NCCL backend) fork
// them from the caller and must never hang or leave a process behind: when
// one rank fails, the others are given a grace period to report what they
// saw and are then killed; a run that exceeds its limit is killed as a
// whole. Also memory the processes share with their parent (an anonymous
// shared mapping). Host code only, so it is tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_RANKPROCESSES_H
#define TACCLC_EXEC_DEVICE_RANKPROCESSES_H

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tacclrt {

/// How one rank process ended.
struct RankEnding {
  /// It returned (or exited) with ExitCode.
  bool Exited = false;
  int ExitCode = 0;
  /// It was ended by signal Signal (Stopped: the supervisor's SIGKILL).
  int Signal = 0;
  bool Stopped = false;
  /// True when it exited with status 0.
  bool ok() const { return Exited && ExitCode == 0; }
};

/// Forks \p N processes; process r runs Body(r) and exits with its result
/// (1 if it throws). \p AfterStart runs in the parent once all are started
/// (close there what the children must see closed). Waits for all: once one
/// fails, the others get \p GraceSeconds, then are killed; all are killed
/// after \p LimitSeconds. Nothing, and the reason in \p Why, when a process
/// could not be started (the ones started are killed and reaped).
std::optional<std::vector<RankEnding>>
runRankProcesses(unsigned N, const std::function<int(unsigned)> &Body,
                 const std::function<void()> &AfterStart, double GraceSeconds,
                 double LimitSeconds, std::string &Why);

/// Zeroed memory shared with the processes forked after it was made;
/// unmapped when it goes.
class SharedMemory {
public:
  explicit SharedMemory(std::size_t Bytes);
  SharedMemory(const SharedMemory &) = delete;
  SharedMemory &operator=(const SharedMemory &) = delete;
  ~SharedMemory();
  /// The memory, or nullptr when it could not be mapped.
  std::byte *get() const { return Base; }

private:
  std::size_t Bytes;
  std::byte *Base = nullptr;
};

} // namespace tacclrt

#endif // TACCLC_EXEC_DEVICE_RANKPROCESSES_H
