//===- solver/Subprocess.h - Run work in a child process --------*- C++ -*-===//
//
// Third-party solvers can crash (CBC 2.10 segfaults in
// CglPreProcess::postProcess when its time limit expires during
// preprocessing), overrun their limits or exhaust memory. runInChild runs a
// piece of work in a forked child, passes its result back as bytes through
// a pipe, and turns a crash, a non-zero exit, running out of its memory
// limit or a hard timeout into an error message instead of taking the
// compiler down.
//
// The child never outlives the compiler: it asks the kernel for SIGKILL
// when its parent dies (PR_SET_PDEATHSIG, which fires when the forking
// thread ends; that thread waits for the child in runInChild, so it lives
// as long as the child does), and installTerminationHandlers() makes
// SIGINT, SIGTERM and SIGHUP kill the running child before the compiler
// dies of them.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SOLVER_SUBPROCESS_H
#define TACCLC_SOLVER_SUBPROCESS_H

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tacclc::solver {

/// What a child may use.
struct ChildLimits {
  /// Wall-clock seconds before the child is killed; <= 0 means none.
  double HardTimeoutSeconds = 0;
  /// Bytes the child may allocate beyond what it inherits (its
  /// RLIMIT_DATA); 0 means no limit of its own.
  uint64_t MemoryBytes = 0;
};

/// How a child went, beside its bytes.
struct ChildReport {
  /// The child's peak resident memory, in bytes (0 if unknown).
  uint64_t PeakBytes = 0;
  /// It failed an allocation under ChildLimits::MemoryBytes.
  bool OutOfMemory = false;
  /// It was still running at ChildLimits::HardTimeoutSeconds and was
  /// killed.
  bool TimedOut = false;
};

/// Runs \p Work in a child process and returns the bytes it produced, or
/// nothing with \p Error set when the child crashed, failed, ran out of
/// memory, or ran longer than the hard timeout (then it is killed).
/// \p Report, when given, receives the child's peak memory and whether it
/// ran out of memory or time.
std::optional<std::string> runInChild(const std::function<std::string()> &Work,
                                      const ChildLimits &Limits,
                                      std::string &Error,
                                      ChildReport *Report = nullptr);

/// The termination signals (SIGINT, SIGTERM, SIGHUP) the process ignores
/// now, as a background job or under nohup does. Call before
/// llvm::InitLLVM, whose handlers replace that disposition.
std::vector<int> ignoredTerminationSignals();

/// Makes SIGINT, SIGTERM and SIGHUP kill and reap the child runInChild is
/// waiting for, then run the handler installed before (LLVM's, which
/// removes the files registered for removal), and end the process with the
/// signal's default action, so that its exit status is the conventional
/// one. The signals in \p Ignored (ignoredTerminationSignals) stay
/// ignored. Call once, after llvm::InitLLVM.
void installTerminationHandlers(const std::vector<int> &Ignored);

} // namespace tacclc::solver

#endif // TACCLC_SOLVER_SUBPROCESS_H
