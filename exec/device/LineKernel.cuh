//===- exec/device/LineKernel.cuh - LL and LL128 in the kernel --*- CUDA
//-*-===//
//
// How the interpreter (Interpreter.cuh) moves a message under LL and LL128:
// no posted count and no fence between data and signal. The message is cut
// into connection steps (format/LineLanes.h); for each step
//   1. thread 0 waits for room on the send connection (the receiver's
//      consumed count), as under Simple;
//   2. every thread takes 16-byte units of the step, unit = thread index
//      plus multiples of the block size: a receiving thread polls its unit
//      in the peer-written FIFO with one 16-byte volatile load until the
//      unit's flag is the step's (LL: both flags of the line; LL128: the
//      eight threads of a line vote in their warp until the flag unit is
//      current, as NCCL's LL128 receiver does), combines the data with the
//      source buffer where the operation reduces, writes the destination,
//      and a sending thread stores the result with its flag in one 16-byte
//      volatile store;
//   3. thread 0 publishes the consumed step, which frees the slot.
// A unit that never turns current trips the same watchdog as every other
// wait, reported as a wait for a flagged line.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_LINEKERNEL_CUH
#define TACCLC_EXEC_DEVICE_LINEKERNEL_CUH

#include "exec/device/KernelCommon.cuh"
#include "format/LineLanes.h"

#include <cstdint>

namespace tacclrt::cuda {

/// One 16-byte volatile load of a unit another GPU may be writing.
__device__ inline lines::Unit loadUnit(const lines::Unit *P) {
  lines::Unit X;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(X.W[0]), "=r"(X.W[1]), "=r"(X.W[2]), "=r"(X.W[3])
               : "l"(P)
               : "memory");
  return X;
}

/// One 16-byte volatile store: a unit's data and flag arrive together.
__device__ inline void storeUnit(lines::Unit *P, const lines::Unit &X) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};"
               :
               : "l"(P), "r"(X.W[0]), "r"(X.W[1]), "r"(X.W[2]), "r"(X.W[3])
               : "memory");
}

/// Where a line step waits and what it moves.
struct LineStep {
  Protocol P;
  /// The step's bytes and the first element of its chunk it covers.
  std::uint64_t Bytes, FirstElem;
  /// The FIFO slots (or null) and the flags of the two connections.
  const lines::Unit *In;
  lines::Unit *Out;
  std::uint64_t InFlag, OutFlag;
  /// The operation's operands at the step's first element (or null).
  const void *Src;
  void *Dst;
  /// Whether the received data is reduced with Src.
  bool Reduce;
};

/// Polls unit \p U until it is current; false on a timeout (recorded) or
/// when another block failed. LL: each thread on its own line.
__device__ inline bool pollLl(const DevView &V, const LineStep &S,
                              std::uint64_t U, lines::Unit &X,
                              const WaitSite &Site) {
  const unsigned long long Start = globalTimer();
  X = loadUnit(S.In + U);
  while (!lines::unitCurrent(S.P, U, X, S.InFlag)) {
    if (*(volatile int *)V.Error != NoError)
      return false;
    if (globalTimer() - Start > V.TimeoutNs) {
      recordTimeout(V, Site, WaitLine);
      return false;
    }
    X = loadUnit(S.In + U);
  }
  return true;
}

/// LL128: the threads of a warp load their units together and reload until
/// every line's flag unit in the warp is current. Every thread of the warp
/// calls it (\p Valid false for a unit past the step's end).
__device__ inline bool pollLl128(const DevView &V, const LineStep &S,
                                 std::uint64_t U, bool Valid, lines::Unit &X,
                                 const WaitSite &Site) {
  const unsigned long long Start = globalTimer();
  bool Failed = false;
  for (;;) {
    if (Valid)
      X = loadUnit(S.In + U);
    bool Stale = Valid && !Failed && !lines::unitCurrent(S.P, U, X, S.InFlag);
    if (Stale) {
      if (*(volatile int *)V.Error != NoError) {
        Failed = true;
      } else if (globalTimer() - Start > V.TimeoutNs) {
        recordTimeout(V, Site, WaitLine);
        Failed = true;
      }
    }
    if (!__any_sync(0xffffffffu, Stale && !Failed))
      break;
  }
  return !__any_sync(0xffffffffu, Failed);
}

/// Moves unit \p U of step \p S: what the thread received (or read from
/// Src), reduced where the operation says, into Dst and the sent unit.
template <typename T>
__device__ inline void moveUnit(int Op, const LineStep &S, std::uint64_t U,
                                const lines::Unit &X) {
  const unsigned Bytes = lines::unitDataBytes(S.P, U, S.Bytes);
  alignas(16) unsigned char In[16] = {}, Out[16] = {};
  if (S.In)
    lines::unpackUnit(S.P, U, X, In);
  const std::uint64_t E0 = lines::unitDataOffset(S.P, U) / sizeof(T);
  const T *Src = static_cast<const T *>(S.Src);
  T *Dst = static_cast<T *>(S.Dst);
  for (unsigned K = 0; K * sizeof(T) < Bytes; ++K) {
    T Val;
    if (S.In)
      memcpy(&Val, In + K * sizeof(T), sizeof(T));
    else
      Val = loadCg(Src + E0 + K);
    if (S.Reduce)
      Val = combine<T>(Op, Val, loadCg(Src + E0 + K));
    if (Dst)
      Dst[E0 + K] = Val;
    memcpy(Out + K * sizeof(T), &Val, sizeof(T));
  }
  if (S.Out)
    storeUnit(S.Out + U, lines::packUnit(S.P, U, Out, S.OutFlag));
}

/// All threads: one step's units, received, moved and sent. False when a
/// wait failed (the error is recorded).
template <typename T>
__device__ inline bool moveLineStep(const DevView &V, const LineStep &S,
                                    const WaitSite &Site) {
  const std::uint64_t Units = lines::unitsFor(S.P, S.Bytes);
  bool Ok = true;
  // Every thread runs the same number of rounds, so warps vote whole.
  for (std::uint64_t Base = 0; Base < Units; Base += blockDim.x) {
    const std::uint64_t U = Base + threadIdx.x;
    const bool Valid = U < Units;
    lines::Unit X = {};
    if (S.In) {
      if (S.P == Protocol::LL128)
        Ok = pollLl128(V, S, U, Valid, X, Site) && Ok;
      else if (Valid)
        Ok = pollLl(V, S, U, X, Site) && Ok;
    }
    if (!Ok)
      return false;
    if (Valid)
      moveUnit<T>(V.Op, S, U, X);
  }
  return Ok;
}

} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_LINEKERNEL_CUH
