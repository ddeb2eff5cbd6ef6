//===- checker/SymbolicMachine.cpp - Symbolic execution engine ------------===//
//
// Round-robin symbolic execution of every threadblock of every rank. Each
// operation runs in three phases, as the NCCL primitives do: wait for its
// dependencies, receive (and compute), send. A phase that cannot proceed
// leaves the threadblock blocked with a structured reason, which becomes
// the deadlock message when no threadblock can move any more. With race
// detection, every operation also advances its tb's vector clock (dependency
// joins when it starts, the sender's clock on a receive, the tb's clock on
// each message sent) and every chunk access is checked against the slot's
// last write and the reads since.
//
//===----------------------------------------------------------------------===//
#include "checker/SymbolicMachine.h"

#include "format/Poll.h"

#include <fmt/format.h>

#include <algorithm>

namespace tacclrt {

namespace {

std::string chunkName(BufferKind B, std::size_t First, std::size_t Cnt) {
  if (Cnt == 1)
    return fmt::format("{} chunk {}", nameOf(B), First);
  return fmt::format("{} chunks {}..{}", nameOf(B), First, First + Cnt - 1);
}

std::size_t bufferIndex(BufferKind B) { return static_cast<std::size_t>(B); }

} // namespace

SymbolicMachine::SymbolicMachine(const Algo &A, const Program &P,
                                 const ChunkModel &Model, unsigned FifoCapacity,
                                 IssueSink &Sink, bool CheckRaces)
    : A(A), P(P), Model(Model), Capacity(std::max(1u, FifoCapacity)),
      Sink(Sink), NRanks(static_cast<unsigned>(P.Ranks.size())) {
  Storages.resize(NRanks);
  Views.resize(NRanks);
  Flags.resize(NRanks);
  States.resize(NRanks);
  for (unsigned R = 0; R < NRanks; ++R) {
    setupRank(static_cast<int>(R));
    Flags[R].assign(P.Ranks[R].size(), -1);
    States[R].resize(P.Ranks[R].size());
  }
  if (CheckRaces) {
    Hb = std::make_unique<HappensBefore>(P, Capacity);
    if (!Hb->enabled()) {
      Where W;
      W.Line = A.Line;
      W.Col = A.Col;
      Sink.report<MsgId::RacesNotChecked>(W, Hb->tbCount(), Hb->snapshotCount(),
                                          Hb->clockEntries(),
                                          HappensBefore::MaxClockEntries);
      Hb.reset();
    }
  }
}

void SymbolicMachine::setupRank(int Rank) {
  const Gpu &G = A.Gpus[static_cast<std::size_t>(Rank)];
  std::size_t In = static_cast<std::size_t>(G.IChunks);
  std::size_t Out = static_cast<std::size_t>(G.OChunks);
  std::size_t Scratch = static_cast<std::size_t>(G.SChunks);
  Aliasing Alias = Aliasing::None;
  std::size_t Offset = 0;
  if (Model.Layout) {
    In = static_cast<std::size_t>(Model.Layout->InputCount);
    Out = static_cast<std::size_t>(Model.Layout->OutputCount);
    Alias = Model.Layout->Alias;
    Offset = static_cast<std::size_t>(
        Model.Layout->aliasOffset(static_cast<unsigned>(Rank)));
  }
  auto &S = Storages[static_cast<std::size_t>(Rank)];
  auto &V = Views[static_cast<std::size_t>(Rank)];
  V.assign(3, View());
  switch (Alias) {
  case Aliasing::None:
    S.assign({std::vector<Slot>(In), std::vector<Slot>(Out)});
    V[0] = {0, 0, In};
    V[1] = {1, 0, Out};
    break;
  case Aliasing::SameBuffer:
    S.assign({std::vector<Slot>(std::max(In, Out))});
    V[0] = {0, 0, In};
    V[1] = {0, 0, Out};
    break;
  case Aliasing::InputInOutput:
    S.assign({std::vector<Slot>(Out)});
    V[0] = {0, Offset, In};
    V[1] = {0, 0, Out};
    break;
  case Aliasing::OutputInInput:
    S.assign({std::vector<Slot>(In)});
    V[0] = {0, 0, In};
    V[1] = {0, Offset, Out};
    break;
  }
  S.emplace_back(Scratch);
  V[2] = {S.size() - 1, 0, Scratch};
  // A sendbuff NCCL ignores (non-root ranks of broadcast and scatter) holds
  // nothing defined: whatever is derived from it is garbage.
  if (Model.Layout && !inputDefined(*Model.Layout, static_cast<unsigned>(Rank)))
    return;
  for (std::size_t J = 0; J < In; ++J)
    slot(Rank, BufferKind::Input, J)->V =
        SymValue::input(static_cast<unsigned>(Rank), static_cast<unsigned>(J));
}

SymbolicMachine::Slot *SymbolicMachine::slot(int Rank, BufferKind B,
                                             std::size_t Index) {
  const View &V = Views[static_cast<std::size_t>(Rank)][bufferIndex(B)];
  if (Index >= V.Len)
    return nullptr;
  auto &Storage = Storages[static_cast<std::size_t>(Rank)][V.Storage];
  if (V.Base + Index >= Storage.size())
    return nullptr;
  return &Storage[V.Base + Index];
}

void SymbolicMachine::recordAccesses(const TbProgram &T, const Operation &Op,
                                     BufferKind B, std::size_t Off,
                                     std::size_t Cnt, bool Writes) {
  const View &V = Views[static_cast<std::size_t>(T.Rank)][bufferIndex(B)];
  // Consecutive chunks racing with consecutive chunks of the same access
  // are reported together.
  std::optional<RaceConflict> Run;
  std::size_t RunFirst = 0, RunCnt = 0;
  for (std::size_t K = 0; K < Cnt; ++K) {
    std::size_t Index = Off + K;
    std::uint64_t Key =
        (std::uint64_t(V.Storage) << 32) | std::uint64_t(V.Base + Index);
    int Chunk = static_cast<int>(Index);
    std::optional<RaceConflict> C =
        Writes ? Hb->write(T.Rank, Key, T.Id, Op.Pos, B, Chunk)
               : Hb->read(T.Rank, Key, T.Id, Op.Pos, B, Chunk);
    if (!C)
      continue;
    if (Run && RunFirst + RunCnt == Index && C->Other.Tb == Run->Other.Tb &&
        C->Other.Step == Run->Other.Step &&
        C->OtherWrites == Run->OtherWrites && C->Other.Buf == Run->Other.Buf &&
        C->Other.Chunk == Run->Other.Chunk + static_cast<int>(RunCnt)) {
      ++RunCnt;
      continue;
    }
    if (Run)
      reportRace(T, Op, B, RunFirst, RunCnt, Writes, *Run);
    Run = C;
    RunFirst = Index;
    RunCnt = 1;
  }
  if (Run)
    reportRace(T, Op, B, RunFirst, RunCnt, Writes, *Run);
}

void SymbolicMachine::reportRace(const TbProgram &T, const Operation &Op,
                                 BufferKind B, std::size_t First,
                                 std::size_t Cnt, bool Writes,
                                 const RaceConflict &C) {
  int OtherTb = Hb->localTb(C.Other.Tb);
  Where OW = stepWhere(A, T.Rank, OtherTb, C.Other.Step);
  std::string Mine = chunkName(B, First, Cnt);
  std::string Theirs =
      chunkName(C.Other.Buf, static_cast<std::size_t>(C.Other.Chunk), Cnt);
  const char *It = Cnt == 1 ? "it" : "them";
  Sink.report<MsgId::DataRace>(
      at(T, Op), T.Rank, Mine, T.Id, Op.Pos, Writes ? "writes" : "reads", It,
      OtherTb, C.Other.Step,
      OW.Line ? fmt::format(" (line {})", OW.Line) : std::string(),
      C.OtherWrites ? "writes" : "reads", It,
      Theirs == Mine ? std::string() : " as " + Theirs);
}

bool SymbolicMachine::inBounds(const TbProgram &T, const Operation &Op,
                               BufferKind B, int Off) {
  std::size_t Len = Views[static_cast<std::size_t>(T.Rank)][bufferIndex(B)].Len;
  std::size_t Cnt = static_cast<std::size_t>(Op.S->Cnt);
  if (Off >= 0 && static_cast<std::size_t>(Off) + Cnt <= Len)
    return true;
  Sink.report<MsgId::ChunksOutsideBuffer>(
      at(T, Op), chunkName(B, static_cast<std::size_t>(Off), Cnt), nameOf(B),
      Len, Len == 1 ? "" : "s");
  return false;
}

std::vector<SymValue> SymbolicMachine::read(const TbProgram &T,
                                            const Operation &Op, BufferKind B,
                                            int Off, const char *Purpose) {
  std::size_t Cnt = static_cast<std::size_t>(Op.S->Cnt);
  std::vector<SymValue> Vals(Cnt);
  if (!inBounds(T, Op, B, Off))
    return Vals;
  if (Hb)
    recordAccesses(T, Op, B, static_cast<std::size_t>(Off), Cnt, false);
  bool Reported = false;
  for (std::size_t K = 0; K < Cnt; ++K) {
    std::size_t Index = static_cast<std::size_t>(Off) + K;
    Vals[K] = slot(T.Rank, B, Index)->V;
    if (Purpose && !Vals[K].Init && !Reported) {
      Reported = true;
      Sink.report<MsgId::UninitialisedRead>(at(T, Op), Purpose,
                                            chunkName(B, Index, 1));
    }
  }
  return Vals;
}

void SymbolicMachine::write(const TbProgram &T, const Operation &Op,
                            BufferKind B, int Off,
                            const std::vector<SymValue> &Vals) {
  if (!inBounds(T, Op, B, Off))
    return;
  if (Model.Layout) {
    const CollectiveLayout &L = *Model.Layout;
    std::string Chunks =
        chunkName(B, static_cast<std::size_t>(Off), Vals.size());
    if (B == BufferKind::Input && L.Alias == Aliasing::None)
      Sink.report<MsgId::WritesSendBuffer>(at(T, Op), Chunks);
    else if (B == BufferKind::Output &&
             !outputWritable(L, static_cast<unsigned>(T.Rank)))
      Sink.report<MsgId::WritesNonRootRecvBuffer>(at(T, Op), Chunks, T.Rank,
                                                  nameOf(L.Coll), L.Root);
  }
  if (Hb)
    recordAccesses(T, Op, B, static_cast<std::size_t>(Off), Vals.size(), true);
  for (std::size_t K = 0; K < Vals.size(); ++K) {
    Slot *S = slot(T.Rank, B, static_cast<std::size_t>(Off) + K);
    S->V = Vals[K];
    S->WRank = T.Rank;
    S->WTb = T.Id;
    S->WStep = Op.Pos;
  }
}

std::vector<SymValue> SymbolicMachine::combine(const TbProgram &T,
                                               const Operation &Op,
                                               const std::vector<SymValue> &X,
                                               const std::vector<SymValue> &Y) {
  std::vector<SymValue> R(X.size());
  bool Reported = false;
  for (std::size_t K = 0; K < X.size() && K < Y.size(); ++K) {
    std::optional<Contribution> Dup;
    R[K] = reduceValues(X[K], Y[K], Dup);
    if (Dup && !Reported) {
      Reported = true;
      Sink.report<MsgId::ReductionCountsTwice>(at(T, Op), describe(*Dup));
    }
  }
  return R;
}

void SymbolicMachine::execute(const TbProgram &T, TbState &St,
                              const Operation &Op, std::optional<Message> In) {
  const Step &S = *Op.S;
  std::vector<SymValue> X;
  if (In) {
    X = std::move(In->Vals);
    if (X.size() != static_cast<std::size_t>(S.Cnt)) {
      Sink.report<MsgId::MessageSizeMismatch>(
          at(T, Op), S.Cnt, S.Cnt == 1 ? "" : "s", T.Recv, T.Chan, In->Rank,
          In->Tb, In->Pos, X.size());
      X.resize(static_cast<std::size_t>(S.Cnt));
    }
  }
  switch (S.Type) {
  case StepType::Send:
  case StepType::Nop:
    break;
  case StepType::Recv:
    write(T, Op, S.DstBuf, S.DstOff, X);
    break;
  case StepType::RecvCopySend:
    write(T, Op, S.DstBuf, S.DstOff, X);
    St.Held = std::move(X);
    break;
  case StepType::RecvReduceSend:
    St.Held = combine(T, Op, X, read(T, Op, S.SrcBuf, S.SrcOff, "reduces"));
    break;
  case StepType::RecvReduceCopy:
    write(T, Op, S.DstBuf, S.DstOff,
          combine(T, Op, X, read(T, Op, S.SrcBuf, S.SrcOff, "reduces")));
    break;
  case StepType::RecvReduceCopySend:
    St.Held = combine(T, Op, X, read(T, Op, S.SrcBuf, S.SrcOff, "reduces"));
    write(T, Op, S.DstBuf, S.DstOff, St.Held);
    break;
  case StepType::Copy:
    write(T, Op, S.DstBuf, S.DstOff, read(T, Op, S.SrcBuf, S.SrcOff, nullptr));
    break;
  case StepType::Reduce: {
    std::vector<SymValue> Dst = read(T, Op, S.DstBuf, S.DstOff, "reduces");
    std::vector<SymValue> Src = read(T, Op, S.SrcBuf, S.SrcOff, "reduces");
    write(T, Op, S.DstBuf, S.DstOff, combine(T, Op, Dst, Src));
    break;
  }
  }
}

bool SymbolicMachine::advance(const TbProgram &T, TbState &St) {
  if (St.Done)
    return false;
  if (St.Pc >= T.Ops.size()) {
    St.Done = true;
    return true;
  }
  const Operation &Op = T.Ops[St.Pc];
  const Step &S = *Op.S;
  bool Progress = false;
  if (St.Phase == 0) {
    for (const Dependency &D : Op.Deps)
      if (Flags[static_cast<std::size_t>(T.Rank)]
               [static_cast<std::size_t>(D.Tb)] < D.Step) {
        St.W = {Wait::Dep, D.Tb, D.Step};
        return false;
      }
    St.Phase = 1;
    if (Hb)
      Hb->beginOp(T.Rank, T.Id, St.Pc);
  }
  if (St.Phase == 1) {
    std::optional<Message> In;
    if (receivesMessage(S.Type)) {
      auto It = Fifos.find({T.Recv, T.Rank, T.Chan});
      if (It == Fifos.end() || It->second.empty()) {
        St.W = {Wait::Recv, T.Recv, T.Chan};
        return Progress;
      }
      In = std::move(It->second.front());
      It->second.pop_front();
      if (Hb)
        Hb->receive(T.Rank, T.Id, In->Clock);
    }
    execute(T, St, Op, std::move(In));
    St.Phase = 2;
    Progress = true;
  }
  if (sendsMessage(S.Type)) {
    std::deque<Message> &F = Fifos[{T.Rank, T.Send, T.Chan}];
    if (F.size() >= Capacity) {
      St.W = {Wait::Send, T.Send, T.Chan};
      return Progress;
    }
    if (S.Type == StepType::Send)
      St.Held = read(T, Op, S.SrcBuf, S.SrcOff, "sends");
    Message M;
    M.Vals = std::move(St.Held);
    M.Rank = T.Rank;
    M.Tb = T.Id;
    M.Pos = Op.Pos;
    if (Hb)
      M.Clock = Hb->clock(T.Rank, T.Id);
    F.push_back(std::move(M));
  }
  if (S.HasDep) {
    int &Flag =
        Flags[static_cast<std::size_t>(T.Rank)][static_cast<std::size_t>(T.Id)];
    Flag = std::max(Flag, Op.PublishedStep);
  }
  if (Hb)
    Hb->endOp(T.Rank, T.Id, St.Pc);
  ++St.Pc;
  St.Phase = 0;
  St.Held.clear();
  St.W = Wait();
  return true;
}

void SymbolicMachine::run() {
  bool Any = true;
  while (Any) {
    Any = false;
    for (unsigned R = 0; R < NRanks; ++R) {
      poll();
      for (std::size_t T = 0; T < P.Ranks[R].size(); ++T)
        while (advance(P.Ranks[R][T], States[R][T]))
          Any = true;
    }
  }
  for (unsigned R = 0; R < NRanks; ++R)
    for (const TbState &St : States[R])
      if (!St.Done) {
        reportDeadlock();
        reportLeftovers(true);
        return;
      }
  reportLeftovers(false);
  if (Model.Layout)
    checkPostcondition();
}

} // namespace tacclrt
