//===- tests/unit/runtime/DevicePlanTest.cpp - Plans for the GPU kernel ---===//
//
// planForDevice() on the hand-written fixtures: the flat arrays mirror the
// plan (blocks, operations without nops, dependencies inside the rank),
// connections are unique and their FIFO slots never overlap, every element
// range the kernel will compute lies inside its buffer (checked by brute
// force over operations, iterations and chunks), and plans that would make
// a kernel read or write outside its buffers are refused. Finally the
// kernel's contract itself runs on the host (blocks taking turns) and must
// compute every fixture.
//
//===----------------------------------------------------------------------===//
#include "exec/device/DevicePlan.h"
#include "exec/HostBuffers.h"
#include "tests/unit/runtime/RuntimeTestUtil.h"

#include <doctest/doctest.h>

#include <set>
#include <tuple>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {

std::uint64_t elemsOf(const DevRank &R, DevBuffer B) {
  return B == DevBuffer::Input    ? R.InputElems
         : B == DevBuffer::Output ? R.OutputElems
                                  : R.ScratchElems;
}

/// Checks every invariant the kernel relies on.
void checkPlan(const Algo &A, const DevicePlan &D) {
  std::size_t Tbs = 0, Ops = 0;
  for (const Gpu &G : A.Gpus)
    for (const Tb &T : G.Tbs) {
      ++Tbs;
      for (const Step &S : T.Steps)
        Ops += S.Type != StepType::Nop;
    }
  REQUIRE(D.Blocks.size() == Tbs);
  REQUIRE(D.Ops.size() == Ops);
  REQUIRE(D.Ranks.size() == A.Gpus.size());
  CHECK(D.SlotBytes % 16 == 0);
  // Connections: unique, and slots of one receiver never overlap.
  std::set<std::tuple<int, int, int>> Keys;
  std::vector<std::uint64_t> Used(D.Ranks.size(), 0);
  for (const DevConn &C : D.Conns) {
    CHECK(Keys.insert({C.Src, C.Dst, C.Chan}).second);
    CHECK(C.FifoOffset == Used[std::size_t(C.Dst)]);
    Used[std::size_t(C.Dst)] += std::uint64_t(D.FifoSlots) * D.SlotBytes;
  }
  for (std::size_t R = 0; R < D.Ranks.size(); ++R)
    CHECK(D.Ranks[R].FifoBytes == Used[R]);
  for (std::size_t B = 0; B < D.Blocks.size(); ++B) {
    const DevBlock &Blk = D.Blocks[B];
    const DevRank &R = D.Ranks[std::size_t(Blk.Rank)];
    const Tb &T = A.Gpus[std::size_t(Blk.Rank)].Tbs[std::size_t(Blk.Tb)];
    CHECK(B >= R.FirstBlock);
    CHECK(B < R.FirstBlock + R.NumBlocks);
    if (T.Send >= 0) {
      REQUIRE(Blk.SendConn >= 0);
      const DevConn &C = D.Conns[std::size_t(Blk.SendConn)];
      CHECK(std::tie(C.Src, C.Dst, C.Chan) ==
            std::tie(Blk.Rank, T.Send, T.Chan));
    } else {
      CHECK(Blk.SendConn == -1);
    }
    if (T.Recv >= 0) {
      REQUIRE(Blk.RecvConn >= 0);
      const DevConn &C = D.Conns[std::size_t(Blk.RecvConn)];
      CHECK(std::tie(C.Src, C.Dst, C.Chan) ==
            std::tie(T.Recv, Blk.Rank, T.Chan));
    }
    for (std::uint32_t I = Blk.FirstOp; I < Blk.FirstOp + Blk.NumOps; ++I) {
      const DevOp &Op = D.Ops[I];
      // Dependencies wait on blocks of the same rank.
      for (std::uint32_t K = Op.FirstDep; K < Op.FirstDep + Op.NumDeps; ++K) {
        REQUIRE(K < D.Deps.size());
        CHECK(D.Deps[K].Block >= R.FirstBlock);
        CHECK(D.Deps[K].Block < R.FirstBlock + R.NumBlocks);
      }
      // Every element of every slice of every chunk stays in its buffer,
      // and a message fits a slot.
      CHECK(std::uint64_t(Op.Cnt) * D.SliceElems * D.TypeSize <= D.SlotBytes);
      for (std::uint64_t It = 0; It < D.Iterations; ++It) {
        std::uint64_t First = It * D.SliceElems;
        std::uint64_t N = std::min(D.SliceElems, D.ChunkElems - First);
        for (auto [Buf, Off] :
             {std::pair(Op.SrcBuf, Op.SrcOff), std::pair(Op.DstBuf, Op.DstOff)})
          if (Off >= 0) {
            std::uint64_t Last =
                std::uint64_t(Off + Op.Cnt - 1) * D.ChunkElems + First + N;
            CHECK(Last <= elemsOf(R, Buf));
          }
      }
    }
  }
}

} // namespace

TEST_CASE("device plan: every fixture, one slice and many") {
  for (const char *Name : DeviceFixtures) {
    CAPTURE(Name);
    Algo A = loadFixture(Name);
    REQUIRE(!A.Gpus.empty());
    for (auto [Elems, Slice] :
         {std::pair<std::uint64_t, std::size_t>(64, 0), {96, 40}, {1000, 64}})
      for (DataType T : {DataType::Float32, DataType::Float16}) {
        CAPTURE(Elems);
        CAPTURE(Slice);
        Report R;
        auto D = planForDevice(A, deviceCall(A, Elems, Slice, T), R, Name);
        REQUIRE_MESSAGE(D, R.str());
        CHECK(D->ChunkElems == Elems);
        if (Slice)
          CHECK(D->Iterations == (Elems * sizeOf(T) + Slice - 1) / Slice);
        checkPlan(A, *D);
      }
  }
}

TEST_CASE("device plan: in place, the input lives inside the output") {
  Algo A = loadFixture("allgather_ring4_inplace.xml");
  Report R;
  RunOptions O = deviceCall(A, 64, 0);
  O.InPlace = true;
  auto D = planForDevice(A, O, R, "ip");
  REQUIRE_MESSAGE(D, R.str());
  for (std::size_t Rank = 0; Rank < D->Ranks.size(); ++Rank) {
    CHECK(D->Ranks[Rank].Alias == Aliasing::InputInOutput);
    CHECK(D->Ranks[Rank].AliasOffset == Rank * D->Ranks[Rank].InputElems);
  }
  CHECK(describe(*D).find("allgather on 4 ranks") == 0);
}

TEST_CASE("device plan: out-of-buffer operands and bad calls are refused") {
  Algo Base = loadFixture("allgather_ring4.xml");
  // A receive two chunks past the end of the output.
  Algo A = Base;
  Step &S = A.Gpus[1].Tbs[0].Steps.back();
  S.DstOff = A.Gpus[1].OChunks + 1;
  Report R;
  CHECK_FALSE(planForDevice(A, deviceCall(A, 64, 0), R, "a"));
  CHECK(R.hasErrors());
  // A copy whose last chunk is one past the end.
  Algo B = Base;
  for (Step &St : B.Gpus[0].Tbs[0].Steps)
    if (St.Type == StepType::Copy) {
      St.Cnt = B.Gpus[0].OChunks - St.DstOff + 1;
      break;
    }
  Report R2;
  CHECK_FALSE(planForDevice(B, deviceCall(B, 64, 0), R2, "b"));
  CHECK(R2.hasErrors());
  // A size that does not divide into the loop's chunks.
  Report R3;
  RunOptions Odd = deviceCall(Base, 64, 0);
  Odd.Bytes += 4;
  CHECK_FALSE(planForDevice(Base, Odd, R3, "c"));
  CHECK(R3.hasErrors());
}

// The kernel's contract, executed on the host: blocks take turns, each
// running its next operation when the kernel would (dependencies published,
// a message posted, room in the FIFO), with the same addressing of chunks,
// slices, slots and pieces. Every fixture must produce the collective's
// result, checked by the CPU executor's own check.
namespace {

/// Runs \p D on \p Mem (float32, sum); false on a deadlock.
bool emulate(const DevicePlan &D, std::vector<CpuRankMemory> &Mem) {
  std::vector<std::vector<float>> Fifo;
  for (const DevRank &R : D.Ranks)
    Fifo.emplace_back(R.FifoBytes / sizeof(float));
  std::vector<std::uint64_t> Posted(D.Conns.size()), Consumed(D.Conns.size()),
      Flags(D.Blocks.size());
  struct State {
    std::uint32_t Op = 0;
    std::uint64_t It = 0, Sent = 0, Received = 0;
  };
  std::vector<State> St(D.Blocks.size());
  auto Buffer = [&](const DevBlock &B, DevBuffer Buf) -> float * {
    CpuRankMemory &M = Mem[std::size_t(B.Rank)];
    const CpuView &V = M.Views[int(Buf)];
    return reinterpret_cast<float *>(M.Storages[V.Storage].data()) + V.Base;
  };
  for (bool Moved = true; Moved;) {
    Moved = false;
    for (std::size_t Bi = 0; Bi < D.Blocks.size(); ++Bi) {
      const DevBlock &B = D.Blocks[Bi];
      State &S = St[Bi];
      if (S.It == D.Iterations || B.NumOps == 0)
        continue;
      const DevOp &Op = D.Ops[B.FirstOp + S.Op];
      bool Recv = receives(Op.Type), Send = sends(Op.Type);
      bool Ready = true;
      for (std::uint32_t K = 0; K < Op.NumDeps; ++K) {
        const DevDep &Dep = D.Deps[Op.FirstDep + K];
        Ready = Ready && Flags[Dep.Block] >=
                             S.It * FlagScale + std::uint64_t(Dep.Step) + 1;
      }
      if (Recv)
        Ready = Ready && Posted[std::size_t(B.RecvConn)] >= S.Received + 1;
      if (Send && S.Sent >= D.FifoSlots)
        Ready = Ready &&
                Consumed[std::size_t(B.SendConn)] >= S.Sent + 1 - D.FifoSlots;
      if (!Ready)
        continue;
      std::uint64_t First = S.It * D.SliceElems;
      std::uint64_t N = std::min(D.SliceElems, D.ChunkElems - First);
      const float *In = nullptr;
      float *Out = nullptr;
      if (Recv) {
        const DevConn &C = D.Conns[std::size_t(B.RecvConn)];
        In = Fifo[std::size_t(C.Dst)].data() +
             (C.FifoOffset + (S.Received % D.FifoSlots) * D.SlotBytes) / 4;
      }
      if (Send) {
        const DevConn &C = D.Conns[std::size_t(B.SendConn)];
        Out = Fifo[std::size_t(C.Dst)].data() +
              (C.FifoOffset + (S.Sent % D.FifoSlots) * D.SlotBytes) / 4;
      }
      for (std::int32_t C = 0; C < Op.Cnt; ++C) {
        auto At = [&](DevBuffer Buf, std::int32_t Off) -> float * {
          return Off < 0 ? nullptr
                         : Buffer(B, Buf) +
                               (std::uint64_t(Off) + C) * D.ChunkElems + First;
        };
        float *Src = At(Op.SrcBuf, Op.SrcOff), *Dst = At(Op.DstBuf, Op.DstOff);
        const float *Msg = In ? In + C * D.SliceElems : nullptr;
        float *Fwd = Out ? Out + C * D.SliceElems : nullptr;
        for (std::uint64_t E = 0; E < N; ++E) {
          float X = 0;
          switch (Op.Type) {
          case DevOpType::Send:
          case DevOpType::Copy:
            X = Src[E];
            break;
          case DevOpType::Recv:
          case DevOpType::RecvCopySend:
            X = Msg[E];
            break;
          case DevOpType::Reduce:
            X = Dst[E] + Src[E];
            break;
          default:
            X = Msg[E] + Src[E];
          }
          if (Op.Type != DevOpType::Send &&
              Op.Type != DevOpType::RecvReduceSend)
            Dst[E] = X;
          if (Fwd)
            Fwd[E] = X;
        }
      }
      if (Recv)
        Consumed[std::size_t(B.RecvConn)] = ++S.Received;
      if (Send)
        Posted[std::size_t(B.SendConn)] = ++S.Sent;
      if (Op.HasDep)
        Flags[Bi] = S.It * FlagScale + std::uint64_t(Op.PublishedStep) + 1;
      if (++S.Op == B.NumOps) {
        S.Op = 0;
        ++S.It;
      }
      Moved = true;
    }
  }
  for (std::size_t Bi = 0; Bi < D.Blocks.size(); ++Bi)
    if (St[Bi].It != D.Iterations && D.Blocks[Bi].NumOps != 0)
      return false;
  return true;
}

} // namespace

TEST_CASE("device plan: the kernel's contract computes every fixture") {
  for (const char *Name : DeviceFixtures) {
    CAPTURE(Name);
    Algo A = loadFixture(Name);
    for (auto [Elems, Slice] :
         {std::pair<std::uint64_t, std::size_t>(64, 0), {96, 40}, {1000, 64}}) {
      CAPTURE(Elems);
      RunOptions O = deviceCall(A, Elems, Slice);
      Report R;
      IssueSink Sink(R, Name);
      CallSetup S;
      std::vector<CpuRankMemory> Mem;
      REQUIRE(prepareCall(A, O, Sink, R, Name, S));
      REQUIRE(allocateHostBuffers(A, S, Mem, Sink));
      auto D = planForDevice(A, O, R, Name);
      REQUIRE_MESSAGE(D, R.str());
      REQUIRE(emulate(*D, Mem));
      RunResult Res;
      S.Cfg.Tracking = false;
      verifyOutputs(A, S, Mem, Sink, Res);
      CHECK_MESSAGE(Res.WrongElements == 0, R.str());
      CHECK(Res.ElementsChecked > 0);
    }
  }
}
