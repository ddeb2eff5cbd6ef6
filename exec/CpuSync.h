//===- exec/CpuSync.h - Threadblock synchronisation on CPUs -----*- C++ -*-===//
//
// Internal to the CPU executor. CpuSync is the monitor every threadblock
// thread synchronises through: bounded FIFOs per (sender, receiver,
// channel), per-threadblock monotone flags encoding (iteration, step), and
// the bookkeeping that makes deadlock detection exact: a thread about to
// block registers what it waits for; when every live thread is blocked and
// none of their conditions holds, the run is aborted and each blocked
// threadblock is reported with what it waits for. A watchdog in the
// controlling thread aborts runs that stop making progress.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_CPUSYNC_H
#define TACCLC_EXEC_CPUSYNC_H

#include "format/IssueSink.h"
#include "format/Program.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

namespace tacclrt {

/// Flags encode iteration * FlagStride + step (COMPUTE_FLAG without the
/// work index).
constexpr std::int64_t FlagStride = 65536;

/// One message in flight.
struct CpuMessage {
  /// Cnt chunks of NElem elements each, chunk after chunk (Simple; the
  /// receiver's decoded copy for LL and LL128).
  std::vector<std::byte> Data;
  /// LL and LL128: the FIFO lines of the message's connection steps
  /// (exec/LineCodec.h), in place of Data.
  std::vector<std::uint64_t> Lines;
  /// Chunks carried.
  int Cnt = 0;
  /// Elements per chunk.
  std::uint64_t NElem = 0;
  /// The sending rank, tb, step position and iteration.
  int Rank = 0, Tb = 0, Pos = 0;
  /// Iteration of the sender.
  long Iter = 0;
};

/// One connection (sender rank, receiver rank, channel).
struct CpuFifo {
  /// Endpoints.
  int From = 0, To = 0, Chan = 0;
  /// Messages in order.
  std::deque<CpuMessage> Queue;
  /// LL and LL128: connection steps the sender has written and the
  /// receiver has read (each side counts its own; the line flags carry the
  /// sender's count, which the receiver's must match).
  std::atomic<std::uint64_t> SentSteps{0}, ReadSteps{0};
  /// Signalled after a push.
  std::condition_variable NotEmpty;
  /// Signalled after a pop.
  std::condition_variable NotFull;
};

/// The monitor shared by all threadblock threads of one run.
class CpuSync {
public:
  /// Why a run stopped early.
  enum class Stop { None, Deadlock, Timeout, Error };

  /// Creates FIFOs and flags for every threadblock of \p P.
  CpuSync(const Algo &A, const Program &P, unsigned FifoSlots, IssueSink &Sink);

  /// Index of the thread running tb \p Tb of \p Rank.
  std::size_t threadIndex(int Rank, int Tb) const {
    return Base[static_cast<std::size_t>(Rank)] + static_cast<std::size_t>(Tb);
  }
  /// The FIFO \p T sends into (nullptr without a send peer).
  CpuFifo *sendFifo(const TbProgram &T);
  /// The FIFO \p T receives from (nullptr without a recv peer).
  CpuFifo *recvFifo(const TbProgram &T);

  /// Blocks thread \p Me until start() or an abort; false when aborted.
  bool waitStart(std::size_t Me);
  /// Records where thread \p Me is (for reports).
  void setPosition(std::size_t Me, long Iter, int Pos);
  /// Waits until tb \p DepTb of \p Rank published >= Iter/DepStep.
  bool waitDependency(std::size_t Me, int Rank, int DepTb, int DepStep,
                      long Iter);
  /// Publishes flag \p Value for tb \p Tb of \p Rank (monotone).
  void publish(int Rank, int Tb, std::int64_t Value);
  /// Appends \p M to \p F, waiting for a free slot; false when aborted.
  bool push(std::size_t Me, CpuFifo &F, CpuMessage M);
  /// Takes the oldest message of \p F, waiting for one; false when aborted.
  bool pop(std::size_t Me, CpuFifo &F, CpuMessage &Out);
  /// Reports an error and aborts the run.
  void fail(const Where &W, IssueText Message);
  /// Reports an error once per (rank, tb, step) and continues.
  void errorOnce(const Where &W, IssueText Message);
  /// Marks thread \p Me finished.
  void finish(std::size_t Me);
  /// Counts one executed operation (for the watchdog).
  void noteProgress() { Progress.fetch_add(1, std::memory_order_relaxed); }
  /// True once the run was aborted.
  bool aborted() const { return AbortFlag.load(std::memory_order_relaxed); }

  /// Releases the threads waiting in waitStart().
  void start();
  /// Aborts from the controlling thread (e.g. a thread failed to start).
  void abort(IssueText Message);
  /// Returns when every thread finished or the run was aborted; aborts it
  /// after \p Seconds without progress.
  void supervise(double Seconds);
  /// After all threads joined: reports blocked threadblocks for a deadlock
  /// or timeout, or leftover messages for a completed run.
  void reportOutcome();
  /// Why the run stopped (None when it completed).
  Stop stopReason() const { return Reason; }

private:
  enum class State { Starting, Running, Blocked, Done };
  enum class WaitKind { None, Dep, Recv, Send };
  struct Flag {
    std::int64_t Value = -1;
    std::condition_variable Changed;
  };
  struct Thread {
    int Rank = 0, Tb = 0;
    State S = State::Starting;
    bool Exited = false;
    long Iter = 0;
    int Pos = 0;
    WaitKind Wait = WaitKind::None;
    CpuFifo *F = nullptr;
    Flag *Fl = nullptr;
    std::int64_t Target = 0;
    int DepTb = 0, DepStep = 0;
  };
  using Key = std::tuple<int, int, int>;

  const Algo &A;
  unsigned Slots;
  IssueSink &Sink;
  std::mutex M;
  std::condition_variable StartCv, DoneCv;
  bool Started = false;
  Stop Reason = Stop::None;
  std::atomic<bool> AbortFlag{false};
  double WatchdogSeconds = 0;
  std::atomic<std::uint64_t> Progress{0};
  std::size_t Live = 0, Blocked = 0;
  std::vector<std::size_t> Base;
  std::vector<Thread> Threads;
  std::vector<std::unique_ptr<Flag>> Flags;
  std::map<Key, std::unique_ptr<CpuFifo>> Fifos;
  std::map<Key, std::size_t> Senders, Receivers; // (rank, peer, chan)
  std::set<std::tuple<int, int, int>> Reported;

  template <typename Pred>
  bool blockUntil(std::unique_lock<std::mutex> &L, Thread &Me,
                  std::condition_variable &Cv, Pred Ready);
  bool satisfied(const Thread &T) const;
  void checkDeadlockLocked();
  void abortLocked(Stop Why);
  Where whereOf(const Thread &T) const;
  std::string describeWait(const Thread &T) const;
  std::string describeThread(std::size_t Index) const;
  std::string describePeer(const std::map<Key, std::size_t> &Map, int Rank,
                           int Peer, int Chan, const char *Verb) const;
};

} // namespace tacclrt

#endif // TACCLC_EXEC_CPUSYNC_H
