//===- support/Deadline.h - The compile's time limit and phases -*- C++ -*-===//
//
// A compile runs under one wall-clock deadline derived from --time-limit
// (docs/synthesis.md, "Time and memory limits"). Long loops anywhere in the
// compiler (model building, ordering, scheduling, lowering, fusion, the
// runtime's verification through its own hook) call checkDeadline(), which
// throws TimeLimitExceeded once the installed deadline has passed; the
// driver turns that into one diagnostic naming the phase that ran out.
//
// PhaseScope names what the compile is doing ("building the routing
// model"), for that diagnostic and for the out-of-memory message
// (support/Memory.h). Phases are string literals, so reading the current
// one never allocates. Each phase's wall time is summed as it ends
// (phaseTimes()), so that a compile's report can say where its time went.
//
// Stages that have a fallback (a warm start, the stage-2 schedule) keep a
// Deadline of their own, earlier than the compile's, and test it with
// hasPassed() instead of throwing.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_DEADLINE_H
#define TACCLC_SUPPORT_DEADLINE_H

#include <chrono>
#include <exception>
#include <string>
#include <vector>

namespace tacclc {

/// A point on the steady clock after which some work must stop, or none.
class Deadline {
public:
  using Clock = std::chrono::steady_clock;

  /// A deadline that never passes.
  Deadline() = default;
  /// \p Seconds from now; a NaN, infinite or larger than a year never
  /// passes, a negative one has passed.
  static Deadline after(double Seconds);
  /// \p Seconds after \p Start, as after().
  static Deadline after(Clock::time_point Start, double Seconds);

  /// False for the deadline that never passes.
  bool isSet() const { return Set; }
  /// True once the deadline is set and the clock has reached it.
  bool hasPassed() const { return Set && Clock::now() >= When; }
  /// Seconds until the deadline (negative once passed); +inf when unset.
  double secondsLeft() const;
  /// The earlier of the two (an unset one is later than every set one).
  Deadline earliest(const Deadline &Other) const;

private:
  bool Set = false;
  Clock::time_point When{};
};

/// When this process started (was forked), on the steady clock: a limit on
/// a command's wall time counts its start-up too. Now, where the system
/// does not say.
Deadline::Clock::time_point processStart();

/// Thrown by checkDeadline() when the compile's deadline has passed.
class TimeLimitExceeded : public std::exception {
public:
  TimeLimitExceeded(const char *Phase, double LimitSeconds);
  /// What the compile was doing: a PhaseScope name, or "compiling".
  const char *phase() const { return Phase; }
  /// The compile's limit in seconds, as installed by DeadlineScope.
  double limitSeconds() const { return LimitSeconds; }
  const char *what() const noexcept override { return Message.c_str(); }

private:
  const char *Phase;
  double LimitSeconds;
  std::string Message;
};

/// While alive, \p D is the compile's deadline: checkDeadline() throws once
/// it has passed. \p LimitSeconds is the limit it stands for (reported in
/// TimeLimitExceeded). Scopes nest; the previous deadline comes back at the
/// end of this one.
class DeadlineScope {
public:
  DeadlineScope(Deadline D, double LimitSeconds);
  ~DeadlineScope();
  DeadlineScope(const DeadlineScope &) = delete;
  DeadlineScope &operator=(const DeadlineScope &) = delete;

private:
  Deadline Saved;
  double SavedLimit;
};

/// The compile's deadline (unset outside every DeadlineScope).
Deadline compileDeadline();

/// Throws TimeLimitExceeded, naming the current phase, once the compile's
/// deadline has passed. One clock read: cheap enough for loops whose body
/// takes a microsecond or more.
void checkDeadline();

/// Throws TimeLimitExceeded, as checkDeadline(), when the compile's
/// deadline passes within \p Seconds: before work of about that long that
/// cannot check the deadline itself (parsing a large text in a library).
void checkDeadlineAhead(double Seconds);

/// While alive, the compile is in phase \p Name (a string literal, e.g.
/// "ordering transfers"); the previous phase comes back at the end.
class PhaseScope {
public:
  explicit PhaseScope(const char *Name);
  ~PhaseScope();
  PhaseScope(const PhaseScope &) = delete;
  PhaseScope &operator=(const PhaseScope &) = delete;

private:
  const char *Name, *Saved;
  Deadline::Clock::time_point Began;
};

/// Wall time spent in one phase so far in this process.
struct PhaseTime {
  const char *Name;
  /// Seconds in the phase: a phase nested in another counts in both; one
  /// nested in itself counts once.
  double Seconds = 0;
  /// Times the phase was entered (not counting nesting in itself).
  unsigned Entries = 0;
};

/// Every phase entered so far, in the order first entered.
std::vector<PhaseTime> phaseTimes();

/// The innermost PhaseScope's name, or nullptr outside every scope. Safe to
/// call from any thread and from a signal or out-of-memory handler.
const char *currentPhase();

} // namespace tacclc

#endif // TACCLC_SUPPORT_DEADLINE_H
