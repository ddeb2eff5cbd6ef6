//===- tests/unit/runtime/DeviceLinesTest.cpp - LL and LL128 on the host --===//
//
// The CUDA interpreter's LL and LL128 contract, executed on the host with
// the kernel's own unit functions (format/LineLanes.h): blocks take turns,
// each running its next connection step when the kernel would (its
// dependencies published before the first step, room in the send
// connection, and every line of the step current in the receiver's FIFO,
// judged by the flags alone: no posted count exists). The data goes through
// the FIFO as the packed units, so a wrong layout, flag or step cut breaks
// the result. Every fixture must compute its collective, checked by the CPU
// executor's check, with one step per chunk and with chunks cut into
// several steps; and a receiver whose line was never written must wait
// (deadlock here), never read stale data.
//
//===----------------------------------------------------------------------===//
#include "exec/HostBuffers.h"
#include "exec/device/PlanPrepared.h"
#include "format/LineLanes.h"
#include "tests/unit/runtime/RuntimeTestUtil.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {

/// Where a block stands.
struct BlockState {
  std::uint32_t Op = 0;
  std::uint64_t It = 0, Step = 0, Sent = 0, Received = 0;
};

/// The host run of a plan under LL or LL128 (float32, sum).
class LineEmulator {
public:
  LineEmulator(const DevicePlan &D, std::vector<CpuRankMemory> &Mem)
      : D(D), Mem(Mem), Consumed(D.Conns.size()), Flags(D.Blocks.size()),
        St(D.Blocks.size()) {
    for (const DevRank &R : D.Ranks)
      Fifo.emplace_back(R.FifoBytes / lines::UnitBytes);
  }

  /// Leaves unit \p U of the first step sent on connection \p Conn unwritten.
  void dropUnit(int Conn, std::uint64_t U) { Dropped = {Conn, U}; }

  /// Runs every block to its end; false on a deadlock.
  bool run() {
    for (bool Moved = true; Moved;) {
      Moved = false;
      for (std::size_t Bi = 0; Bi < D.Blocks.size(); ++Bi)
        while (turn(Bi))
          Moved = true;
    }
    for (std::size_t Bi = 0; Bi < D.Blocks.size(); ++Bi)
      if (St[Bi].It != D.Iterations && D.Blocks[Bi].NumOps != 0)
        return false;
    return true;
  }

private:
  const DevicePlan &D;
  std::vector<CpuRankMemory> &Mem;
  std::vector<std::vector<lines::Unit>> Fifo;
  std::vector<std::uint64_t> Consumed, Flags;
  std::vector<BlockState> St;
  std::pair<int, std::uint64_t> Dropped = {-1, 0};

  float *buffer(const DevBlock &B, DevBuffer Buf) {
    CpuRankMemory &M = Mem[std::size_t(B.Rank)];
    const CpuView &V = M.Views[int(Buf)];
    return reinterpret_cast<float *>(M.Storages[V.Storage].data()) + V.Base;
  }

  lines::Unit *slot(int Conn, std::uint64_t Count) {
    const DevConn &C = D.Conns[std::size_t(Conn)];
    return Fifo[std::size_t(C.Dst)].data() +
           (C.FifoOffset + (Count % D.FifoSlots) * D.SlotBytes) /
               lines::UnitBytes;
  }

  /// One step (or one local operation) of block \p Bi, if it can run.
  bool turn(std::size_t Bi) {
    const DevBlock &B = D.Blocks[Bi];
    BlockState &S = St[Bi];
    if (S.It == D.Iterations || B.NumOps == 0)
      return false;
    const DevOp &Op = D.Ops[B.FirstOp + S.Op];
    if (S.Step == 0)
      for (std::uint32_t K = 0; K < Op.NumDeps; ++K) {
        const DevDep &Dep = D.Deps[Op.FirstDep + K];
        if (Flags[Dep.Block] < S.It * FlagScale + std::uint64_t(Dep.Step) + 1)
          return false;
      }
    const std::uint64_t First = S.It * D.SliceElems;
    const std::uint64_t N = std::min(D.SliceElems, D.ChunkElems - First);
    const bool Recv = receives(Op.Type), Send = sends(Op.Type);
    std::uint64_t Steps = 1;
    if (Recv || Send) {
      Steps = std::uint64_t(Op.Cnt) * lines::stepsPerChunk(D.Proto, N * 4);
      if (!moveStep(B, S, Op, First, N))
        return false;
    } else {
      localOp(B, Op, First, N);
    }
    if (++S.Step == Steps) {
      S.Step = 0;
      if (Op.HasDep)
        Flags[Bi] = S.It * FlagScale + std::uint64_t(Op.PublishedStep) + 1;
      if (++S.Op == B.NumOps) {
        S.Op = 0;
        ++S.It;
      }
    }
    return true;
  }

  /// Copy and Reduce: no FIFO.
  void localOp(const DevBlock &B, const DevOp &Op, std::uint64_t First,
               std::uint64_t N) {
    for (std::int32_t C = 0; C < Op.Cnt; ++C) {
      float *Src = buffer(B, Op.SrcBuf) +
                   (std::uint64_t(Op.SrcOff) + C) * D.ChunkElems + First;
      float *Dst = buffer(B, Op.DstBuf) +
                   (std::uint64_t(Op.DstOff) + C) * D.ChunkElems + First;
      for (std::uint64_t E = 0; E < N; ++E)
        Dst[E] = Op.Type == DevOpType::Reduce ? Dst[E] + Src[E] : Src[E];
    }
  }

  /// Step S.Step of a message, unit by unit as the kernel's threads.
  bool moveStep(const DevBlock &B, BlockState &S, const DevOp &Op,
                std::uint64_t First, std::uint64_t N) {
    const Protocol P = D.Proto;
    const bool Recv = receives(Op.Type), Send = sends(Op.Type);
    if (Send && S.Sent >= D.FifoSlots &&
        Consumed[std::size_t(B.SendConn)] < S.Sent + 1 - D.FifoSlots)
      return false;
    const lines::StepPart Part = lines::stepPart(P, N * 4, S.Step);
    const std::uint64_t Units = lines::unitsFor(P, Part.Bytes);
    const lines::Unit *In = Recv ? slot(B.RecvConn, S.Received) : nullptr;
    for (std::uint64_t U = 0; In && U < Units; ++U)
      if (lines::holdsFlag(P, U) &&
          !lines::unitCurrent(P, U, In[U], S.Received + 1))
        return false;
    lines::Unit *Out = Send ? slot(B.SendConn, S.Sent) : nullptr;
    auto At = [&](DevBuffer Buf, std::int32_t Off) {
      return buffer(B, Buf) + (std::uint64_t(Off) + Part.Chunk) * D.ChunkElems +
             First + Part.Offset / 4;
    };
    float *Src =
        !Recv || reducesMessage(Op.Type) ? At(Op.SrcBuf, Op.SrcOff) : nullptr;
    float *Dst =
        writesDestination(Op.Type) ? At(Op.DstBuf, Op.DstOff) : nullptr;
    const bool Drop = Send && B.SendConn == Dropped.first && S.Sent == 0;
    for (std::uint64_t U = 0; U < Units; ++U) {
      unsigned char Data[16] = {}, Result[16] = {};
      if (In)
        lines::unpackUnit(P, U, In[U], Data);
      const std::uint64_t E0 = lines::unitDataOffset(P, U) / 4;
      for (unsigned K = 0; K * 4 < lines::unitDataBytes(P, U, Part.Bytes);
           ++K) {
        float X;
        if (In)
          std::memcpy(&X, Data + 4 * K, 4);
        else
          X = Src[E0 + K];
        if (reducesMessage(Op.Type))
          X += Src[E0 + K];
        if (Dst)
          Dst[E0 + K] = X;
        std::memcpy(Result + 4 * K, &X, 4);
      }
      if (Out && !(Drop && U == Dropped.second))
        Out[U] = lines::packUnit(P, U, Result, S.Sent + 1);
    }
    if (Recv)
      Consumed[std::size_t(B.RecvConn)] = ++S.Received;
    if (Send)
      ++S.Sent;
    return true;
  }
};

/// Plans fixture \p Name under \p P for the call, runs it on the host and
/// returns the wrong elements (-1 on a deadlock). With \p DropConn, the
/// first line sent on that connection goes without its flag unit.
long runFixture(const char *Name, Protocol P, std::uint64_t Elems,
                std::size_t Slice, int DropConn = -1) {
  Algo A = loadFixture(Name);
  A.Proto = P;
  Report R;
  IssueSink Sink(R, Name);
  std::optional<PreparedDeviceRun> Run =
      prepareDeviceRun(A, deviceCall(A, Elems, Slice), Sink, R, Name);
  REQUIRE_MESSAGE(Run, R.str());
  const DevicePlan &D = Run->Plan;
  CHECK(D.Proto == P);
  // A slot holds the lines of one step, never more than a slot's data.
  CHECK(D.SlotBytes ==
        lines::unitsFor(
            P, std::min<std::uint64_t>(D.SliceElems * 4, slotDataBytes(P))) *
            lines::UnitBytes);
  LineEmulator E(D, Run->Run.Mem);
  if (DropConn >= 0)
    E.dropUnit(DropConn, P == Protocol::LL ? 0 : lines::Ll128Units - 1);
  if (!E.run())
    return -1;
  RunResult Res;
  Run->Run.S.Cfg.Tracking = false;
  verifyOutputs(A, Run->Run.S, Run->Run.Mem, Sink, Res);
  CHECK(Res.ElementsChecked > 0);
  return long(Res.WrongElements);
}

} // namespace

TEST_CASE("device lines: every fixture computes under LL and LL128") {
  for (Protocol P : {Protocol::LL, Protocol::LL128}) {
    CAPTURE(nameOf(P));
    for (const char *Name : DeviceFixtures) {
      CAPTURE(Name);
      // The protocol's slice; a few lines per slice; chunks several slots.
      const std::size_t Big = 2 * slotDataBytes(P) + 4000;
      for (auto [Elems, Slice] : {std::pair<std::uint64_t, std::size_t>(64, 0),
                                  {96, 40},
                                  {1000, 64},
                                  {Big / 4, Big}}) {
        CAPTURE(Elems);
        CAPTURE(Slice);
        CHECK(runFixture(Name, P, Elems, Slice) == 0);
      }
    }
  }
}

TEST_CASE("device lines: an unwritten line is waited for, never read") {
  for (Protocol P : {Protocol::LL, Protocol::LL128}) {
    CAPTURE(nameOf(P));
    CHECK(runFixture("allgather_ring4.xml", P, 64, 0) == 0);
    // LL128 trusts a line by its flag unit, so that is the one dropped.
    CHECK(runFixture("allgather_ring4.xml", P, 64, 0, /*DropConn=*/0) == -1);
  }
}
