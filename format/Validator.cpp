//===- format/Validator.cpp - Semantic rules of TACCL-EF plans ------------===//
//
// Every rule the MSCCL runtimes check when they parse an algorithm, plus the
// ones they rely on without checking (connection sharing, off+cnt bounds,
// positional step numbers, dependency targets with hasdep=1, well-formed
// nop chains). Messages name the rank, threadblock and step concerned and
// point at the element's line.
//
//===----------------------------------------------------------------------===//
#include "format/Validator.h"
#include "format/Collective.h"
#include "format/Poll.h"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

namespace tacclrt {

namespace {

int chunksOf(const Gpu &G, BufferKind B) {
  switch (B) {
  case BufferKind::Input:
    return G.IChunks;
  case BufferKind::Output:
    return G.OChunks;
  case BufferKind::Scratch:
    return G.SChunks;
  }
  return 0;
}

std::string chunkRange(BufferKind B, int Off, int Cnt) {
  if (Cnt == 1)
    return fmt::format("{} chunk {}", nameOf(B), Off);
  return fmt::format("{} chunks {}..{}", nameOf(B), Off, Off + Cnt - 1);
}

/// Runs all rules over one plan.
class Validator {
public:
  Validator(const Algo &A, const LoadOptions &O, IssueSink &S)
      : A(A), D(O.D), L(limitsOf(O.D)), Sink(S),
        // Each rank's <gpu> is one of the nodes the XML reader keeps.
        MaxGpus(int(L.XmlNodesPerRank) - 1) {}

  void run() {
    checkAlgo();
    if (A.NGpus < 1 || A.NGpus > MaxGpus)
      return;
    std::vector<const Gpu *> ByRank(static_cast<std::size_t>(A.NGpus));
    for (const Gpu &G : A.Gpus) {
      if (G.Id < 0 || G.Id >= A.NGpus) {
        Sink.report<MsgId::GpuIdNotARank>(at(G), G.Id, A.NGpus);
        continue;
      }
      const Gpu *&Slot = ByRank[static_cast<std::size_t>(G.Id)];
      if (Slot) {
        Sink.report<MsgId::DuplicateGpu>(at(G), G.Id, lineNote(Slot->Line));
        continue;
      }
      Slot = &G;
    }
    for (int R = 0; R < A.NGpus; ++R)
      if (!ByRank[static_cast<std::size_t>(R)])
        Sink.report<MsgId::MissingGpu>(loc(A.Line, A.Col), R, A.NGpus - 1);
    for (const Gpu *G : ByRank)
      if (G && !Sink.full())
        checkGpu(*G);
  }

private:
  const Algo &A;
  Dialect D;
  const DialectLimits &L;
  IssueSink &Sink;
  const int MaxGpus;

  static Where loc(unsigned Line, unsigned Col, int Rank = -1, int TbId = -1,
                   int StepPos = -1) {
    Where W;
    W.Line = Line;
    W.Col = Col;
    W.Rank = Rank;
    W.Tb = TbId;
    W.Step = StepPos;
    return W;
  }
  static Where at(const Gpu &G) { return loc(G.Line, G.Col, G.Id); }
  static Where at(const Gpu &G, const Tb &T) {
    return loc(T.Line, T.Col, G.Id, T.Id);
  }
  static Where at(const Gpu &G, const Tb &T, int Pos, const Step &S) {
    return loc(S.Line, S.Col, G.Id, T.Id, Pos);
  }
  static std::string lineNote(unsigned Line) {
    return Line ? fmt::format(" (the first is at line {})", Line)
                : std::string();
  }
  std::string_view runtimeName() const { return tacclrt::runtimeName(D); }

  void checkAlgo() {
    Where W = loc(A.Line, A.Col);
    if (A.NGpus < 1)
      Sink.report<MsgId::NoRanks>(W, A.NGpus);
    if (A.NChannels < 1 || A.NChannels > int(L.Channels))
      Sink.report<MsgId::BadChannelCount>(W, A.NChannels, L.Channels);
    if (A.NGpus > MaxGpus)
      Sink.report<MsgId::TooManyRanks>(W, A.NGpus, MaxGpus);
    if (A.NChunksPerLoop < 1 || A.NChunksPerLoop > int(L.ChunkOffset))
      Sink.report<MsgId::BadChunksPerLoop>(W, A.NChunksPerLoop, L.ChunkOffset);
    if (collName(A.Coll, D).empty())
      Sink.report<MsgId::CollNotInRuntime>(W, nameOf(A.Coll), runtimeName());
    if (A.Root >= 0 && !isRooted(A.Coll))
      Sink.report<MsgId::RootIgnored>(W, A.Root, nameOf(A.Coll));
    else if (A.Root >= A.NGpus)
      Sink.report<MsgId::RootNotARank>(W, A.Root, A.NGpus);
    if (D == Dialect::Executor && !A.InPlace && !A.OutOfPlace)
      Sink.report<MsgId::NeverSelectedNoCallKind>(W);
    if (D == Dialect::Executor) {
      if (A.MaxBytes != 0 && A.MinBytes > A.MaxBytes)
        Sink.report<MsgId::MinAboveMaxBytes>(W, A.MinBytes, A.MaxBytes);
    } else if (A.MaxBytes == 0) {
      Sink.report<MsgId::ZeroMaxBytes>(W);
    } else if (A.MinBytes >= A.MaxBytes) {
      Sink.report<MsgId::MinNotBelowMaxBytes>(W, A.MinBytes, A.MaxBytes);
    }
  }

  void checkChunkCounts(const Gpu &G) {
    const std::pair<const char *, int> Counts[] = {{"i_chunks", G.IChunks},
                                                   {"o_chunks", G.OChunks},
                                                   {"s_chunks", G.SChunks}};
    for (const auto &[Name, N] : Counts) {
      if (N < 0)
        Sink.report<MsgId::NegativeChunkCount>(at(G), Name, N);
      else if (N > int(L.ChunkOffset) + 1)
        Sink.report<MsgId::ChunkValueTooLarge>(at(G), Name, N);
    }
    // The legacy runtime's rule (it rejects the plan). The executor only
    // bounds offsets by the declared counts, so there a mismatch is a
    // warning: declared buffers that differ from the call's real ones (the
    // checker still sizes them as the collective defines).
    bool Applies =
        A.Coll == CollKind::AllReduce || A.Coll == CollKind::AllGather ||
        A.Coll == CollKind::Reduce || A.Coll == CollKind::Broadcast ||
        A.Coll == CollKind::AllToAll || A.Coll == CollKind::ReduceScatter ||
        A.Coll == CollKind::Custom;
    if (!Applies)
      return;
    long long IMul = A.Coll == CollKind::AllGather ? A.NGpus : 1;
    long long OMul = A.Coll == CollKind::ReduceScatter ? A.NGpus : 1;
    auto Report = [&](const char *Name, int N, long long Mul) {
      std::string What = fmt::format(
          "{}={}{} does not match nchunksperloop={}", Name, N,
          Mul > 1 ? fmt::format(" times ngpus={}", Mul) : std::string(),
          A.NChunksPerLoop);
      if (D == Dialect::Legacy)
        Sink.report<MsgId::BufferSizeRejected>(at(G), What);
      else
        Sink.report<MsgId::BufferSizeDiffers>(at(G), What);
    };
    if (G.IChunks > 0 && G.IChunks * IMul != A.NChunksPerLoop)
      Report("i_chunks", G.IChunks, IMul);
    if (G.OChunks > 0 && G.OChunks * OMul != A.NChunksPerLoop)
      Report("o_chunks", G.OChunks, OMul);
  }

  void checkGpu(const Gpu &G) {
    poll();
    checkChunkCounts(G);
    std::size_t Steps = 0;
    for (const Tb &T : G.Tbs)
      Steps += T.Steps.size();
    std::size_t Nodes =
        1 + static_cast<std::size_t>(A.NGpus) + G.Tbs.size() + Steps;
    if (Nodes > L.XmlNodesPerRank)
      Sink.report<MsgId::TooManyXmlNodes>(at(G), G.Id, Nodes,
                                          L.XmlNodesPerRank);
    std::size_t MaxTbs = L.TbsPerRank;
    if (G.Tbs.size() > MaxTbs)
      Sink.report<MsgId::TooManyTbs>(at(G), G.Id, G.Tbs.size(), runtimeName(),
                                     MaxTbs);

    std::map<int, const Tb *> ById;
    for (const Tb &T : G.Tbs) {
      if (T.Id < 0) {
        Sink.report<MsgId::NegativeTbId>(at(G, T), T.Id);
        continue;
      }
      auto [It, New] = ById.emplace(T.Id, &T);
      if (!New)
        Sink.report<MsgId::DuplicateTbId>(at(G, T), T.Id,
                                          lineNote(It->second->Line));
    }
    for (int K = 0; K < static_cast<int>(G.Tbs.size()); ++K)
      if (!ById.count(K))
        Sink.report<MsgId::MissingTb>(at(G), K, G.Tbs.size() - 1);
    checkConnections(G);
    for (const Tb &T : G.Tbs)
      if (!Sink.full())
        checkSteps(G, T, ById);
  }

  void checkPeer(const Gpu &G, const Tb &T, const char *Name, int Peer) {
    if (Peer < -1 || Peer >= A.NGpus)
      Sink.report<MsgId::PeerNotARank>(at(G, T), Name, Peer, A.NGpus);
    else if (Peer == G.Id)
      Sink.report<MsgId::PeerIsSelf>(at(G, T), Name, Peer);
  }

  void checkConnections(const Gpu &G) {
    std::map<std::pair<int, int>, int> SendConn, RecvConn;
    std::map<int, int> SendPerChan, RecvPerChan;
    for (const Tb &T : G.Tbs) {
      checkPeer(G, T, "send", T.Send);
      checkPeer(G, T, "recv", T.Recv);
      if (T.Chan < 0 || T.Chan >= A.NChannels)
        Sink.report<MsgId::ChannelOutOfRange>(at(G, T), T.Chan, A.NChannels);
      if (T.Send >= 0) {
        auto [It, New] = SendConn.emplace(std::make_pair(T.Send, T.Chan), T.Id);
        if (!New)
          Sink.report<MsgId::SharedSendConnection>(at(G, T), T.Id, It->second,
                                                   T.Send, T.Chan);
        ++SendPerChan[T.Chan];
      }
      if (T.Recv >= 0) {
        auto [It, New] = RecvConn.emplace(std::make_pair(T.Recv, T.Chan), T.Id);
        if (!New)
          Sink.report<MsgId::SharedRecvConnection>(at(G, T), T.Id, It->second,
                                                   T.Recv, T.Chan);
        ++RecvPerChan[T.Chan];
      }
    }
    for (const auto &[Chan, N] : SendPerChan)
      if (N > int(L.TbsPerChannel))
        Sink.report<MsgId::TooManySendersOnChannel>(at(G), N, Chan,
                                                    L.TbsPerChannel);
    for (const auto &[Chan, N] : RecvPerChan)
      if (N > int(L.TbsPerChannel))
        Sink.report<MsgId::TooManyReceiversOnChannel>(at(G), N, Chan,
                                                      L.TbsPerChannel);
  }

  void checkSteps(const Gpu &G, const Tb &T,
                  const std::map<int, const Tb *> &ById) {
    unsigned Limit = L.StepsPerTb;
    if (T.Steps.size() > Limit)
      Sink.report<MsgId::TooManySteps>(at(G, T), T.Steps.size(), runtimeName(),
                                       Limit);
    int PendingNopDeps = 0;
    const Step *LastNop = nullptr;
    for (std::size_t P = 0; P < T.Steps.size() && !Sink.full(); ++P) {
      const Step &S = T.Steps[P];
      int Pos = static_cast<int>(P);
      Where W = at(G, T, Pos, S);
      if (S.S != Pos)
        Sink.report<MsgId::StepNumberMismatch>(W, S.S, Pos);
      checkCount(G, T, S, W);
      checkDependency(G, T, S, W, ById);
      if (S.Type == StepType::Nop) {
        if (S.HasDep)
          Sink.report<MsgId::NopHasDep>(W);
        if (S.DepId < 0)
          Sink.report<MsgId::NopWithoutDependency>(W);
        else {
          ++PendingNopDeps;
          LastNop = &S;
        }
        continue;
      }
      if (PendingNopDeps > 0 && S.DepId < 0)
        Sink.report<MsgId::NopDependencyDropped>(W);
      PendingNopDeps = 0;
    }
    if (PendingNopDeps > 0 && LastNop)
      Sink.report<MsgId::TrailingNop>(
          loc(LastNop->Line, LastNop->Col, G.Id, T.Id,
              static_cast<int>(T.Steps.size()) - 1));
  }

  void checkCount(const Gpu &G, const Tb &T, const Step &S, const Where &W) {
    bool IsNop = S.Type == StepType::Nop;
    if (S.Cnt < 0 || S.Cnt > int(L.StepCount)) {
      Sink.report<MsgId::CountOutOfRange>(W, S.Cnt, L.StepCount);
      return;
    }
    if (IsNop)
      return;
    if (S.Cnt == 0) {
      Sink.report<MsgId::ZeroCount>(W, nameOf(S.Type));
      return;
    }
    if (sendsMessage(S.Type) && T.Send < 0)
      Sink.report<MsgId::SendWithoutPeer>(W, nameOf(S.Type));
    if (receivesMessage(S.Type) && T.Recv < 0)
      Sink.report<MsgId::ReceiveWithoutPeer>(W, nameOf(S.Type));
    if (readsSrc(S.Type))
      checkRange(G, S, W, "srcoff", "reads", S.SrcBuf, S.SrcOff);
    if (writesDst(S.Type))
      checkRange(G, S, W, "dstoff", "writes", S.DstBuf, S.DstOff);
  }

  void checkRange(const Gpu &G, const Step &S, const Where &W,
                  const char *Field, const char *Verb, BufferKind B, int Off) {
    int N = chunksOf(G, B);
    if (Off < 0) {
      Sink.report<MsgId::NegativeOffset>(W, Field, Off);
      return;
    }
    if (Off > int(L.ChunkOffset)) {
      Sink.report<MsgId::ChunkValueTooLarge>(W, Field, Off);
      return;
    }
    if (static_cast<long long>(Off) + S.Cnt > N)
      Sink.report<MsgId::StepOutOfBounds>(W, Verb, chunkRange(B, Off, S.Cnt),
                                          toLetter(B), N);
  }

  void checkDependency(const Gpu &G, const Tb &T, const Step &S, const Where &W,
                       const std::map<int, const Tb *> &ById) {
    if (S.DepId < 0) {
      if (S.DepId != -1)
        Sink.report<MsgId::BadDepId>(W, S.DepId);
      else if (S.Deps != -1)
        Sink.report<MsgId::DepsIgnored>(W, S.Deps);
      return;
    }
    if (S.DepId == T.Id) {
      Sink.report<MsgId::DependsOnOwnTb>(W, S.DepId);
      return;
    }
    auto It = ById.find(S.DepId);
    if (It == ById.end()) {
      Sink.report<MsgId::NoSuchDepTb>(W, S.DepId, G.Id, S.DepId);
      return;
    }
    if (S.DepId > int(L.DependencyTb))
      Sink.report<MsgId::DepTbTooLarge>(W, S.DepId, L.DependencyTb);
    const Tb &Target = *It->second;
    if (S.Deps < 0 || S.Deps >= static_cast<int>(Target.Steps.size())) {
      Sink.report<MsgId::NoSuchDepStep>(W, S.Deps, S.DepId,
                                        Target.Steps.size());
      return;
    }
    const Step &TS = Target.Steps[static_cast<std::size_t>(S.Deps)];
    if (TS.Type == StepType::Nop)
      Sink.report<MsgId::DependsOnNop>(W, S.DepId, S.Deps);
    else if (!TS.HasDep)
      Sink.report<MsgId::DependsOnSilentStep>(W, S.DepId, S.Deps);
  }
};

} // namespace

void validateAlgo(const Algo &A, const LoadOptions &Opts, IssueSink &Sink) {
  Validator(A, Opts, Sink).run();
}

} // namespace tacclrt
