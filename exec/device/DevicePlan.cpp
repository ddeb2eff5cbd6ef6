//===- exec/device/DevicePlan.cpp - A plan flattened for a GPU kernel -----===//
//
// planForDevice():
//   1. the executable Program (buildProgram: structure checked, nops folded
//      into the dependencies of the next operation) and the call
//      (prepareCall: type, sizes, layout, slices, iterations);
//   2. buffers per rank from the collective's layout; the plan's chunk
//      counts times the chunk size must fit them (scratch is sized by the
//      plan);
//   3. blocks rank by rank in tb order; operations in order, each operand
//      range [off, off + cnt) checked against its buffer's chunk count, and
//      dependencies turned into global block indices;
//   4. connections: one per (sender, receiver, channel) that some block
//      sends on or receives from, in sorted order; its FifoSlots slots sit
//      in the receiver's FIFO memory, one after another;
//   5. the slot size: under Simple the largest message (cnt x the first
//      slice, which is the largest) in bytes, rounded up to 16 for vector
//      accesses; under LL and LL128 the lines of the largest step (one
//      slice, or one slot's data when the slice is larger).
//
//===----------------------------------------------------------------------===//
#include "exec/device/DevicePlan.h"

#include "exec/CallSetup.h"
#include "exec/HostBuffers.h"
#include "exec/device/PlanPrepared.h"
#include "format/IssueSink.h"
#include "format/LineLanes.h"
#include "format/Program.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace tacclrt {

namespace {

DevOpType devType(StepType T) {
  switch (T) {
  case StepType::Send:
    return DevOpType::Send;
  case StepType::Recv:
    return DevOpType::Recv;
  case StepType::RecvCopySend:
    return DevOpType::RecvCopySend;
  case StepType::RecvReduceSend:
    return DevOpType::RecvReduceSend;
  case StepType::RecvReduceCopy:
    return DevOpType::RecvReduceCopy;
  case StepType::RecvReduceCopySend:
    return DevOpType::RecvReduceCopySend;
  case StepType::Reduce:
    return DevOpType::Reduce;
  default:
    return DevOpType::Copy;
  }
}

DevBuffer devBuffer(BufferKind B) {
  switch (B) {
  case BufferKind::Input:
    return DevBuffer::Input;
  case BufferKind::Output:
    return DevBuffer::Output;
  default:
    return DevBuffer::Scratch;
  }
}

/// (src, dst, chan) of a connection.
using ConnKey = std::tuple<int, int, int>;

/// Step 1b: the plan's element type, operation and sizes from the call.
DevicePlan startPlan(const Algo &A, const RunOptions &O, const CallSetup &S) {
  DevicePlan D;
  D.Coll = A.Coll;
  D.Type = O.Type;
  D.Op = O.Op;
  D.TypeSize = static_cast<std::uint32_t>(sizeOf(O.Type));
  D.Proto = A.Proto;
  D.ChunkElems = S.Cfg.SizePerChunk;
  D.SliceElems = std::min(S.Cfg.SliceElems, S.Cfg.SizePerChunk);
  D.Iterations = static_cast<std::uint64_t>(S.Cfg.Iterations);
  D.FifoSlots = std::max(1u, O.FifoSlots);
  return D;
}

/// Step 2: the buffers of each rank from the collective's layout; false
/// when the plan's chunks do not fit them (reported).
bool addBuffers(const Algo &A, const CollectiveLayout &L, DevicePlan &D,
                IssueSink &Sink) {
  bool Ok = true;
  for (const Gpu &G : A.Gpus) {
    DevRank R;
    R.InputElems = L.InputCount;
    R.OutputElems = L.OutputCount;
    R.ScratchElems = std::uint64_t(G.SChunks) * D.ChunkElems;
    R.Alias = L.Alias;
    R.AliasOffset = L.aliasOffset(static_cast<unsigned>(G.Id));
    for (auto [Name, Chunks, Elems] :
         {std::tuple("input", G.IChunks, R.InputElems),
          std::tuple("output", G.OChunks, R.OutputElems)})
      if (std::uint64_t(Chunks) * D.ChunkElems > Elems) {
        Sink.report<MsgId::DeviceChunksExceedBuffer>(
            Where(), G.Id, Chunks, Name, D.ChunkElems, Name, Elems);
        Ok = false;
      }
    D.Ranks.push_back(R);
  }
  return Ok;
}

/// Steps 3 and 4a: blocks, operations with their ranges checked,
/// dependencies as global block indices, and the key of every connection
/// used; \p MaxCnt grows to the largest message. False when a range or a
/// peer is wrong (reported).
bool addBlocks(const Algo &A, const Program *P, DevicePlan &D,
               std::map<ConnKey, int> &ConnOf, std::int32_t &MaxCnt,
               IssueSink &Sink) {
  bool Ok = true;
  for (std::size_t Rank = 0; Rank < P->Ranks.size(); ++Rank) {
    const Gpu &G = A.Gpus[Rank];
    DevRank &R = D.Ranks[Rank];
    R.FirstBlock = static_cast<std::uint32_t>(D.Blocks.size());
    R.NumBlocks = static_cast<std::uint32_t>(P->Ranks[Rank].size());
    auto ChunksOf = [&](BufferKind B) {
      return B == BufferKind::Input    ? G.IChunks
             : B == BufferKind::Output ? G.OChunks
                                       : G.SChunks;
    };
    for (const TbProgram &T : P->Ranks[Rank]) {
      DevBlock B;
      B.Rank = T.Rank;
      B.Tb = T.Id;
      B.FirstOp = static_cast<std::uint32_t>(D.Ops.size());
      B.NumOps = static_cast<std::uint32_t>(T.Ops.size());
      if (T.Send >= 0)
        ConnOf.emplace(ConnKey{T.Rank, T.Send, T.Chan}, 0);
      if (T.Recv >= 0)
        ConnOf.emplace(ConnKey{T.Recv, T.Rank, T.Chan}, 0);
      for (const Operation &Op : T.Ops) {
        const Step &St = *Op.S;
        auto InRange = [&](BufferKind Buf, int Off, const char *What) {
          int Chunks = ChunksOf(Buf);
          if (Off >= 0 && St.Cnt >= 1 && Off <= Chunks - St.Cnt)
            return true;
          Sink.report<MsgId::DeviceChunksOutside>(
              stepWhere(A, T.Rank, T.Id, Op.Pos), What, Off, Off + St.Cnt - 1,
              nameOf(Buf), Chunks);
          return false;
        };
        if (readsSrc(St.Type) && !InRange(St.SrcBuf, St.SrcOff, "source"))
          Ok = false;
        if (writesDst(St.Type) && !InRange(St.DstBuf, St.DstOff, "destination"))
          Ok = false;
        if ((sendsMessage(St.Type) && T.Send < 0) ||
            (receivesMessage(St.Type) && T.Recv < 0)) {
          Sink.report<MsgId::DeviceMissingPeer>(
              stepWhere(A, T.Rank, T.Id, Op.Pos));
          Ok = false;
        }
        DevOp DO;
        DO.Type = devType(St.Type);
        DO.SrcBuf = devBuffer(St.SrcBuf);
        DO.DstBuf = devBuffer(St.DstBuf);
        DO.HasDep = St.HasDep ? 1 : 0;
        DO.SrcOff = St.SrcOff;
        DO.DstOff = St.DstOff;
        DO.Cnt = St.Cnt;
        DO.PublishedStep = Op.PublishedStep;
        DO.FirstDep = static_cast<std::uint32_t>(D.Deps.size());
        DO.NumDeps = static_cast<std::uint32_t>(Op.Deps.size());
        for (const Dependency &Dep : Op.Deps)
          D.Deps.push_back(
              {R.FirstBlock + static_cast<std::uint32_t>(Dep.Tb), Dep.Step});
        if (sendsMessage(St.Type) || receivesMessage(St.Type))
          MaxCnt = std::max(MaxCnt, St.Cnt);
        D.Ops.push_back(DO);
      }
      D.Blocks.push_back(B);
    }
  }
  return Ok;
}

/// Steps 5 and 4b: the slot size, then each connection's index and FIFO
/// memory in its receiver, and each block's connections.
void addConnections(const Program *P, DevicePlan &D,
                    std::map<ConnKey, int> &ConnOf, std::int32_t MaxCnt) {
  const std::uint64_t SliceBytes = D.SliceElems * D.TypeSize;
  if (usesLines(D.Proto))
    D.SlotBytes =
        lines::unitsFor(D.Proto, std::min(SliceBytes, slotDataBytes(D.Proto))) *
        lines::UnitBytes;
  else
    D.SlotBytes = (std::uint64_t(MaxCnt) * SliceBytes + 15) / 16 * 16;
  for (auto &[Key, Index] : ConnOf) {
    auto [Src, Dst, Chan] = Key;
    Index = static_cast<int>(D.Conns.size());
    DevRank &R = D.Ranks[static_cast<std::size_t>(Dst)];
    D.Conns.push_back({Src, Dst, Chan, R.FifoBytes});
    R.FifoBytes += std::uint64_t(D.FifoSlots) * D.SlotBytes;
  }
  for (DevBlock &B : D.Blocks) {
    const TbProgram &T = P->Ranks[static_cast<std::size_t>(B.Rank)]
                                 [static_cast<std::size_t>(B.Tb)];
    if (T.Send >= 0)
      B.SendConn = ConnOf.at({T.Rank, T.Send, T.Chan});
    if (T.Recv >= 0)
      B.RecvConn = ConnOf.at({T.Recv, T.Rank, T.Chan});
  }
}

} // namespace

std::optional<DevicePlan> planForDevice(const Algo &A, const RunOptions &O,
                                        Report &Out,
                                        std::string_view FileName) {
  // 1. Program and call.
  IssueSink Sink(Out, FileName);
  std::optional<Program> P = buildProgram(A, Sink);
  CallSetup S;
  if (!P || !prepareCall(A, O, Sink, Out, FileName, S))
    return std::nullopt;
  return planPrepared(A, O, *P, S, Sink);
}

std::optional<PreparedDeviceRun> prepareDeviceRun(const Algo &A,
                                                  const RunOptions &O,
                                                  IssueSink &Sink, Report &Out,
                                                  std::string_view FileName) {
  PreparedRun Run;
  if (!prepareRun(A, O, Sink, Out, FileName, Run))
    return std::nullopt;
  std::optional<DevicePlan> D = planPrepared(A, O, *Run.P, Run.S, Sink);
  if (!D)
    return std::nullopt;
  return PreparedDeviceRun{std::move(Run), std::move(*D)};
}

std::optional<DevicePlan> planPrepared(const Algo &A, const RunOptions &O,
                                       const Program &Prog, const CallSetup &S,
                                       IssueSink &Sink) {
  const Program *P = &Prog;
  // 1. (The Program and the call are given.) Type, operation, sizes.
  DevicePlan D = startPlan(A, O, S);

  // 2. Buffers.
  if (!addBuffers(A, S.L, D, Sink))
    return std::nullopt;

  // 3. Blocks, operations, dependencies; 4. connection keys.
  std::map<ConnKey, int> ConnOf;
  std::int32_t MaxCnt = 1;
  if (!addBlocks(A, P, D, ConnOf, MaxCnt, Sink))
    return std::nullopt;

  // 5. Slot size; 4. connections and their FIFO memory, by receiver.
  addConnections(P, D, ConnOf, MaxCnt);
  return D;
}

std::string describe(const DevicePlan &P) {
  std::uint64_t Fifo = 0;
  for (const DevRank &R : P.Ranks)
    Fifo += R.FifoBytes;
  return fmt::format(
      "{} on {} ranks, {} {}, {}: {} blocks, {} operations, {} dependencies, "
      "{} "
      "connections; chunks of {} elements in {} iteration(s) of up to {}; "
      "FIFO {} x {} B per connection, {} B in all",
      nameOf(P.Coll), P.Ranks.size(), nameOf(P.Type), nameOf(P.Op),
      nameOf(P.Proto), P.Blocks.size(), P.Ops.size(), P.Deps.size(),
      P.Conns.size(), P.ChunkElems, P.Iterations, P.SliceElems, P.FifoSlots,
      P.SlotBytes, Fifo);
}

} // namespace tacclrt
