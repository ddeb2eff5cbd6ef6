//===- exec/device/KernelCommon.cuh - What the kernel is made of -*- CUDA
//-*-===//
//
// The pieces the interpreter kernel (Interpreter.cuh) and its LL/LL128 path
// (LineKernel.cuh) share: the view of the plan a launch reads (DevView), the
// reduction of one element pair, loads that bypass L1, the block-wide copy
// with 16-byte accesses, and thread 0's watched waits, whose timeouts write
// the error word every GPU maps.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_KERNELCOMMON_CUH
#define TACCLC_EXEC_DEVICE_KERNELCOMMON_CUH

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
  /// How messages move: Simple slots and counts, or LL/LL128 lines.
  Protocol Proto;
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

/// Where a block waits: the block, its operation and the loop iteration.
struct WaitSite {
  unsigned Block, OpIdx;
  unsigned long long Iter;
};

/// Records a timeout at \p S while waiting for \p Kind, unless another
/// block already recorded one.
__device__ inline void recordTimeout(const DevView &V, const WaitSite &S,
                                     int Kind) {
  if (atomicCAS(V.Error, NoError, Timeout) == NoError) {
    V.Error[1] = int(S.Block);
    V.Error[2] = int(S.OpIdx);
    V.Error[3] = int(S.Iter);
    V.Error[4] = Kind;
    __threadfence_system();
  }
}

/// Thread 0 waits until *P >= Want; false (and the error recorded) on a
/// timeout or when another block failed.
__device__ inline bool waitAtLeast(const DevView &V,
                                   volatile unsigned long long *P,
                                   unsigned long long Want, int Kind,
                                   const WaitSite &S) {
  unsigned long long Start = globalTimer();
  while (*P < Want) {
    if (*(volatile int *)V.Error != NoError)
      return false;
    if (globalTimer() - Start > V.TimeoutNs) {
      recordTimeout(V, S, Kind);
      return false;
    }
    __nanosleep(64);
  }
  return true;
}

} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_KERNELCOMMON_CUH
