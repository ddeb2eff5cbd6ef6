//===- exec/device/Interpreter.cuh - The TACCL-EF kernel -------*- CUDA -*-===//
//
// interpret<T>: every CUDA block runs one threadblock of the plan
// (DevicePlan.h), iteration after iteration, operation after operation:
//   1. thread 0 waits for the operation's dependencies (the flags other
//      blocks of the rank publish) and, for a receive, for a message on the
//      receive connection, and for a send, for a free slot on the send
//      connection; a device watchdog (globaltimer) turns a wait longer than
//      the limit into an error naming the block, step and iteration;
//   2. all threads move the data: for each of the Cnt chunks, its slice of
//      this iteration, between the buffers and the FIFO slots, reducing
//      where the operation says, 16 bytes per access where alignment
//      allows;
//   3. thread 0 publishes: the message (a fence, then the connection's
//      posted count), the consumed slot, and the block's flag when the
//      operation is a dependency target.
// Each connection has one sending and one receiving block, so the counts
// are private to them between the fences.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_INTERPRETER_CUH
#define TACCLC_EXEC_DEVICE_INTERPRETER_CUH

#include "exec/device/DeviceErrors.h"
#include "exec/device/DevicePlan.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace tacclrt::cuda {

/// Everything the kernel reads. Per-rank arrays live on that rank's GPU
/// (and are reached from other GPUs through peer access); the error word is
/// in host memory every GPU maps.
struct DevView {
  const DevBlock *Blocks;
  const DevOp *Ops;
  const DevDep *Deps;
  const DevConn *Conns;
  /// The blocks of this launch: CUDA block i runs Blocks[BlockList[i]].
  const std::uint32_t *BlockList;
  /// Per rank: the buffers (bytes) and the FIFO memory of its connections.
  char *const *Input;
  char *const *Output;
  char *const *Scratch;
  /// When OwnBuffers is set, every block is of one rank whose buffers are
  /// these (the NCCL shim: the caller's buffers change with every call).
  bool OwnBuffers;
  char *OwnInput, *OwnOutput, *OwnScratch;
  char *const *Fifo;
  /// Per rank: two counts per connection into it, [2c] messages posted by
  /// the sender and [2c + 1] messages consumed by the receiver.
  unsigned long long *const *Counts;
  /// Per rank: 1 + the (iteration, step) each block published, 0 before
  /// any, indexed by block.
  unsigned long long *const *Flags;
  /// Error[0] kind, [1] block, [2] op index in the block, [3] iteration,
  /// [4] what it waited for.
  int *Error;
  std::uint64_t ChunkElems, SliceElems, Iterations, SlotBytes;
  std::uint32_t FifoSlots;
  int Op;
  unsigned long long TimeoutNs;
};

__device__ inline unsigned long long globalTimer() {
  unsigned long long T;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
  return T;
}

/// One reduction step in T: integers wrap (unsigned arithmetic, as the
/// CPU reference), 16-bit floats compute in float and round once.
template <typename T> __device__ inline T combine(int Op, T A, T B) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (Op == 0)
      return T(U(A) + U(B));
    if (Op == 1)
      return T(U(A) * U(B));
  } else {
    if (Op == 0)
      return A + B;
    if (Op == 1)
      return A * B;
  }
  return Op == 2 ? (A < B ? A : B) : (A < B ? B : A);
}
template <> __device__ inline __half combine(int Op, __half A, __half B) {
  return __float2half_rn(combine<float>(Op, __half2float(A), __half2float(B)));
}
template <>
__device__ inline __nv_bfloat16 combine(int Op, __nv_bfloat16 A,
                                        __nv_bfloat16 B) {
  return __float2bfloat16_rn(
      combine<float>(Op, __bfloat162float(A), __bfloat162float(B)));
}

/// A load that bypasses L1 (other blocks wrote the data: L2 is coherent
/// across SMs, L1 is not).
template <typename T> __device__ inline T loadCg(const T *P) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                sizeof(T) == 8 || sizeof(T) == 16);
  T V;
  if constexpr (sizeof(T) == 1) {
    unsigned char X = __ldcg(reinterpret_cast<const unsigned char *>(P));
    memcpy(&V, &X, 1);
  } else if constexpr (sizeof(T) == 2) {
    unsigned short X = __ldcg(reinterpret_cast<const unsigned short *>(P));
    memcpy(&V, &X, 2);
  } else if constexpr (sizeof(T) == 4) {
    unsigned int X = __ldcg(reinterpret_cast<const unsigned int *>(P));
    memcpy(&V, &X, 4);
  } else if constexpr (sizeof(T) == 8) {
    unsigned long long X =
        __ldcg(reinterpret_cast<const unsigned long long *>(P));
    memcpy(&V, &X, 8);
  } else {
    uint4 X = __ldcg(reinterpret_cast<const uint4 *>(P));
    memcpy(&V, &X, 16);
  }
  return V;
}

/// R = A[k] (+) B[k] (or A[k] when B is null) into Dst[k] and, when given,
/// Dst2[k], for N elements, by all threads of the block; 16-byte accesses
/// when every pointer allows.
template <typename T>
__device__ inline void move(int Op, T *Dst, T *Dst2, const T *A, const T *B,
                            std::uint64_t N) {
  constexpr int PerVec = 16 / sizeof(T);
  auto Aligned = [](const void *P) {
    return P == nullptr || (reinterpret_cast<std::uintptr_t>(P) & 15) == 0;
  };
  std::uint64_t Vecs = 0;
  if (Aligned(Dst) && Aligned(Dst2) && Aligned(A) && Aligned(B)) {
    Vecs = N / PerVec;
    for (std::uint64_t V = threadIdx.x; V < Vecs; V += blockDim.x) {
      uint4 X = loadCg(reinterpret_cast<const uint4 *>(A) + V);
      if (B) {
        uint4 Y = loadCg(reinterpret_cast<const uint4 *>(B) + V);
        T *PX = reinterpret_cast<T *>(&X);
        const T *PY = reinterpret_cast<const T *>(&Y);
#pragma unroll
        for (int K = 0; K < PerVec; ++K)
          PX[K] = combine<T>(Op, PX[K], PY[K]);
      }
      reinterpret_cast<uint4 *>(Dst)[V] = X;
      if (Dst2)
        reinterpret_cast<uint4 *>(Dst2)[V] = X;
    }
  }
  for (std::uint64_t E = Vecs * PerVec + threadIdx.x; E < N; E += blockDim.x) {
    T X = loadCg(A + E);
    if (B)
      X = combine<T>(Op, X, loadCg(B + E));
    Dst[E] = X;
    if (Dst2)
      Dst2[E] = X;
  }
}

/// Thread 0 waits until *P >= Want; false (and the error recorded) on a
/// timeout or when another block failed.
__device__ inline bool waitAtLeast(const DevView &V,
                                   volatile unsigned long long *P,
                                   unsigned long long Want, int Kind,
                                   unsigned Block, unsigned OpIdx,
                                   unsigned long long Iter) {
  unsigned long long Start = globalTimer();
  while (*P < Want) {
    if (*(volatile int *)V.Error != NoError)
      return false;
    if (globalTimer() - Start > V.TimeoutNs) {
      if (atomicCAS(V.Error, NoError, Timeout) == NoError) {
        V.Error[1] = int(Block);
        V.Error[2] = int(OpIdx);
        V.Error[3] = int(Iter);
        V.Error[4] = Kind;
        __threadfence_system();
      }
      return false;
    }
    __nanosleep(64);
  }
  return true;
}

template <typename T> __global__ void interpret(DevView V) {
  const unsigned Block = V.BlockList[blockIdx.x];
  const DevBlock &B = V.Blocks[Block];
  __shared__ int Abort;
  __shared__ unsigned long long Sent, Received;
  if (threadIdx.x == 0) {
    Abort = 0;
    Sent = Received = 0;
  }
  __syncthreads();
  char *Bufs[3] = {V.OwnBuffers ? V.OwnInput : V.Input[B.Rank],
                   V.OwnBuffers ? V.OwnOutput : V.Output[B.Rank],
                   V.OwnBuffers ? V.OwnScratch : V.Scratch[B.Rank]};
  const DevConn *SendC = B.SendConn >= 0 ? &V.Conns[B.SendConn] : nullptr;
  const DevConn *RecvC = B.RecvConn >= 0 ? &V.Conns[B.RecvConn] : nullptr;
  // The counts of a connection live with its receiver.
  unsigned long long *SendCounts =
      SendC ? V.Counts[SendC->Dst] + 2 * B.SendConn : nullptr;
  unsigned long long *RecvCounts =
      RecvC ? V.Counts[RecvC->Dst] + 2 * B.RecvConn : nullptr;
  unsigned long long *Flags = V.Flags[B.Rank];
  for (unsigned long long It = 0; It < V.Iterations; ++It) {
    const std::uint64_t First = It * V.SliceElems;
    const std::uint64_t N = V.ChunkElems - First < V.SliceElems
                                ? V.ChunkElems - First
                                : V.SliceElems;
    for (unsigned I = 0; I < B.NumOps; ++I) {
      const DevOp &Op = V.Ops[B.FirstOp + I];
      const bool Recv = Op.Type == DevOpType::Recv ||
                        Op.Type == DevOpType::RecvCopySend ||
                        Op.Type == DevOpType::RecvReduceSend ||
                        Op.Type == DevOpType::RecvReduceCopy ||
                        Op.Type == DevOpType::RecvReduceCopySend;
      const bool Send = Op.Type == DevOpType::Send ||
                        Op.Type == DevOpType::RecvCopySend ||
                        Op.Type == DevOpType::RecvReduceSend ||
                        Op.Type == DevOpType::RecvReduceCopySend;
      // 1. Wait.
      if (threadIdx.x == 0) {
        bool Ok = true;
        for (unsigned K = 0; Ok && K < Op.NumDeps; ++K) {
          const DevDep &D = V.Deps[Op.FirstDep + K];
          Ok = waitAtLeast(V, &Flags[D.Block], It * FlagScale + D.Step + 1,
                           WaitDependency, Block, I, It);
        }
        if (Ok && Recv)
          Ok = waitAtLeast(V, &RecvCounts[0], Received + 1, WaitMessage, Block,
                           I, It);
        if (Ok && Send && Sent >= V.FifoSlots)
          Ok = waitAtLeast(V, &SendCounts[1], Sent + 1 - V.FifoSlots, WaitRoom,
                           Block, I, It);
        // Acquire at system scope: the message may come from another GPU.
        __threadfence_system();
        Abort = !Ok;
      }
      __syncthreads();
      if (Abort)
        return;
      // 2. Move.
      const T *In = nullptr;
      T *Out = nullptr;
      if (Recv)
        In =
            reinterpret_cast<const T *>(V.Fifo[RecvC->Dst] + RecvC->FifoOffset +
                                        (Received % V.FifoSlots) * V.SlotBytes);
      if (Send)
        Out = reinterpret_cast<T *>(V.Fifo[SendC->Dst] + SendC->FifoOffset +
                                    (Sent % V.FifoSlots) * V.SlotBytes);
      for (int C = 0; C < Op.Cnt; ++C) {
        const std::uint64_t Piece = std::uint64_t(C) * V.SliceElems;
        auto At = [&](DevBuffer Buf, std::int32_t Off) -> T * {
          if (Off < 0)
            return nullptr;
          return reinterpret_cast<T *>(Bufs[int(Buf)]) +
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
      __syncthreads();
      // 3. Publish.
      if (threadIdx.x == 0) {
        __threadfence_system();
        if (Recv)
          *(volatile unsigned long long *)&RecvCounts[1] = ++Received;
        if (Send)
          *(volatile unsigned long long *)&SendCounts[0] = ++Sent;
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
