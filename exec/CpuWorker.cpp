//===- exec/CpuWorker.cpp - One threadblock on a CPU thread ---------------===//
//
// The loop of msccl_kernel.cu on the host: for every slice (gridOffset) of
// every chunk, run the threadblock's operations in order. Chunk k of a
// buffer starts at element k*sizePerChunk + gridOffset and each operation
// moves nelem = min(slice, sizePerChunk - gridOffset) elements of each of
// its cnt chunks; the cnt chunks are handled one by one since they are not
// contiguous across slices. Every access is bounds-checked against the real
// buffers; a violation aborts the run with an issue.
//
// Under LL and LL128 a message travels as the protocol's flagged lines
// (exec/LineCodec.h): each chunk's slice takes one connection step per
// slot's worth of data, its lines carry the sender's step count, and the
// receiver decodes them only when every flag is the step it expects, as
// NCCL's receivers poll the lines themselves.
//
//===----------------------------------------------------------------------===//
#include "exec/CpuWorker.h"
#include "exec/LineCodec.h"
#include "format/LineLanes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tacclrt {

std::uint64_t packWriter(int Rank, int Tb, int Pos, long Iter) {
  return (static_cast<std::uint64_t>(Rank + 1) << 48) |
         (static_cast<std::uint64_t>(Tb & 0xffff) << 32) |
         (static_cast<std::uint64_t>(Pos & 0xffff) << 16) |
         static_cast<std::uint64_t>(Iter & 0xffff);
}

bool unpackWriter(std::uint64_t W, int &Rank, int &Tb, int &Pos, long &Iter) {
  if (W == 0)
    return false;
  Rank = static_cast<int>(W >> 48) - 1;
  Tb = static_cast<int>((W >> 32) & 0xffff);
  Pos = static_cast<int>((W >> 16) & 0xffff);
  Iter = static_cast<long>(W & 0xffff);
  return true;
}

namespace {

/// Executes one threadblock; see the file comment.
class Worker {
public:
  Worker(const Algo &A, const TbProgram &T, std::size_t Me,
         const CpuRunConfig &C, std::vector<CpuRankMemory> &Mem, CpuSync &Sync)
      : A(A), T(T), Me(Me), C(C), Mem(Mem[static_cast<std::size_t>(T.Rank)]),
        Sync(Sync), Send(Sync.sendFifo(T)), Recv(Sync.recvFifo(T)) {}

  void run() {
    if (Sync.waitStart(Me))
      loop();
    Sync.finish(Me);
  }

private:
  const Algo &A;
  const TbProgram &T;
  std::size_t Me;
  const CpuRunConfig &C;
  CpuRankMemory &Mem;
  CpuSync &Sync;
  CpuFifo *Send;
  CpuFifo *Recv;
  long Iter = 0;
  std::uint64_t GridOffset = 0;
  std::uint64_t NElem = 0;

  Where at(const Operation &Op) const {
    Where W = stepWhere(A, T.Rank, T.Id, Op.Pos);
    W.Iteration = Iter;
    return W;
  }

  void loop() {
    for (Iter = 0; Iter < C.Iterations; ++Iter) {
      GridOffset = static_cast<std::uint64_t>(Iter) * C.SliceElems;
      NElem = std::min(C.SliceElems, C.SizePerChunk - GridOffset);
      for (const Operation &Op : T.Ops) {
        if (Sync.aborted())
          return;
        Sync.setPosition(Me, Iter, Op.Pos);
        for (const Dependency &D : Op.Deps)
          if (!Sync.waitDependency(Me, T.Rank, D.Tb, D.Step, Iter))
            return;
        if (!execute(Op))
          return;
        if (Op.S->HasDep)
          Sync.publish(T.Rank, T.Id, Iter * FlagStride + Op.PublishedStep);
        Sync.noteProgress();
      }
    }
  }

  /// Element offset (in the storage) of \p Chunk of buffer \p B for this
  /// slice, or nullptr after reporting an out-of-range access.
  std::byte *chunkPtr(const Operation &Op, BufferKind B, long long Chunk,
                      std::uint64_t &StorageElem) {
    const CpuView &V = Mem.Views[static_cast<std::size_t>(B)];
    std::uint64_t First = 0;
    bool Ok = Chunk >= 0;
    if (Ok) {
      First = static_cast<std::uint64_t>(Chunk) * C.SizePerChunk + GridOffset;
      Ok = First + NElem <= V.Len && (V.Base + First + NElem) * C.Ty->Size <=
                                         Mem.Storages[V.Storage].size();
    }
    if (!Ok) {
      Sync.fail(at(Op), message<MsgId::AccessOutsideBuffer>(
                            nameOf(B), Chunk, First, First + NElem - 1,
                            nameOf(B), V.Len));
      return nullptr;
    }
    StorageElem = V.Base + First;
    return Mem.Storages[V.Storage].data() + StorageElem * C.Ty->Size;
  }

  std::size_t slotOf(std::uint64_t StorageElem) const {
    return static_cast<std::size_t>(StorageElem / C.SizePerChunk);
  }

  /// Copies cnt chunks of \p B starting at \p Off into \p Out. With a
  /// \p Purpose, reading a never-written slot is reported.
  bool gather(const Operation &Op, BufferKind B, int Off,
              std::vector<std::byte> &Out, const char *Purpose) {
    std::size_t ChunkBytes = static_cast<std::size_t>(NElem) * C.Ty->Size;
    Out.resize(ChunkBytes * static_cast<std::size_t>(Op.S->Cnt));
    for (int K = 0; K < Op.S->Cnt; ++K) {
      std::uint64_t Elem = 0;
      std::byte *Src = chunkPtr(Op, B, static_cast<long long>(Off) + K, Elem);
      if (!Src)
        return false;
      std::memcpy(Out.data() + ChunkBytes * static_cast<std::size_t>(K), Src,
                  ChunkBytes);
      if (Purpose && C.Tracking) {
        const CpuView &V = Mem.Views[static_cast<std::size_t>(B)];
        std::int64_t W = Mem.Written[V.Storage][slotOf(Elem)].load(
            std::memory_order_relaxed);
        if (W < Iter)
          Sync.errorOnce(at(Op), message<MsgId::UninitialisedChunk>(
                                     Purpose, nameOf(B), Off + K));
      }
    }
    return true;
  }

  /// Writes \p In (cnt chunks) into \p B starting at \p Off.
  bool scatter(const Operation &Op, BufferKind B, int Off,
               const std::vector<std::byte> &In) {
    std::size_t ChunkBytes = static_cast<std::size_t>(NElem) * C.Ty->Size;
    for (int K = 0; K < Op.S->Cnt; ++K) {
      std::uint64_t Elem = 0;
      std::byte *Dst = chunkPtr(Op, B, static_cast<long long>(Off) + K, Elem);
      if (!Dst)
        return false;
      std::memcpy(Dst, In.data() + ChunkBytes * static_cast<std::size_t>(K),
                  ChunkBytes);
      if (C.Tracking) {
        const CpuView &V = Mem.Views[static_cast<std::size_t>(B)];
        std::atomic<std::int64_t> &W = Mem.Written[V.Storage][slotOf(Elem)];
        if (W.load(std::memory_order_relaxed) < Iter)
          W.store(Iter, std::memory_order_relaxed);
        Mem.Writer[V.Storage][slotOf(Elem)].store(
            packWriter(T.Rank, T.Id, Op.Pos, Iter), std::memory_order_relaxed);
      }
    }
    return true;
  }

  bool receive(const Operation &Op, CpuMessage &Msg) {
    if (!Sync.pop(Me, *Recv, Msg))
      return false;
    if (Msg.Cnt != Op.S->Cnt || Msg.NElem != NElem || Msg.Iter != Iter) {
      Sync.fail(at(Op), message<MsgId::ReceivedSizeMismatch>(
                            Op.S->Cnt, Op.S->Cnt == 1 ? "" : "s", NElem, T.Recv,
                            T.Chan, Msg.Rank, Msg.Tb, Msg.Pos, Msg.Iter,
                            Msg.Cnt, Msg.Cnt == 1 ? "" : "s", Msg.NElem));
      return false;
    }
    return !usesLines(A.Proto) || readLines(Op, Msg);
  }

  /// Connection steps of a message of \p Cnt chunks: a chunk's slice takes
  /// one step per slot of data (one for an empty slice).
  std::uint64_t stepsOf(int Cnt) const {
    return static_cast<std::uint64_t>(Cnt) *
           lines::stepsPerChunk(A.Proto, NElem * C.Ty->Size);
  }

  /// Calls \p Visit(offset, bytes) for each connection step of a message of
  /// \p Cnt chunks, in order (stepsOf(Cnt) calls), cut as the CUDA
  /// interpreter cuts it (format/LineLanes.h).
  template <typename F> void forEachStep(int Cnt, F Visit) const {
    const std::uint64_t ChunkBytes = NElem * C.Ty->Size;
    const std::uint64_t Steps = stepsOf(Cnt);
    for (std::uint64_t K = 0; K < Steps; ++K) {
      lines::StepPart S = lines::stepPart(A.Proto, ChunkBytes, K);
      Visit(S.Chunk * ChunkBytes + S.Offset, S.Bytes);
    }
  }

  /// Replaces Msg.Data by the protocol's lines, stamped with this
  /// connection's next steps.
  void writeLines(CpuMessage &Msg) {
    std::uint64_t Step = Send->SentSteps.fetch_add(stepsOf(Msg.Cnt));
    forEachStep(Msg.Cnt, [&](std::uint64_t Off, std::uint64_t N) {
      encodeStep(A.Proto, Msg.Data.data() + Off, N, stepFlag(Step++),
                 Msg.Lines);
    });
    Msg.Data = {};
  }

  /// Decodes Msg.Lines into Msg.Data, checking every flag against the
  /// steps this receiver reads next.
  bool readLines(const Operation &Op, CpuMessage &Msg) {
    Msg.Data.resize(static_cast<std::size_t>(Msg.Cnt) * NElem * C.Ty->Size);
    std::uint64_t Step = Recv->ReadSteps.fetch_add(stepsOf(Msg.Cnt));
    const std::uint64_t *Line = Msg.Lines.data();
    const std::uint64_t *End = Line + Msg.Lines.size();
    std::optional<LineFault> Fault;
    std::uint64_t FaultStep = 0;
    forEachStep(Msg.Cnt, [&](std::uint64_t Off, std::uint64_t N) {
      std::uint64_t Words = linesFor(A.Proto, N) * lineWords(A.Proto);
      if (Fault || Line + Words > End) {
        if (!Fault)
          Fault = LineFault{0, 0, stepFlag(Step)};
        return;
      }
      Fault =
          decodeStep(A.Proto, Line, N, stepFlag(Step), Msg.Data.data() + Off);
      FaultStep = Step++;
      Line += Words;
    });
    if (!Fault)
      return true;
    Sync.fail(at(Op),
              message<MsgId::StaleLine>(nameOf(A.Proto), Fault->Line, FaultStep,
                                        Fault->Found, Fault->Expected, Msg.Rank,
                                        Msg.Tb, Msg.Pos, Msg.Iter));
    return false;
  }

  bool send(const Operation &Op, std::vector<std::byte> Data) {
    CpuMessage Msg;
    Msg.Data = std::move(Data);
    Msg.Cnt = Op.S->Cnt;
    Msg.NElem = NElem;
    Msg.Rank = T.Rank;
    Msg.Tb = T.Id;
    Msg.Pos = Op.Pos;
    Msg.Iter = Iter;
    if (usesLines(A.Proto))
      writeLines(Msg);
    return Sync.push(Me, *Send, std::move(Msg));
  }

  void reduceInto(std::vector<std::byte> &Acc,
                  const std::vector<std::byte> &Other) {
    C.Ty->Reduce(C.Op, Acc.data(), Acc.data(), Other.data(),
                 Acc.size() / C.Ty->Size);
  }

  bool execute(const Operation &Op) {
    const Step &S = *Op.S;
    CpuMessage Msg;
    std::vector<std::byte> Tmp;
    switch (S.Type) {
    case StepType::Nop:
      return true;
    case StepType::Send:
      return gather(Op, S.SrcBuf, S.SrcOff, Tmp, "sends") &&
             send(Op, std::move(Tmp));
    case StepType::Recv:
      return receive(Op, Msg) && scatter(Op, S.DstBuf, S.DstOff, Msg.Data);
    case StepType::RecvCopySend:
      return receive(Op, Msg) && scatter(Op, S.DstBuf, S.DstOff, Msg.Data) &&
             send(Op, std::move(Msg.Data));
    case StepType::RecvReduceSend:
      if (!receive(Op, Msg) || !gather(Op, S.SrcBuf, S.SrcOff, Tmp, "reduces"))
        return false;
      reduceInto(Msg.Data, Tmp);
      return send(Op, std::move(Msg.Data));
    case StepType::RecvReduceCopy:
      if (!receive(Op, Msg) || !gather(Op, S.SrcBuf, S.SrcOff, Tmp, "reduces"))
        return false;
      reduceInto(Msg.Data, Tmp);
      return scatter(Op, S.DstBuf, S.DstOff, Msg.Data);
    case StepType::RecvReduceCopySend:
      if (!receive(Op, Msg) || !gather(Op, S.SrcBuf, S.SrcOff, Tmp, "reduces"))
        return false;
      reduceInto(Msg.Data, Tmp);
      return scatter(Op, S.DstBuf, S.DstOff, Msg.Data) &&
             send(Op, std::move(Msg.Data));
    case StepType::Copy:
      return gather(Op, S.SrcBuf, S.SrcOff, Tmp, nullptr) &&
             scatter(Op, S.DstBuf, S.DstOff, Tmp);
    case StepType::Reduce: {
      std::vector<std::byte> Acc;
      if (!gather(Op, S.DstBuf, S.DstOff, Acc, "reduces") ||
          !gather(Op, S.SrcBuf, S.SrcOff, Tmp, "reduces"))
        return false;
      reduceInto(Acc, Tmp);
      return scatter(Op, S.DstBuf, S.DstOff, Acc);
    }
    }
    return false;
  }
};

} // namespace

void runThreadblock(const Algo &A, const TbProgram &T, std::size_t Me,
                    const CpuRunConfig &C, std::vector<CpuRankMemory> &Mem,
                    CpuSync &Sync) {
  Worker(A, T, Me, C, Mem, Sync).run();
}

} // namespace tacclrt
