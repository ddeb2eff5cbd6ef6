//===- format/Program.cpp - Executable view of a plan ---------------------===//
//
// Builds the per-threadblock operation lists with the kernel's dependency
// accumulation and step numbering (msccl_kernel.cu: step += numDependencies-1
// before a transfer, step++ after it; a nop without a dependency leaves no
// trace) and guards the invariants the executors rely on.
//
//===----------------------------------------------------------------------===//
#include "format/Program.h"
#include "format/Dialect.h"

#include "format/Poll.h"

#include <fmt/format.h>

namespace tacclrt {

namespace {

/// Reports the first structural problem of \p A; true when none.
bool isExecutable(const Algo &A, IssueSink &Sink) {
  auto Fail = [&Sink](const Where &W, IssueText Msg) {
    Sink.report(W, std::move(Msg));
    return false;
  };
  if (A.NGpus < 1 || A.Gpus.size() != static_cast<std::size_t>(A.NGpus))
    return Fail(Where(),
                message<MsgId::NotExecGpuCount>(A.Gpus.size(), A.NGpus));
  if (A.NChunksPerLoop < 1)
    return Fail(Where(), message<MsgId::NotExecNoChunks>());
  for (int R = 0; R < A.NGpus; ++R) {
    const Gpu &G = A.Gpus[static_cast<std::size_t>(R)];
    Where GW;
    GW.Line = G.Line;
    GW.Rank = R;
    if (G.Id != R)
      return Fail(GW, message<MsgId::NotExecUnsortedGpus>());
    if (G.IChunks < 0 || G.OChunks < 0 || G.SChunks < 0)
      return Fail(GW, message<MsgId::NotExecNegativeChunks>());
    int NTbs = static_cast<int>(G.Tbs.size());
    for (int T = 0; T < NTbs; ++T) {
      const Tb &B = G.Tbs[static_cast<std::size_t>(T)];
      Where TW = GW;
      TW.Line = B.Line;
      TW.Tb = T;
      if (B.Id != T)
        return Fail(TW, message<MsgId::NotExecTbOrder>());
      if (B.Send < -1 || B.Send >= A.NGpus || B.Send == R || B.Recv < -1 ||
          B.Recv >= A.NGpus || B.Recv == R)
        return Fail(TW, message<MsgId::NotExecPeerRange>());
      for (std::size_t P = 0; P < B.Steps.size(); ++P) {
        const Step &S = B.Steps[P];
        Where SW = TW;
        SW.Line = S.Line;
        SW.Step = static_cast<int>(P);
        bool Nop = S.Type == StepType::Nop;
        if (S.Cnt < (Nop ? 0 : 1) ||
            S.Cnt > int(limitsOf(Dialect::Executor).StepCount))
          return Fail(SW, message<MsgId::NotExecCount>(S.Cnt));
        if (sendsMessage(S.Type) && B.Send < 0)
          return Fail(SW, message<MsgId::NotExecNoSendPeer>());
        if (receivesMessage(S.Type) && B.Recv < 0)
          return Fail(SW, message<MsgId::NotExecNoRecvPeer>());
        if (S.DepId < -1 || S.DepId >= NTbs || S.DepId == T)
          return Fail(SW, message<MsgId::NotExecDepId>(S.DepId));
        if (S.DepId >= 0) {
          const Tb &D = G.Tbs[static_cast<std::size_t>(S.DepId)];
          if (S.Deps < 0 || S.Deps >= static_cast<int>(D.Steps.size()))
            return Fail(SW, message<MsgId::NotExecDeps>(S.Deps, S.DepId));
        }
      }
    }
  }
  return true;
}

} // namespace

std::optional<Program> buildProgram(const Algo &A, IssueSink &Sink) {
  if (!isExecutable(A, Sink))
    return std::nullopt;
  Program P;
  P.Ranks.resize(A.Gpus.size());
  for (std::size_t R = 0; R < A.Gpus.size(); ++R) {
    poll();
    const Gpu &G = A.Gpus[R];
    for (const Tb &B : G.Tbs) {
      TbProgram TP;
      TP.Rank = static_cast<int>(R);
      TP.Id = B.Id;
      TP.Send = B.Send;
      TP.Recv = B.Recv;
      TP.Chan = B.Chan;
      TP.T = &B;
      std::vector<Dependency> Pending;
      int DroppedNops = 0;
      for (std::size_t Pos = 0; Pos < B.Steps.size(); ++Pos) {
        const Step &S = B.Steps[Pos];
        if (S.DepId >= 0)
          Pending.push_back({S.DepId, S.Deps});
        if (S.Type == StepType::Nop) {
          DroppedNops += S.DepId < 0;
          continue;
        }
        Operation Op;
        Op.S = &S;
        Op.Pos = static_cast<int>(Pos);
        Op.Deps = std::move(Pending);
        Pending.clear();
        Op.PublishedStep = Op.Pos - DroppedNops;
        TP.Ops.push_back(std::move(Op));
      }
      P.Ranks[R].push_back(std::move(TP));
    }
  }
  return P;
}

Where stepWhere(const Algo &A, int Rank, int TbId, int Pos) {
  Where W;
  W.Rank = Rank;
  W.Tb = TbId;
  W.Step = Pos;
  if (Rank >= 0 && static_cast<std::size_t>(Rank) < A.Gpus.size()) {
    const Gpu &G = A.Gpus[static_cast<std::size_t>(Rank)];
    if (TbId >= 0 && static_cast<std::size_t>(TbId) < G.Tbs.size()) {
      const Tb &B = G.Tbs[static_cast<std::size_t>(TbId)];
      if (Pos >= 0 && static_cast<std::size_t>(Pos) < B.Steps.size()) {
        W.Line = B.Steps[static_cast<std::size_t>(Pos)].Line;
        W.Col = B.Steps[static_cast<std::size_t>(Pos)].Col;
      } else {
        W.Line = B.Line;
        W.Col = B.Col;
      }
    }
  }
  return W;
}

} // namespace tacclrt
