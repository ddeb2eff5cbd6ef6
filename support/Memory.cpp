//===- support/Memory.cpp - The compile's memory budget -------------------===//
//
// Usage comes from /proc/self/status, limits from getrlimit. The
// out-of-memory path must not allocate: it writes the registered message
// around the phase name with write(2) and leaves with _exit.
//
//===----------------------------------------------------------------------===//
#include "support/Memory.h"

#include "support/Deadline.h"
#include "support/Diagnostics.h"

#include "llvm/Support/ErrorHandling.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>

#include <sys/resource.h>
#include <unistd.h>

using namespace tacclc;

namespace {
/// Reads the `Key:  N kB` lines of /proc/self/status.
MemoryUsage readStatus(uint64_t *Peak = nullptr) {
  MemoryUsage U;
  std::FILE *F = std::fopen("/proc/self/status", "r");
  if (!F)
    return U;
  char Line[256];
  while (std::fgets(Line, sizeof(Line), F)) {
    unsigned long long Kb = 0;
    if (std::sscanf(Line, "VmRSS: %llu kB", &Kb) == 1)
      U.ResidentBytes = Kb * 1024;
    else if (std::sscanf(Line, "VmSize: %llu kB", &Kb) == 1)
      U.VirtualBytes = Kb * 1024;
    else if (std::sscanf(Line, "VmData: %llu kB", &Kb) == 1)
      U.DataBytes = Kb * 1024;
    else if (Peak && std::sscanf(Line, "VmHWM: %llu kB", &Kb) == 1)
      *Peak = Kb * 1024;
  }
  std::fclose(F);
  return U;
}

/// Exit status of a child that ran out of memory, or -1 to report it.
std::atomic<int> QuietStatus{-1};
std::atomic<bool> LlvmHandlerInstalled{false};

void writeText(const char *Text, size_t Length) {
  while (Length > 0) {
    ssize_t N = ::write(STDERR_FILENO, Text, Length);
    if (N <= 0)
      return;
    Text += N;
    Length -= size_t(N);
  }
}

[[noreturn]] void outOfMemory() {
  int Status = QuietStatus.load();
  if (Status >= 0)
    _exit(Status);
  const char *Phase = currentPhase();
  if (!Phase)
    Phase = "compiling";
  // The registered message with the phase in its one "{}".
  const char *Format = formatOf(DiagId::OutOfMemory);
  const char *Hole = std::strstr(Format, "{}");
  const char Prefix[] = "tacclc: error: ";
  writeText(Prefix, sizeof(Prefix) - 1);
  if (Hole) {
    writeText(Format, size_t(Hole - Format));
    writeText(Phase, std::strlen(Phase));
    writeText(Hole + 2, std::strlen(Hole + 2));
  } else {
    writeText(Format, std::strlen(Format));
  }
  writeText("\n", 1);
  _exit(2);
}

void onNewFailure() { outOfMemory(); }

void onLlvmBadAlloc(void *, const char *, bool) { outOfMemory(); }

void installHandlers() {
  std::set_new_handler(onNewFailure);
  if (!LlvmHandlerInstalled.exchange(true))
    llvm::install_bad_alloc_error_handler(onLlvmBadAlloc);
}
} // namespace

MemoryUsage tacclc::currentMemoryUsage() { return readStatus(); }

uint64_t tacclc::peakResidentBytes() {
  uint64_t Peak = 0;
  readStatus(&Peak);
  return Peak;
}

uint64_t tacclc::physicalMemoryBytes() {
  long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  if (Pages <= 0 || PageSize <= 0)
    return 0;
  return uint64_t(Pages) * uint64_t(PageSize);
}

uint64_t MemoryBudget::available() const {
  if (Bytes == 0)
    return std::numeric_limits<uint64_t>::max();
  uint64_t Used = currentMemoryUsage().ResidentBytes;
  return Bytes > Used ? Bytes - Used : 0;
}

MemoryBudget tacclc::memoryBudget(std::optional<uint64_t> Requested) {
  MemoryBudget B;
  if (!Requested) {
    if (uint64_t Physical = physicalMemoryBytes()) {
      B.Bytes = Physical / 2;
      B.Source = "half the physical memory";
    }
  } else if (*Requested > 0) {
    B.Bytes = *Requested;
    B.Source = "--max-memory";
  }
  MemoryUsage U = currentMemoryUsage();
  // A process limit counts mappings that are not (yet) in memory too:
  // those are set aside, and a tenth of the limit for what no estimate
  // covers (the front end, lowering, verification).
  auto Cap = [&](int Resource, uint64_t Mapped, const char *What) {
    rlimit L;
    if (getrlimit(Resource, &L) != 0 || L.rlim_cur == RLIM_INFINITY)
      return;
    uint64_t Limit = L.rlim_cur;
    uint64_t Aside = (Mapped > U.ResidentBytes ? Mapped - U.ResidentBytes : 0) +
                     std::max<uint64_t>(uint64_t(64) << 20, Limit / 10);
    uint64_t Usable = Limit > Aside ? Limit - Aside : 1;
    if (B.Bytes == 0 || Usable < B.Bytes) {
      B.Bytes = Usable;
      B.Source = What;
    }
  };
  Cap(RLIMIT_AS, U.VirtualBytes, "the address-space limit (ulimit -v)");
  Cap(RLIMIT_DATA, U.DataBytes, "the data-size limit (ulimit -d)");
  return B;
}

std::string tacclc::formatBytes(uint64_t Bytes) {
  if (Bytes < 1024)
    return fmt::format("{} B", Bytes);
  const char *Units[] = {"KiB", "MiB", "GiB", "TiB"};
  double V = double(Bytes) / 1024;
  unsigned U = 0;
  for (; V >= 1024 && U + 1 < std::size(Units); ++U)
    V /= 1024;
  return fmt::format("{:.1f} {}", V, Units[U]);
}

void tacclc::installOutOfMemoryHandler() { installHandlers(); }

void tacclc::exitOnOutOfMemory(int Status) {
  QuietStatus.store(Status);
  installHandlers();
}
