//===- exec/device/DevicePlan.h - A plan flattened for GPUs -----*- C++ -*-===//
//
// The host side of the CUDA interpreter: one call of a plan turned into
// flat arrays of plain structs that can be copied to device memory as they
// are (blocks, operations, dependencies, connections), with every offset the
// kernel will compute proven to stay inside the buffers it was given, and
// the FIFO memory of every connection laid out. Built and tested on any
// machine; the kernel only reads it.
//
// The kernel's contract, which the plan guarantees:
//   - block b (one CUDA block) runs Ops[FirstOp .. FirstOp + NumOps) of
//     Blocks[b], once per loop iteration 0 .. Iterations-1;
//   - an operation first waits until, for each of its dependencies d,
//     the published flag of block d.Block is at least
//     iteration * FlagScale + d.Step, and after it publishes
//     iteration * FlagScale + PublishedStep when HasDep is set;
//   - chunk c, iteration t of a buffer covers elements
//     [c * ChunkElems + t * SliceElems, + sliceElems(t)), where
//     sliceElems(t) = min(SliceElems, ChunkElems - t * SliceElems); an
//     operation of Cnt chunks moves that slice of each of its Cnt chunks;
//   - every (SrcOff, DstOff) + Cnt is within its rank's buffer of that kind;
//   - a message travels through connection SendConn of the sending block
//     and RecvConn of the receiving one: FifoSlots slots of SlotBytes each,
//     at FifoOffset in the receiver's FIFO memory;
//   - under Simple a message is one step: its Cnt pieces of SliceElems
//     elements fill one slot, and the sender's posted count says it is
//     there; under LL and LL128 it is Cnt x stepsPerChunk() steps of at
//     most one slot's data (format/LineLanes.h), each in its own slot as
//     flagged lines the receiver polls, and posted counts are not used.
//   In every protocol the receiver's consumed count frees slots.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_DEVICEPLAN_H
#define TACCLC_EXEC_DEVICE_DEVICEPLAN_H

#include "format/Call.h"
#include "format/Collective.h"
#include "format/Diagnostic.h"
#include "format/HostDevice.h"
#include "format/Plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tacclrt {

/// What an operation does (the kernel's switch); never a nop.
enum class DevOpType : std::uint8_t {
  Send,
  Recv,
  RecvCopySend,
  RecvReduceSend,
  RecvReduceCopy,
  RecvReduceCopySend,
  Copy,
  Reduce
};

/// Whether an operation of type \p T receives a message.
TACCLRT_HD constexpr bool receives(DevOpType T) {
  return T == DevOpType::Recv || T == DevOpType::RecvCopySend ||
         T == DevOpType::RecvReduceSend || T == DevOpType::RecvReduceCopy ||
         T == DevOpType::RecvReduceCopySend;
}

/// Whether an operation of type \p T sends a message.
TACCLRT_HD constexpr bool sends(DevOpType T) {
  return T == DevOpType::Send || T == DevOpType::RecvCopySend ||
         T == DevOpType::RecvReduceSend || T == DevOpType::RecvReduceCopySend;
}

/// Whether an operation of type \p T reduces the message it receives with
/// its source.
TACCLRT_HD constexpr bool reducesMessage(DevOpType T) {
  return T == DevOpType::RecvReduceSend || T == DevOpType::RecvReduceCopy ||
         T == DevOpType::RecvReduceCopySend;
}

/// Whether an operation of type \p T writes its destination buffer.
TACCLRT_HD constexpr bool writesDestination(DevOpType T) {
  return T != DevOpType::Send && T != DevOpType::RecvReduceSend;
}

/// Which buffer of its rank an operand is.
enum class DevBuffer : std::uint8_t { Input, Output, Scratch };

/// One operation (plain data).
struct DevOp {
  DevOpType Type = DevOpType::Copy;
  DevBuffer SrcBuf = DevBuffer::Input;
  DevBuffer DstBuf = DevBuffer::Output;
  /// Publish the block's flag after this operation.
  std::uint8_t HasDep = 0;
  /// First chunk read and written, and how many consecutive chunks.
  std::int32_t SrcOff = 0, DstOff = 0, Cnt = 1;
  /// The step number the flag publishes.
  std::int32_t PublishedStep = 0;
  /// Its dependencies: Deps[FirstDep .. FirstDep + NumDeps).
  std::uint32_t FirstDep = 0, NumDeps = 0;
};

/// Wait for block Block's flag to reach (iteration, Step).
struct DevDep {
  std::uint32_t Block = 0;
  std::int32_t Step = 0;
};

/// One threadblock of the XML, one CUDA block.
struct DevBlock {
  std::int32_t Rank = 0, Tb = 0;
  /// Connections it sends on and receives from (indices into Conns), or -1.
  std::int32_t SendConn = -1, RecvConn = -1;
  std::uint32_t FirstOp = 0, NumOps = 0;
};

/// One NCCL connection: a FIFO from Src to Dst on channel Chan.
struct DevConn {
  std::int32_t Src = 0, Dst = 0, Chan = 0;
  /// Byte offset of its FifoSlots slots in the receiver's FIFO memory.
  std::uint64_t FifoOffset = 0;
};

/// One rank's buffers, blocks and FIFO memory.
struct DevRank {
  /// Elements of `i`, `o` and `s` (the call's, per the collective).
  std::uint64_t InputElems = 0, OutputElems = 0, ScratchElems = 0;
  /// In place: how the input and output share memory, and the element
  /// offset of the inner buffer in the outer one.
  Aliasing Alias = Aliasing::None;
  std::uint64_t AliasOffset = 0;
  /// Its blocks: Blocks[FirstBlock .. FirstBlock + NumBlocks).
  std::uint32_t FirstBlock = 0, NumBlocks = 0;
  /// Bytes of FIFO memory the connections into this rank need.
  std::uint64_t FifoBytes = 0;
};

/// One call of a plan, flattened.
struct DevicePlan {
  CollKind Coll = CollKind::AllReduce;
  DataType Type = DataType::Float32;
  ReduceOp Op = ReduceOp::Sum;
  std::uint32_t TypeSize = 4;
  /// How messages move through the FIFO (format/LineFormat.h).
  Protocol Proto = Protocol::Simple;
  /// Elements per chunk, per slice, and loop iterations.
  std::uint64_t ChunkElems = 0, SliceElems = 0, Iterations = 0;
  /// Slots per connection and bytes per slot (a multiple of 16; under LL
  /// and LL128 the bytes of the lines of the largest step).
  std::uint32_t FifoSlots = 8;
  std::uint64_t SlotBytes = 0;
  std::vector<DevRank> Ranks;
  std::vector<DevBlock> Blocks;
  std::vector<DevOp> Ops;
  std::vector<DevDep> Deps;
  std::vector<DevConn> Conns;
};

/// Flattens call \p O of plan \p A (sizes, type, in-place, slice and FIFO
/// depth as for runOnCpu) for the device. Every problem that would make a
/// kernel read or write outside its buffers, wait on a block that does not
/// exist or overflow a FIFO slot is an error in \p Out (labelled
/// \p FileName), and then there is no plan.
std::optional<DevicePlan> planForDevice(const Algo &A, const RunOptions &O,
                                        Report &Out,
                                        std::string_view FileName = {});

/// A few lines describing \p P (sizes, counts, FIFO memory), for logs.
std::string describe(const DevicePlan &P);

} // namespace tacclrt

#endif // TACCLC_EXEC_DEVICE_DEVICEPLAN_H
