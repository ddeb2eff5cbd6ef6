//===- solver/Progress.cpp - Live progress of a solve ---------------------===//
//
// The ticker thread wakes when a line is due: every 0.5 s for a Line, every
// second for Lines, or 0.5 s after the last line when the incumbent changed.
// Lines are formatted under the mutex and written outside it with one
// write(2) each, so they do not interleave with other writers mid-line.
//
//===----------------------------------------------------------------------===//
#include "solver/Progress.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <string_view>
#include <system_error>
#include <utility>

#include <unistd.h>

using namespace tacclc::solver;

namespace {

using Clock = ProgressReporter::Clock;

/// The shortest time between two lines, and the time between two lines of
/// Lines when nothing improved.
constexpr std::chrono::milliseconds ShortInterval{500}, LongInterval{1000};

std::string formatValue(double V) {
  if (!std::isfinite(V))
    return "-";
  if (std::fabs(V) >= 1e6 && std::fabs(V) < 1e15)
    return fmt::format("{:.0f}", V);                // 1234567, not 1.23457e+06
  return fmt::format("{:.6g}", V == 0.0 ? 0.0 : V); // no "-0"
}

bool sameValue(double A, double B) {
  return A == B || (std::isnan(A) && std::isnan(B));
}

void writeAll(int Fd, const std::string &Text) {
  size_t Done = 0;
  while (Done < Text.size()) {
    ssize_t N = ::write(Fd, Text.data() + Done, Text.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return; // progress is best effort
    Done += size_t(N);
  }
}

} // namespace

std::string tacclc::solver::formatProgress(llvm::StringRef Label,
                                           double Seconds, double Incumbent,
                                           double Bound) {
  std::string Gap = "-";
  if (std::isfinite(Incumbent) && std::isfinite(Bound)) {
    if (Incumbent == Bound)
      Gap = "0.0%";
    else if (Incumbent != 0)
      Gap = fmt::format("{:.1f}%", 100 * std::fabs(Incumbent - Bound) /
                                       std::fabs(Incumbent));
  }
  std::string_view Name = Label.empty()
                              ? std::string_view("cbc")
                              : std::string_view(Label.data(), Label.size());
  return fmt::format("[{}] {:.1f} s  incumbent {}  bound {}  gap {}", Name,
                     Seconds, formatValue(Incumbent), formatValue(Bound), Gap);
}

void tacclc::solver::clearProgressLine(int Fd) { writeAll(Fd, "\r\033[K"); }

ProgressReporter::ProgressReporter(ProgressMode Mode, std::string Label,
                                   Clock::time_point Start, int Fd)
    : Mode(Mode), Label(std::move(Label)), Start(Start), Fd(Fd) {
  if (!enabled())
    return;
  try {
    Ticker = std::thread([this] { run(); });
  } catch (const std::system_error &) {
    // No thread, no ticking; Lines still print their last line.
  }
}

ProgressReporter::~ProgressReporter() { stop(/*PrintLast=*/false); }

void ProgressReporter::update(double NewIncumbent, double NewBound) {
  if (!enabled())
    return;
  std::lock_guard<std::mutex> Lock(Mutex);
  bool Changed = !sameValue(NewIncumbent, Incumbent);
  Incumbent = NewIncumbent;
  Bound = NewBound;
  if (Changed && Mode == ProgressMode::Lines && !Improved) {
    Improved = true;
    Wake.notify_one();
  }
}

void ProgressReporter::finish(double FinalIncumbent, double FinalBound) {
  if (!enabled())
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Finished)
      return;
    Incumbent = FinalIncumbent;
    Bound = FinalBound;
  }
  stop(/*PrintLast=*/true);
}

void ProgressReporter::stop(bool PrintLast) {
  if (!enabled())
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Finished)
      return;
    Finished = Stopping = true;
  }
  Wake.notify_all();
  if (Ticker.joinable())
    Ticker.join();
  // The ticker is gone: the state is ours alone now.
  if (Mode == ProgressMode::Line && Printed)
    clearProgressLine(Fd);
  if (Mode == ProgressMode::Lines && PrintLast) {
    std::chrono::duration<double> Elapsed = Clock::now() - Start;
    emit(formatProgress(Label, Elapsed.count(), Incumbent, Bound));
  }
}

void ProgressReporter::emit(const std::string &Text) const {
  if (Mode == ProgressMode::Line)
    writeAll(Fd, "\r" + Text + "\033[K");
  else
    writeAll(Fd, Text + "\n");
}

void ProgressReporter::run() {
  std::unique_lock<std::mutex> Lock(Mutex);
  Clock::time_point Last = Start;
  for (;;) {
    if (Stopping)
      return;
    auto Due = [&] {
      bool Soon = Mode == ProgressMode::Line || Improved;
      return Last + (Soon ? ShortInterval : LongInterval);
    };
    Wake.wait_until(Lock, Due());
    if (Stopping)
      return;
    Clock::time_point Now = Clock::now();
    if (Now < Due())
      continue; // woken early: by an improvement, or spuriously
    Last = Now;
    Improved = false;
    Printed = true;
    std::chrono::duration<double> Elapsed = Now - Start;
    std::string Text = formatProgress(Label, Elapsed.count(), Incumbent, Bound);
    Lock.unlock();
    emit(Text);
    Lock.lock();
  }
}
