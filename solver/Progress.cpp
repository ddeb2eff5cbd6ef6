//===- solver/Progress.cpp - Live progress of a stage and its solve -------===//
//
// The ticker thread wakes every quarter second, or at once when the stage
// enters a phase, and prints when a line is due: every half second for a
// Line, once the stage has run half a second; for Lines when a phase (a
// solver's is read from its LiveSolve) has lasted a second, and 10 s after
// the last line while it lasts. Lines are formatted and
// written under PrintMutex with one write(2) each, so they never come out
// of order nor interleave with other writers mid-line; the state the stage
// and the solver update is under Mutex, which printing holds only to copy.
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

/// How often the ticker looks at the state. A Line appears once the stage
/// has run LineDelay and is rewritten every LineInterval. Lines prints a
/// phase once it has lasted LinesDelay (quick phases stay silent), then
/// every LinesInterval while it lasts.
constexpr std::chrono::milliseconds Poll{250}, LineDelay{500},
    LineInterval{450}, LinesDelay{1000}, LinesInterval{10000};

std::string formatValue(double V) {
  if (std::fabs(V) >= 1e6 && std::fabs(V) < 1e15)
    return fmt::format("{:.0f}", V);                // 1234567, not 1.23457e+06
  return fmt::format("{:.6g}", V == 0.0 ? 0.0 : V); // no "-0"
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

llvm::StringRef tacclc::solver::solvePhaseName(SolvePhase Phase) {
  switch (Phase) {
  case SolvePhase::Starting:
    return "starting the solver";
  case SolvePhase::Presolve:
    return "presolve";
  case SolvePhase::Root:
    return "root node (cuts, heuristics)";
  case SolvePhase::Search:
    return "search";
  }
  return "solving";
}

std::string tacclc::solver::formatProgress(llvm::StringRef Label,
                                           double Seconds,
                                           const ProgressValues &V) {
  std::string_view Name = Label.empty()
                              ? std::string_view("cbc")
                              : std::string_view(Label.data(), Label.size());
  std::string Line = fmt::format("[{}] {:.1f} s", Name, Seconds);
  if (!V.Phase.empty())
    Line += "  " + V.Phase;
  bool HasIncumbent = std::isfinite(V.Incumbent);
  bool HasBound = std::isfinite(V.Bound);
  if (HasIncumbent)
    Line += "  incumbent " + formatValue(V.Incumbent);
  else if (std::isfinite(V.WarmStart))
    Line += "  warm start " + formatValue(V.WarmStart);
  if (HasBound)
    Line += "  bound " + formatValue(V.Bound);
  if (HasIncumbent && HasBound) {
    if (V.Incumbent == V.Bound)
      Line += "  gap 0.0%";
    else if (V.Incumbent != 0)
      Line +=
          fmt::format("  gap {:.1f}%", 100 * std::fabs(V.Incumbent - V.Bound) /
                                           std::fabs(V.Incumbent));
  }
  return Line;
}

ProgressReporter::ProgressReporter(ProgressMode Mode, std::string Label,
                                   Clock::time_point Start, int Fd)
    : Mode(Mode), Label(std::move(Label)), Start(Start), Fd(Fd),
      LastLine(Start) {
  if (!enabled())
    return;
  try {
    Ticker = std::thread([this] { run(); });
  } catch (const std::system_error &) {
    // No thread, no ticking; Lines still print when a solve finishes.
  }
}

ProgressReporter::~ProgressReporter() {
  if (!enabled())
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  Wake.notify_all();
  if (Ticker.joinable())
    Ticker.join();
  // The ticker is gone: what it printed is ours alone now.
  if (Mode == ProgressMode::Line && Printed)
    writeAll(Fd, "\r\033[K");
}

void ProgressReporter::phase(std::string Text) {
  if (!enabled())
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Values = ProgressValues();
    Values.Phase = std::move(Text);
    Live = nullptr;
    Changed = true;
  }
  Wake.notify_one();
}

void ProgressReporter::watch(const LiveSolve *NewLive, double WarmStart) {
  if (!enabled())
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Values = ProgressValues();
    Values.WarmStart = WarmStart;
    Live = NewLive;
    Changed = true;
  }
  Wake.notify_one();
}

void ProgressReporter::finish(std::string Outcome, double Incumbent,
                              double Bound) {
  if (!enabled())
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Live = nullptr;
    Values.Phase = std::move(Outcome);
    Values.Incumbent = Incumbent;
    Values.Bound = Bound;
  }
  if (Mode == ProgressMode::Lines)
    printIfDue(/*Final=*/true);
  else
    Wake.notify_one();
}

std::string ProgressReporter::lineLocked(std::string &Phase) const {
  ProgressValues V = Values;
  if (Live) {
    V.Phase = solvePhaseName(Live->phase()).str();
    V.Incumbent = Live->Incumbent.load();
    V.Bound = Live->Bound.load();
  }
  Phase = V.Phase;
  std::chrono::duration<double> Elapsed = Clock::now() - Start;
  return formatProgress(Label, Elapsed.count(), V);
}

void ProgressReporter::printIfDue(bool Final) {
  std::lock_guard<std::mutex> Printing(PrintMutex);
  std::string Phase, Text;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Text = lineLocked(Phase);
  }
  Clock::time_point Now = Clock::now();
  if (Phase != SeenPhase) {
    SeenPhase = Phase;
    SeenSince = Now;
  }
  bool Due;
  if (Final)
    Due = Printed; // the end of a solve that was shown
  else if (Phase.empty())
    Due = false;
  else if (Mode == ProgressMode::Line)
    Due = Now - Start >= LineDelay && Now - LastLine >= LineInterval;
  else
    Due = (Phase != LastPhase && Now - SeenSince >= LinesDelay) ||
          (Printed && Now - LastLine >= LinesInterval);
  if (!Due)
    return;
  LastPhase = Phase;
  LastLine = Now;
  Printed = true;
  emit(Text);
}

void ProgressReporter::emit(const std::string &Text) {
  if (Mode == ProgressMode::Line)
    writeAll(Fd, "\r" + Text + "\033[K");
  else
    writeAll(Fd, Text + "\n");
}

void ProgressReporter::run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> Lock(Mutex);
      Wake.wait_for(Lock, Poll, [this] { return Stopping || Changed; });
      if (Stopping)
        return;
      Changed = false;
    }
    printIfDue(/*Final=*/false);
  }
}
