//===- support/Memory.h - The compile's memory budget -----------*- C++ -*-===//
//
// A compile may use at most its memory budget (--max-memory; by default
// half the physical memory), never more than the process's own limits
// (RLIMIT_AS, `ulimit -v`, and RLIMIT_DATA, `ulimit -d`) allow. The passes
// estimate each MILP's size before building it and refuse one that cannot
// fit; the solver's child process gets what is left as its own limit. As a
// last line of defence, installOutOfMemoryHandler() turns an allocation
// failure anywhere into one line naming the phase (support/Deadline.h) and
// exit status 2, instead of LLVM's "LLVM ERROR: out of memory" abort.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_MEMORY_H
#define TACCLC_SUPPORT_MEMORY_H

#include <cstdint>
#include <optional>
#include <string>

namespace tacclc {

/// The process's memory use now (Linux /proc/self/status); zeros where the
/// system does not say.
struct MemoryUsage {
  uint64_t ResidentBytes = 0; ///< VmRSS: in physical memory.
  uint64_t VirtualBytes = 0;  ///< VmSize: what RLIMIT_AS counts.
  uint64_t DataBytes = 0;     ///< VmData: what RLIMIT_DATA counts.
};

/// The memory the process uses now.
MemoryUsage currentMemoryUsage();

/// The most physical memory the process has used so far (VmHWM; not its
/// children's), in bytes; 0 if unknown.
uint64_t peakResidentBytes();

/// Bytes of physical memory; 0 if unknown.
uint64_t physicalMemoryBytes();

/// The memory a compile may use.
struct MemoryBudget {
  /// Bytes for the whole compile, solver child included; 0 means no budget.
  uint64_t Bytes = 0;
  /// Where the number comes from, for diagnostics ("--max-memory",
  /// "half the physical memory", "the address-space limit (ulimit -v)",
  /// "the data-size limit (ulimit -d)").
  std::string Source;

  /// The budget less what the process uses now (0 when used up); the
  /// largest uint64_t without a budget.
  uint64_t available() const;
};

/// The budget of a compile: \p Requested bytes (--max-memory; nothing: half
/// the physical memory), capped by RLIMIT_AS and RLIMIT_DATA less the
/// address space the process has mapped but not filled (libraries, thread
/// stacks) and a tenth (at least 64 MB) for what no estimate covers.
/// \p Requested of 0 asks for no budget; the process limits still apply.
MemoryBudget memoryBudget(std::optional<uint64_t> Requested);

/// \p Bytes for people: "512 B", "1.5 KiB", "37.2 MiB", "2.0 GiB" (powers
/// of 1024, named as support/Sizes.h names them).
std::string formatBytes(uint64_t Bytes);

/// Makes an allocation failure anywhere (operator new, LLVM's allocators)
/// print `tacclc: error: out of memory while <phase>; ...` (the
/// OutOfMemory diagnostic) and exit with status 2, without allocating.
/// Call once, after llvm::InitLLVM (whose new-handler would abort).
void installOutOfMemoryHandler();

/// For a forked child that reports to its parent: from now on an
/// allocation failure exits with \p Status and prints nothing.
void exitOnOutOfMemory(int Status);

} // namespace tacclc

#endif // TACCLC_SUPPORT_MEMORY_H
