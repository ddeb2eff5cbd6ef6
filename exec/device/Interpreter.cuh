//===- exec/device/Interpreter.cuh - The TACCL-EF kernel -------*- CUDA -*-===//
//
// interpret<T>: every CUDA block runs one threadblock of the plan
// (DevicePlan.h), iteration after iteration, operation after operation:
//   1. thread 0 waits for the operation's dependencies (the flags other
//      blocks of the rank publish) and, under Simple, for a receive, for a
//      message on the receive connection (its posted count), and for a
//      send, for a free slot on the send connection; a device watchdog
//      (globaltimer) turns a wait longer than the limit into an error
//      naming the block, step and iteration;
//   2. all threads move the data: for each of the Cnt chunks, its slice of
//      this iteration, between the buffers and the FIFO, reducing where the
//      operation says. Under Simple a message fills one slot with 16-byte
//      accesses where alignment allows. Under LL and LL128 it goes step by
//      step as flagged lines that the receiving threads poll themselves
//      (LineKernel.cuh): no posted count, no fence between data and signal;
//   3. thread 0 publishes: under Simple the message (a fence, then the
//      connection's posted count) and the consumed slot (LL and LL128
//      publish consumed steps as they go), and the block's flag when the
//      operation is a dependency target.
// Each connection has one sending and one receiving block, so the counts
// are private to them between the fences.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_INTERPRETER_CUH
#define TACCLC_EXEC_DEVICE_INTERPRETER_CUH

#include "exec/device/KernelCommon.cuh"
#include "exec/device/LineKernel.cuh"

#include <cstdint>

namespace tacclrt::cuda {

/// What one block works with: its rank's buffers and its two connections
/// with their counts (which live with each connection's receiver).
struct BlockContext {
  char *Bufs[3];
  const DevConn *SendC, *RecvC;
  unsigned long long *SendCounts, *RecvCounts;
};

/// Shared by the threads of a block: a failed wait, and the steps (Simple:
/// messages) sent and received so far on its connections.
struct BlockShared {
  int Abort;
  unsigned long long Sent, Received;
};

/// The FIFO slot of step (Simple: message) \p Count of connection \p C.
__device__ inline char *slotOf(const DevView &V, const DevConn *C,
                               unsigned long long Count) {
  return V.Fifo[C->Dst] + C->FifoOffset + (Count % V.FifoSlots) * V.SlotBytes;
}

/// All threads, under LL or LL128: operation \p Op's message step by step
/// (LineKernel.cuh), elements [First, First + N) of each of its chunks.
/// False when a wait failed.
template <typename T>
__device__ bool runLineOp(const DevView &V, const DevOp &Op,
                          const BlockContext &Ctx, BlockShared &Sh,
                          std::uint64_t First, std::uint64_t N,
                          const WaitSite &Site) {
  const bool Recv = receives(Op.Type), Send = sends(Op.Type);
  const bool Reduce = reducesMessage(Op.Type);
  const bool WritesDst = writesDestination(Op.Type);
  const std::uint64_t ChunkBytes = N * sizeof(T);
  const std::uint64_t Steps =
      std::uint64_t(Op.Cnt) * lines::stepsPerChunk(V.Proto, ChunkBytes);
  for (std::uint64_t K = 0; K < Steps; ++K) {
    if (threadIdx.x == 0) {
      bool Ok = true;
      if (Send && Sh.Sent >= V.FifoSlots)
        Ok = waitAtLeast(V, &Ctx.SendCounts[1], Sh.Sent + 1 - V.FifoSlots,
                         WaitRoom, Site);
      Sh.Abort = !Ok;
    }
    __syncthreads();
    if (Sh.Abort)
      return false;
    const lines::StepPart Part = lines::stepPart(V.Proto, ChunkBytes, K);
    auto At = [&](DevBuffer Buf, std::int32_t Off) -> T * {
      return reinterpret_cast<T *>(Ctx.Bufs[int(Buf)]) +
             (std::uint64_t(Off) + Part.Chunk) * V.ChunkElems + First +
             Part.Offset / sizeof(T);
    };
    LineStep S;
    S.P = V.Proto;
    S.Bytes = Part.Bytes;
    S.In = Recv ? reinterpret_cast<const lines::Unit *>(
                      slotOf(V, Ctx.RecvC, Sh.Received))
                : nullptr;
    S.Out = Send
                ? reinterpret_cast<lines::Unit *>(slotOf(V, Ctx.SendC, Sh.Sent))
                : nullptr;
    S.InFlag = Sh.Received + 1;
    S.OutFlag = Sh.Sent + 1;
    S.Src = (!Recv || Reduce) && Op.SrcOff >= 0 ? At(Op.SrcBuf, Op.SrcOff)
                                                : nullptr;
    S.Dst = WritesDst && Op.DstOff >= 0 ? At(Op.DstBuf, Op.DstOff) : nullptr;
    S.Reduce = Reduce;
    if (!moveLineStep<T>(V, S, Site))
      Sh.Abort = 1;
    __syncthreads();
    if (Sh.Abort)
      return false;
    // The step's units are read: free its slot.
    if (threadIdx.x == 0) {
      if (Recv) {
        __threadfence_system();
        *(volatile unsigned long long *)&Ctx.RecvCounts[1] = ++Sh.Received;
      }
      if (Send)
        ++Sh.Sent;
    }
    __syncthreads();
  }
  return true;
}

/// All threads, under Simple: operation \p Op's Cnt pieces between the
/// buffers and the slots of its message.
template <typename T>
__device__ void runSimpleOp(const DevView &V, const DevOp &Op,
                            const BlockContext &Ctx, const BlockShared &Sh,
                            std::uint64_t First, std::uint64_t N) {
  const T *In =
      receives(Op.Type)
          ? reinterpret_cast<const T *>(slotOf(V, Ctx.RecvC, Sh.Received))
          : nullptr;
  T *Out = sends(Op.Type) ? reinterpret_cast<T *>(slotOf(V, Ctx.SendC, Sh.Sent))
                          : nullptr;
  for (int C = 0; C < Op.Cnt; ++C) {
    const std::uint64_t Piece = std::uint64_t(C) * V.SliceElems;
    auto At = [&](DevBuffer Buf, std::int32_t Off) -> T * {
      if (Off < 0)
        return nullptr;
      return reinterpret_cast<T *>(Ctx.Bufs[int(Buf)]) +
             (std::uint64_t(Off) + C) * V.ChunkElems + First;
    };
    T *Src = At(Op.SrcBuf, Op.SrcOff);
    T *Dst = At(Op.DstBuf, Op.DstOff);
    const T *Msg = In ? In + Piece : nullptr;
    T *Fwd = Out ? Out + Piece : nullptr;
    switch (Op.Type) {
    case DevOpType::Send:
      move<T>(V.Op, Fwd, nullptr, Src, nullptr, N);
      break;
    case DevOpType::Recv:
      move<T>(V.Op, Dst, nullptr, Msg, nullptr, N);
      break;
    case DevOpType::RecvCopySend:
      move<T>(V.Op, Dst, Fwd, Msg, nullptr, N);
      break;
    case DevOpType::RecvReduceSend:
      move<T>(V.Op, Fwd, nullptr, Msg, Src, N);
      break;
    case DevOpType::RecvReduceCopy:
      move<T>(V.Op, Dst, nullptr, Msg, Src, N);
      break;
    case DevOpType::RecvReduceCopySend:
      move<T>(V.Op, Dst, Fwd, Msg, Src, N);
      break;
    case DevOpType::Copy:
      move<T>(V.Op, Dst, nullptr, Src, nullptr, N);
      break;
    case DevOpType::Reduce:
      move<T>(V.Op, Dst, nullptr, Dst, Src, N);
      break;
    }
  }
}

template <typename T> __global__ void interpret(DevView V) {
  const unsigned Block = V.BlockList[blockIdx.x];
  const DevBlock &B = V.Blocks[Block];
  __shared__ BlockShared Sh;
  if (threadIdx.x == 0) {
    Sh.Abort = 0;
    Sh.Sent = Sh.Received = 0;
  }
  __syncthreads();
  BlockContext Ctx;
  Ctx.Bufs[0] = V.OwnBuffers ? V.OwnInput : V.Input[B.Rank];
  Ctx.Bufs[1] = V.OwnBuffers ? V.OwnOutput : V.Output[B.Rank];
  Ctx.Bufs[2] = V.OwnBuffers ? V.OwnScratch : V.Scratch[B.Rank];
  Ctx.SendC = B.SendConn >= 0 ? &V.Conns[B.SendConn] : nullptr;
  Ctx.RecvC = B.RecvConn >= 0 ? &V.Conns[B.RecvConn] : nullptr;
  Ctx.SendCounts =
      Ctx.SendC ? V.Counts[Ctx.SendC->Dst] + 2 * B.SendConn : nullptr;
  Ctx.RecvCounts =
      Ctx.RecvC ? V.Counts[Ctx.RecvC->Dst] + 2 * B.RecvConn : nullptr;
  unsigned long long *Flags = V.Flags[B.Rank];
  for (unsigned long long It = 0; It < V.Iterations; ++It) {
    const std::uint64_t First = It * V.SliceElems;
    const std::uint64_t N = V.ChunkElems - First < V.SliceElems
                                ? V.ChunkElems - First
                                : V.SliceElems;
    for (unsigned I = 0; I < B.NumOps; ++I) {
      const DevOp &Op = V.Ops[B.FirstOp + I];
      const WaitSite Site = {Block, I, It};
      const bool Recv = receives(Op.Type), Send = sends(Op.Type);
      // LL and LL128 wait for data in the lines themselves.
      const bool Lines = (Recv || Send) && usesLines(V.Proto);
      // 1. Wait.
      if (threadIdx.x == 0) {
        bool Ok = true;
        for (unsigned K = 0; Ok && K < Op.NumDeps; ++K) {
          const DevDep &D = V.Deps[Op.FirstDep + K];
          Ok = waitAtLeast(V, &Flags[D.Block], It * FlagScale + D.Step + 1,
                           WaitDependency, Site);
        }
        if (Ok && Recv && !Lines)
          Ok = waitAtLeast(V, &Ctx.RecvCounts[0], Sh.Received + 1, WaitMessage,
                           Site);
        if (Ok && Send && !Lines && Sh.Sent >= V.FifoSlots)
          Ok = waitAtLeast(V, &Ctx.SendCounts[1], Sh.Sent + 1 - V.FifoSlots,
                           WaitRoom, Site);
        // Acquire at system scope: the message may come from another GPU.
        __threadfence_system();
        Sh.Abort = !Ok;
      }
      __syncthreads();
      if (Sh.Abort)
        return;
      // 2. Move.
      if (Lines) {
        if (!runLineOp<T>(V, Op, Ctx, Sh, First, N, Site))
          return;
      } else {
        runSimpleOp<T>(V, Op, Ctx, Sh, First, N);
        __syncthreads();
      }
      // 3. Publish.
      if (threadIdx.x == 0) {
        __threadfence_system();
        if (Recv && !Lines)
          *(volatile unsigned long long *)&Ctx.RecvCounts[1] = ++Sh.Received;
        if (Send && !Lines)
          *(volatile unsigned long long *)&Ctx.SendCounts[0] = ++Sh.Sent;
        if (Op.HasDep)
          *(volatile unsigned long long *)&Flags[Block] =
              It * FlagScale + Op.PublishedStep + 1;
      }
      __syncthreads();
    }
  }
}

} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_INTERPRETER_CUH
