//===- exec/CpuSync.cpp - Threadblock synchronisation on CPUs -------------===//
//
// One mutex guards all FIFOs, flags and thread states; each FIFO and flag
// has its own condition variables so that only interested threads wake up.
// Deadlock detection is exact because every state change happens under the
// mutex: when the last live thread blocks (or a thread exits) and no blocked
// thread's condition holds, nobody can ever change that.
//
//===----------------------------------------------------------------------===//
#include "exec/CpuSync.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace tacclrt {

CpuSync::CpuSync(const Algo &A, const Program &P, unsigned FifoSlots,
                 IssueSink &Sink)
    : A(A), Slots(std::max(1u, FifoSlots)), Sink(Sink) {
  std::size_t Count = 0;
  for (const auto &Rank : P.Ranks) {
    Base.push_back(Count);
    Count += Rank.size();
  }
  Threads.resize(Count);
  for (std::size_t I = 0; I < Count; ++I)
    Flags.push_back(std::make_unique<Flag>());
  auto Ensure = [this](int From, int To, int Chan) {
    std::unique_ptr<CpuFifo> &F = Fifos[{From, To, Chan}];
    if (!F) {
      F = std::make_unique<CpuFifo>();
      F->From = From;
      F->To = To;
      F->Chan = Chan;
    }
  };
  for (const auto &Rank : P.Ranks)
    for (const TbProgram &T : Rank) {
      std::size_t I = threadIndex(T.Rank, T.Id);
      Threads[I].Rank = T.Rank;
      Threads[I].Tb = T.Id;
      if (T.Send >= 0) {
        Ensure(T.Rank, T.Send, T.Chan);
        Senders.emplace(Key{T.Rank, T.Send, T.Chan}, I);
      }
      if (T.Recv >= 0) {
        Ensure(T.Recv, T.Rank, T.Chan);
        Receivers.emplace(Key{T.Rank, T.Recv, T.Chan}, I);
      }
    }
  Live = Count;
}

CpuFifo *CpuSync::sendFifo(const TbProgram &T) {
  if (T.Send < 0)
    return nullptr;
  return Fifos.at({T.Rank, T.Send, T.Chan}).get();
}

CpuFifo *CpuSync::recvFifo(const TbProgram &T) {
  if (T.Recv < 0)
    return nullptr;
  return Fifos.at({T.Recv, T.Rank, T.Chan}).get();
}

bool CpuSync::satisfied(const Thread &T) const {
  switch (T.Wait) {
  case WaitKind::Dep:
    return T.Fl->Value >= T.Target;
  case WaitKind::Recv:
    return !T.F->Queue.empty();
  case WaitKind::Send:
    return T.F->Queue.size() < Slots;
  case WaitKind::None:
    break;
  }
  return true;
}

void CpuSync::abortLocked(Stop Why) {
  if (Reason != Stop::None)
    return;
  Reason = Why;
  AbortFlag.store(true, std::memory_order_relaxed);
  StartCv.notify_all();
  DoneCv.notify_all();
  for (auto &[K, F] : Fifos) {
    F->NotEmpty.notify_all();
    F->NotFull.notify_all();
  }
  for (auto &F : Flags)
    F->Changed.notify_all();
}

void CpuSync::checkDeadlockLocked() {
  if (Reason != Stop::None || Live == 0 || Blocked < Live)
    return;
  for (const Thread &T : Threads)
    if (T.S == State::Blocked && !T.Exited && satisfied(T))
      return;
  abortLocked(Stop::Deadlock);
}

template <typename Pred>
bool CpuSync::blockUntil(std::unique_lock<std::mutex> &L, Thread &Me,
                         std::condition_variable &Cv, Pred Ready) {
  if (Reason != Stop::None)
    return false;
  if (!Ready()) {
    Me.S = State::Blocked;
    ++Blocked;
    checkDeadlockLocked();
    Cv.wait(L, [&] { return Reason != Stop::None || Ready(); });
    --Blocked;
    if (Reason != Stop::None)
      return false; // keep the blocked state and reason for the report
  }
  Me.S = State::Running;
  Me.Wait = WaitKind::None;
  return true;
}

bool CpuSync::waitStart(std::size_t Me) {
  std::unique_lock<std::mutex> L(M);
  StartCv.wait(L, [&] { return Started || Reason != Stop::None; });
  if (Reason != Stop::None)
    return false;
  Threads[Me].S = State::Running;
  return true;
}

void CpuSync::setPosition(std::size_t Me, long Iter, int Pos) {
  // Only the owning thread writes these; others read them after joining.
  Threads[Me].Iter = Iter;
  Threads[Me].Pos = Pos;
}

bool CpuSync::waitDependency(std::size_t Me, int Rank, int DepTb, int DepStep,
                             long Iter) {
  std::unique_lock<std::mutex> L(M);
  Thread &T = Threads[Me];
  Flag &F = *Flags[threadIndex(Rank, DepTb)];
  T.Wait = WaitKind::Dep;
  T.Fl = &F;
  T.Target = Iter * FlagStride + DepStep;
  T.DepTb = DepTb;
  T.DepStep = DepStep;
  return blockUntil(L, T, F.Changed, [&] { return F.Value >= T.Target; });
}

void CpuSync::publish(int Rank, int Tb, std::int64_t Value) {
  std::lock_guard<std::mutex> L(M);
  Flag &F = *Flags[threadIndex(Rank, Tb)];
  F.Value = std::max(F.Value, Value);
  F.Changed.notify_all();
}

bool CpuSync::push(std::size_t Me, CpuFifo &F, CpuMessage Msg) {
  std::unique_lock<std::mutex> L(M);
  Thread &T = Threads[Me];
  T.Wait = WaitKind::Send;
  T.F = &F;
  if (!blockUntil(L, T, F.NotFull, [&] { return F.Queue.size() < Slots; }))
    return false;
  F.Queue.push_back(std::move(Msg));
  F.NotEmpty.notify_all();
  return true;
}

bool CpuSync::pop(std::size_t Me, CpuFifo &F, CpuMessage &Out) {
  std::unique_lock<std::mutex> L(M);
  Thread &T = Threads[Me];
  T.Wait = WaitKind::Recv;
  T.F = &F;
  if (!blockUntil(L, T, F.NotEmpty, [&] { return !F.Queue.empty(); }))
    return false;
  Out = std::move(F.Queue.front());
  F.Queue.pop_front();
  F.NotFull.notify_all();
  return true;
}

void CpuSync::fail(const Where &W, IssueText Message) {
  std::lock_guard<std::mutex> L(M);
  if (Reason != Stop::None)
    return;
  Sink.report(W, std::move(Message));
  abortLocked(Stop::Error);
}

void CpuSync::errorOnce(const Where &W, IssueText Message) {
  std::lock_guard<std::mutex> L(M);
  if (Reported.insert({W.Rank, W.Tb, W.Step}).second)
    Sink.report(W, std::move(Message));
}

void CpuSync::finish(std::size_t Me) {
  std::lock_guard<std::mutex> L(M);
  Thread &T = Threads[Me];
  T.Exited = true;
  if (Reason == Stop::None)
    T.S = State::Done;
  --Live;
  if (Live == 0)
    DoneCv.notify_all();
  else
    checkDeadlockLocked();
}

void CpuSync::start() {
  std::lock_guard<std::mutex> L(M);
  Started = true;
  StartCv.notify_all();
}

void CpuSync::abort(IssueText Message) {
  std::lock_guard<std::mutex> L(M);
  Sink.report(Where(), std::move(Message));
  abortLocked(Stop::Error);
}

void CpuSync::supervise(double Seconds) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> L(M);
  WatchdogSeconds = Seconds;
  std::uint64_t Last = Progress.load(std::memory_order_relaxed);
  Clock::time_point LastTime = Clock::now();
  while (Live > 0 && Reason == Stop::None) {
    DoneCv.wait_for(L, std::chrono::milliseconds(20));
    std::uint64_t Now = Progress.load(std::memory_order_relaxed);
    if (Now != Last) {
      Last = Now;
      LastTime = Clock::now();
    } else if (Seconds > 0 &&
               std::chrono::duration<double>(Clock::now() - LastTime).count() >
                   Seconds) {
      abortLocked(Stop::Timeout);
    }
  }
}

Where CpuSync::whereOf(const Thread &T) const {
  Where W = stepWhere(A, T.Rank, T.Tb, T.Pos);
  W.Iteration = T.Iter;
  return W;
}

std::string CpuSync::describeThread(std::size_t Index) const {
  const Thread &T = Threads[Index];
  switch (T.S) {
  case State::Done:
    return fmt::format("rank {} tb {} has finished", T.Rank, T.Tb);
  case State::Blocked:
    return fmt::format("rank {} tb {} is blocked at step {} (iteration {})",
                       T.Rank, T.Tb, T.Pos, T.Iter);
  case State::Running:
    return fmt::format("rank {} tb {} is running step {} (iteration {})",
                       T.Rank, T.Tb, T.Pos, T.Iter);
  case State::Starting:
    break;
  }
  return fmt::format("rank {} tb {} has not started", T.Rank, T.Tb);
}

std::string CpuSync::describePeer(const std::map<Key, std::size_t> &Map,
                                  int Rank, int Peer, int Chan,
                                  const char *Verb) const {
  auto It = Map.find({Rank, Peer, Chan});
  if (It != Map.end())
    return describeThread(It->second);
  return fmt::format("no threadblock of rank {} {} rank {} on chan {}", Rank,
                     Verb, Peer, Chan);
}

std::string CpuSync::describeWait(const Thread &T) const {
  switch (T.Wait) {
  case WaitKind::Dep: {
    std::int64_t V = T.Fl->Value;
    return fmt::format(
        "blocked waiting for tb {} step {} (dependency); {}{}", T.DepTb,
        T.DepStep, describeThread(threadIndex(T.Rank, T.DepTb)),
        V < 0 ? std::string(", having published no step")
              : fmt::format(", having published step {} of iteration {}",
                            V % FlagStride, V / FlagStride));
  }
  case WaitKind::Recv:
    return fmt::format(
        "blocked waiting for a message from rank {} on chan "
        "{}; {}",
        T.F->From, T.F->Chan,
        describePeer(Senders, T.F->From, T.Rank, T.F->Chan, "sends to"));
  case WaitKind::Send:
    return fmt::format(
        "blocked waiting to send to rank {} on chan {} (all {} "
        "slots are full); {}",
        T.F->To, T.F->Chan, Slots,
        describePeer(Receivers, T.F->To, T.Rank, T.F->Chan, "receives from"));
  case WaitKind::None:
    break;
  }
  return "blocked";
}

void CpuSync::reportOutcome() {
  std::lock_guard<std::mutex> L(M);
  if (Reason == Stop::Deadlock || Reason == Stop::Timeout) {
    std::size_t NBlocked = 0;
    for (const Thread &T : Threads)
      NBlocked += T.S == State::Blocked;
    if (Reason == Stop::Deadlock)
      Sink.report<MsgId::Deadlock>(Where(), NBlocked, NBlocked == 1 ? "" : "s");
    else
      Sink.report<MsgId::WatchdogStopped>(Where(), WatchdogSeconds);
    for (const Thread &T : Threads) {
      if (T.S == State::Blocked)
        Sink.report<MsgId::BlockedThreadblock>(whereOf(T), describeWait(T));
      else if (T.S == State::Running && Reason == Stop::Timeout)
        Sink.report<MsgId::StillRunning>(whereOf(T));
    }
    if (Reason == Stop::Timeout)
      return;
  } else if (Reason != Stop::None) {
    return;
  }
  for (const auto &[K, F] : Fifos) {
    auto It = Receivers.find({F->To, F->From, F->Chan});
    // After a deadlock only messages whose receiver finished are stranded;
    // the others belong to the knot reported above.
    if (Reason == Stop::Deadlock && It != Receivers.end() &&
        Threads[It->second].S != State::Done)
      continue;
    for (const CpuMessage &Msg : F->Queue) {
      Where W = stepWhere(A, Msg.Rank, Msg.Tb, Msg.Pos);
      W.Iteration = Msg.Iter;
      Sink.report<MsgId::MessageNeverReceived>(
          W, F->To, F->Chan,
          It != Receivers.end()
              ? fmt::format(" (rank {} tb {} receives fewer "
                            "messages)",
                            F->To, Threads[It->second].Tb)
              : fmt::format(" (no threadblock of rank {} "
                            "receives from rank {} on chan {})",
                            F->To, F->From, F->Chan));
    }
  }
}

} // namespace tacclrt
