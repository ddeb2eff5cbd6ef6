//===- support/Deadline.cpp - The compile's time limit and phases ---------===//
//
// The installed deadline is process-wide state, installed and removed on
// the main thread only (helper threads, such as the stage-2 heuristics and
// a candidate's simulation, only read it). The phase is a pointer to a
// string literal per thread, so that the out-of-memory handler can read it
// without allocating. The process's start time comes from /proc/self/stat (Linux),
// in clock ticks. Phase times sit in a small table behind a mutex: phases
// are coarse (a few hundred per compile), and a solver thread may enter one.
//
//===----------------------------------------------------------------------===//
#include "support/Deadline.h"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>

#include <utility>

#include <time.h>
#include <unistd.h>

using namespace tacclc;

namespace {
/// Longer than any compile: treated as no deadline at all (and keeps the
/// clock arithmetic far from overflow).
constexpr double Forever = 365.0 * 24 * 3600;

Deadline Installed;
double InstalledLimit = 0;
/// The innermost open phase of each thread (a worker thread starts with
/// none and opens its own).
thread_local const char *Phase = nullptr;

/// A phase's totals and how many of its scopes are open.
struct PhaseEntry {
  PhaseTime Time;
  unsigned Open = 0;
};
std::mutex PhaseMutex;
std::vector<PhaseEntry> PhaseTable; ///< In the order first entered.

/// The table's entry for \p Name (a string literal: compared by address,
/// then by text). The caller holds PhaseMutex.
PhaseEntry &phaseEntry(const char *Name) {
  for (PhaseEntry &E : PhaseTable)
    if (E.Time.Name == Name || std::string_view(E.Time.Name) == Name)
      return E;
  PhaseTable.push_back({{Name}});
  return PhaseTable.back();
}
} // namespace

Deadline Deadline::after(double Seconds) {
  return after(Clock::now(), Seconds);
}

Deadline Deadline::after(Clock::time_point Start, double Seconds) {
  Deadline D;
  if (std::isnan(Seconds) || Seconds > Forever)
    return D;
  D.Set = true;
  D.When = Start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(Seconds));
  return D;
}

double Deadline::secondsLeft() const {
  if (!Set)
    return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(When - Clock::now()).count();
}

Deadline Deadline::earliest(const Deadline &Other) const {
  if (!Set)
    return Other;
  if (!Other.Set)
    return *this;
  return When <= Other.When ? *this : Other;
}

Deadline::Clock::time_point tacclc::processStart() {
  auto Now = Deadline::Clock::now();
  // Field 22 of /proc/self/stat: the start time in clock ticks after boot,
  // on the clock of /proc/uptime (CLOCK_BOOTTIME).
  std::ifstream Stat("/proc/self/stat");
  std::string Text((std::istreambuf_iterator<char>(Stat)),
                   std::istreambuf_iterator<char>());
  size_t Close = Text.rfind(')'); // the command name may hold anything
  timespec Boot{};
  long Ticks = ::sysconf(_SC_CLK_TCK);
  if (Close == std::string::npos || Ticks <= 0 ||
      ::clock_gettime(CLOCK_BOOTTIME, &Boot) != 0)
    return Now;
  std::istringstream Fields(Text.substr(Close + 2));
  std::string Field;
  for (int I = 3; I <= 22 && Fields >> Field; ++I)
    if (I == 22) {
      double Started = std::strtod(Field.c_str(), nullptr) / double(Ticks);
      double Since = double(Boot.tv_sec) + Boot.tv_nsec * 1e-9 - Started;
      if (!(Since >= 0 && Since < 3600))
        return Now;
      return Now - std::chrono::duration_cast<Deadline::Clock::duration>(
                       std::chrono::duration<double>(Since));
    }
  return Now;
}

TimeLimitExceeded::TimeLimitExceeded(const char *Phase, double LimitSeconds)
    : Phase(Phase ? Phase : "compiling"), LimitSeconds(LimitSeconds),
      Message(fmt::format("the time limit of {:g} s passed while {}",
                          LimitSeconds, this->Phase)) {}

DeadlineScope::DeadlineScope(Deadline D, double LimitSeconds)
    : Saved(Installed), SavedLimit(InstalledLimit) {
  Installed = D;
  InstalledLimit = LimitSeconds;
}

DeadlineScope::~DeadlineScope() {
  Installed = Saved;
  InstalledLimit = SavedLimit;
}

Deadline tacclc::compileDeadline() { return Installed; }

void tacclc::checkDeadline() {
  if (Installed.hasPassed())
    throw TimeLimitExceeded(currentPhase(), InstalledLimit);
}

void tacclc::checkDeadlineAhead(double Seconds) {
  if (Installed.isSet() && Installed.secondsLeft() < Seconds)
    throw TimeLimitExceeded(currentPhase(), InstalledLimit);
}

PhaseScope::PhaseScope(const char *Name)
    : Name(Name), Saved(std::exchange(Phase, Name)),
      Began(Deadline::Clock::now()) {
  std::lock_guard<std::mutex> Lock(PhaseMutex);
  PhaseEntry &E = phaseEntry(Name);
  if (E.Open++ == 0)
    ++E.Time.Entries;
}

PhaseScope::~PhaseScope() {
  Phase = Saved;
  double Seconds =
      std::chrono::duration<double>(Deadline::Clock::now() - Began).count();
  std::lock_guard<std::mutex> Lock(PhaseMutex);
  PhaseEntry &E = phaseEntry(Name);
  if (--E.Open == 0)
    E.Time.Seconds += Seconds;
}

std::vector<PhaseTime> tacclc::phaseTimes() {
  std::lock_guard<std::mutex> Lock(PhaseMutex);
  std::vector<PhaseTime> Out;
  for (const PhaseEntry &E : PhaseTable)
    Out.push_back(E.Time);
  return Out;
}

const char *tacclc::currentPhase() { return Phase; }
