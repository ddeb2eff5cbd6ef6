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
        Sink.error(at(G), fmt::format("gpu id {} is not a rank: ngpus={}", G.Id,
                                      A.NGpus));
        continue;
      }
      const Gpu *&Slot = ByRank[static_cast<std::size_t>(G.Id)];
      if (Slot) {
        Sink.error(at(G), fmt::format("rank {} has more than one <gpu>{}", G.Id,
                                      lineNote(Slot->Line)));
        continue;
      }
      Slot = &G;
    }
    for (int R = 0; R < A.NGpus; ++R)
      if (!ByRank[static_cast<std::size_t>(R)])
        Sink.error(loc(A.Line, A.Col),
                   fmt::format("no <gpu> for rank {}: every rank 0..{} needs "
                               "exactly one",
                               R, A.NGpus - 1));
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
      Sink.error(W, fmt::format("ngpus={} must be at least 1", A.NGpus));
    if (A.NChannels < 1 || A.NChannels > int(L.Channels))
      Sink.error(W, fmt::format("nchannels={} must be between 1 and {} "
                                "(MAXCHANNELS)",
                                A.NChannels, L.Channels));
    if (A.NGpus > MaxGpus)
      Sink.error(W, fmt::format("ngpus={} is more than the {} ranks the "
                                "runtime's XML parser can hold",
                                A.NGpus, MaxGpus));
    if (A.NChunksPerLoop < 1 || A.NChunksPerLoop > int(L.ChunkOffset))
      Sink.error(W, fmt::format("nchunksperloop={} must be between 1 and {} "
                                "(chunk offsets are 16-bit)",
                                A.NChunksPerLoop, L.ChunkOffset));
    if (collName(A.Coll, D).empty())
      Sink.error(W, fmt::format("coll '{}' is not supported by the {} runtime",
                                nameOf(A.Coll), runtimeName()));
    if (A.Root >= 0 && !isRooted(A.Coll))
      Sink.warning(W, fmt::format("root={} is ignored: {} has no root", A.Root,
                                  nameOf(A.Coll)));
    else if (A.Root >= A.NGpus)
      Sink.error(
          W, fmt::format("root={} is not a rank (ngpus={})", A.Root, A.NGpus));
    if (D == Dialect::Executor && !A.InPlace && !A.OutOfPlace)
      Sink.warning(W, "inplace=0 and outofplace=0: the runtime never selects "
                      "this algorithm");
    if (D == Dialect::Executor) {
      if (A.MaxBytes != 0 && A.MinBytes > A.MaxBytes)
        Sink.error(W, fmt::format("minBytes={} exceeds maxBytes={}: the "
                                  "runtime never selects this algorithm",
                                  A.MinBytes, A.MaxBytes));
    } else if (A.MaxBytes == 0) {
      Sink.error(W, "maxBytes=0: the legacy runtime selects an algorithm only "
                    "when minBytes <= size < maxBytes, so it would never be "
                    "used; write a non-zero maxBytes");
    } else if (A.MinBytes >= A.MaxBytes) {
      Sink.error(W, fmt::format("minBytes={} is not below maxBytes={}: the "
                                "legacy runtime (exclusive maxBytes) never "
                                "selects this algorithm",
                                A.MinBytes, A.MaxBytes));
    }
  }

  void checkChunkCounts(const Gpu &G) {
    const std::pair<const char *, int> Counts[] = {{"i_chunks", G.IChunks},
                                                   {"o_chunks", G.OChunks},
                                                   {"s_chunks", G.SChunks}};
    for (const auto &[Name, N] : Counts) {
      if (N < 0)
        Sink.error(at(G), fmt::format("{}={} must not be negative", Name, N));
      else if (N > int(L.ChunkOffset) + 1)
        Sink.error(at(G), fmt::format("{}={} exceeds the int16 chunk offsets "
                                      "of the runtime",
                                      Name, N));
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
        Sink.error(at(G), What + " (the legacy runtime rejects the algorithm)");
      else
        Sink.warning(at(G), What + ": the declared buffer differs from the "
                                   "call's, and the runtime checks offsets "
                                   "against the declaration");
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
      Sink.error(at(G), fmt::format("rank {} needs {} XML nodes (1 + ngpus + "
                                    "tbs + steps); the MSCCL lexer stores at "
                                    "most {}",
                                    G.Id, Nodes, L.XmlNodesPerRank));
    std::size_t MaxTbs = L.TbsPerRank;
    if (G.Tbs.size() > MaxTbs)
      Sink.error(at(G), fmt::format("rank {} has {} threadblocks; the {} "
                                    "runtime allows at most {}",
                                    G.Id, G.Tbs.size(), runtimeName(), MaxTbs));

    std::map<int, const Tb *> ById;
    for (const Tb &T : G.Tbs) {
      if (T.Id < 0) {
        Sink.error(at(G, T), fmt::format("tb id {} is negative", T.Id));
        continue;
      }
      auto [It, New] = ById.emplace(T.Id, &T);
      if (!New)
        Sink.error(at(G, T), fmt::format("duplicate tb id {}{}", T.Id,
                                         lineNote(It->second->Line)));
    }
    for (int K = 0; K < static_cast<int>(G.Tbs.size()); ++K)
      if (!ById.count(K))
        Sink.error(at(G), fmt::format("threadblock {} is missing: tb ids must "
                                      "be 0..{} without gaps",
                                      K, G.Tbs.size() - 1));
    checkConnections(G);
    for (const Tb &T : G.Tbs)
      if (!Sink.full())
        checkSteps(G, T, ById);
  }

  void checkPeer(const Gpu &G, const Tb &T, const char *Name, int Peer) {
    if (Peer < -1 || Peer >= A.NGpus)
      Sink.error(at(G, T), fmt::format("{}={} is not a rank (ngpus={}) or -1",
                                       Name, Peer, A.NGpus));
    else if (Peer == G.Id)
      Sink.error(at(G, T), fmt::format("{}={} is the threadblock's own rank",
                                       Name, Peer));
  }

  void checkConnections(const Gpu &G) {
    std::map<std::pair<int, int>, int> SendConn, RecvConn;
    std::map<int, int> SendPerChan, RecvPerChan;
    for (const Tb &T : G.Tbs) {
      checkPeer(G, T, "send", T.Send);
      checkPeer(G, T, "recv", T.Recv);
      if (T.Chan < 0 || T.Chan >= A.NChannels)
        Sink.error(at(G, T), fmt::format("chan={} is out of range: "
                                         "nchannels={}",
                                         T.Chan, A.NChannels));
      if (T.Send >= 0) {
        auto [It, New] = SendConn.emplace(std::make_pair(T.Send, T.Chan), T.Id);
        if (!New)
          Sink.error(at(G, T),
                     fmt::format("tb {} and tb {} both send to rank {} on chan "
                                 "{}: they would share one NCCL connection",
                                 T.Id, It->second, T.Send, T.Chan));
        ++SendPerChan[T.Chan];
      }
      if (T.Recv >= 0) {
        auto [It, New] = RecvConn.emplace(std::make_pair(T.Recv, T.Chan), T.Id);
        if (!New)
          Sink.error(at(G, T),
                     fmt::format("tb {} and tb {} both receive from rank {} on "
                                 "chan {}: they would share one NCCL "
                                 "connection",
                                 T.Id, It->second, T.Recv, T.Chan));
        ++RecvPerChan[T.Chan];
      }
    }
    for (const auto &[Chan, N] : SendPerChan)
      if (N > int(L.TbsPerChannel))
        Sink.error(at(G), fmt::format("{} threadblocks send on chan {}; at "
                                      "most {} per channel are allowed",
                                      N, Chan, L.TbsPerChannel));
    for (const auto &[Chan, N] : RecvPerChan)
      if (N > int(L.TbsPerChannel))
        Sink.error(at(G), fmt::format("{} threadblocks receive on chan {}; "
                                      "at most {} per channel are allowed",
                                      N, Chan, L.TbsPerChannel));
  }

  void checkSteps(const Gpu &G, const Tb &T,
                  const std::map<int, const Tb *> &ById) {
    unsigned Limit = L.StepsPerTb;
    if (T.Steps.size() > Limit)
      Sink.error(at(G, T), fmt::format("tb has {} steps; the {} runtime allows "
                                       "at most {} per threadblock "
                                       "(MSCCL_MAX_NUM_STEPS)",
                                       T.Steps.size(), runtimeName(), Limit));
    int PendingNopDeps = 0;
    const Step *LastNop = nullptr;
    for (std::size_t P = 0; P < T.Steps.size() && !Sink.full(); ++P) {
      const Step &S = T.Steps[P];
      int Pos = static_cast<int>(P);
      Where W = at(G, T, Pos, S);
      if (S.S != Pos)
        Sink.error(W,
                   fmt::format("s={} but the step is at position {}: the "
                               "runtime re-derives step numbers from "
                               "positions, so s must count 0, 1, 2 and so on",
                               S.S, Pos));
      checkCount(G, T, S, W);
      checkDependency(G, T, S, W, ById);
      if (S.Type == StepType::Nop) {
        if (S.HasDep)
          Sink.warning(W, "hasdep=1 on a nop has no effect: nops publish no "
                          "flag");
        if (S.DepId < 0)
          Sink.warning(W, "nop without a dependency: the runtime drops it, "
                          "which shifts the step numbers of all later steps "
                          "of this threadblock by one (dependents then wait "
                          "for the wrong step)");
        else {
          ++PendingNopDeps;
          LastNop = &S;
        }
        continue;
      }
      if (PendingNopDeps > 0 && S.DepId < 0)
        Sink.error(W, "this step follows nops that carry dependencies but has "
                      "depid=-1; both MSCCL runtimes reject it (the last "
                      "dependency must be on the operation itself)");
      PendingNopDeps = 0;
    }
    if (PendingNopDeps > 0 && LastNop)
      Sink.warning(loc(LastNop->Line, LastNop->Col, G.Id, T.Id,
                       static_cast<int>(T.Steps.size()) - 1),
                   "trailing nop: its dependency is never waited for because "
                   "no operation follows it");
  }

  void checkCount(const Gpu &G, const Tb &T, const Step &S, const Where &W) {
    bool IsNop = S.Type == StepType::Nop;
    if (S.Cnt < 0 || S.Cnt > int(L.StepCount)) {
      Sink.error(W, fmt::format("cnt={} is out of range: 0..{} "
                                "(MSCCL_MAX_COUNT)",
                                S.Cnt, L.StepCount));
      return;
    }
    if (IsNop)
      return;
    if (S.Cnt == 0) {
      Sink.error(W, fmt::format("cnt=0 on a '{}' step: only nop may move no "
                                "chunk",
                                nameOf(S.Type)));
      return;
    }
    if (sendsMessage(S.Type) && T.Send < 0)
      Sink.error(W, fmt::format("'{}' sends, but the threadblock has send=-1",
                                nameOf(S.Type)));
    if (receivesMessage(S.Type) && T.Recv < 0)
      Sink.error(W, fmt::format("'{}' receives, but the threadblock has "
                                "recv=-1",
                                nameOf(S.Type)));
    if (readsSrc(S.Type))
      checkRange(G, S, W, "srcoff", "reads", S.SrcBuf, S.SrcOff);
    if (writesDst(S.Type))
      checkRange(G, S, W, "dstoff", "writes", S.DstBuf, S.DstOff);
  }

  void checkRange(const Gpu &G, const Step &S, const Where &W,
                  const char *Field, const char *Verb, BufferKind B, int Off) {
    int N = chunksOf(G, B);
    if (Off < 0) {
      Sink.error(W, fmt::format("{}={} is negative", Field, Off));
      return;
    }
    if (Off > int(L.ChunkOffset)) {
      Sink.error(W, fmt::format("{}={} exceeds the int16 chunk offsets of the "
                                "runtime",
                                Field, Off));
      return;
    }
    if (static_cast<long long>(Off) + S.Cnt > N)
      Sink.error(W,
                 fmt::format("{} {}, out of bounds: the gpu declares "
                             "{}_chunks={}",
                             Verb, chunkRange(B, Off, S.Cnt), toLetter(B), N));
  }

  void checkDependency(const Gpu &G, const Tb &T, const Step &S, const Where &W,
                       const std::map<int, const Tb *> &ById) {
    if (S.DepId < 0) {
      if (S.DepId != -1)
        Sink.error(W, fmt::format("depid={} must be a tb id or -1", S.DepId));
      else if (S.Deps != -1)
        Sink.warning(
            W, fmt::format("deps={} is ignored because depid=-1", S.Deps));
      return;
    }
    if (S.DepId == T.Id) {
      Sink.error(W, fmt::format("depid={} names the step's own threadblock; "
                                "dependencies must be on another tb of the "
                                "same rank",
                                S.DepId));
      return;
    }
    auto It = ById.find(S.DepId);
    if (It == ById.end()) {
      Sink.error(W, fmt::format("depid={}: rank {} has no tb {}", S.DepId, G.Id,
                                S.DepId));
      return;
    }
    if (S.DepId > int(L.DependencyTb))
      Sink.error(W, fmt::format("depends on tb {}, but dependency targets must "
                                "have ids <= {} (dependentBid is int8_t in "
                                "the runtime)",
                                S.DepId, L.DependencyTb));
    const Tb &Target = *It->second;
    if (S.Deps < 0 || S.Deps >= static_cast<int>(Target.Steps.size())) {
      Sink.error(W, fmt::format("deps={} is not a step of tb {} (it has {} "
                                "steps)",
                                S.Deps, S.DepId, Target.Steps.size()));
      return;
    }
    const Step &TS = Target.Steps[static_cast<std::size_t>(S.Deps)];
    if (TS.Type == StepType::Nop)
      Sink.error(W, fmt::format("depends on tb {} step {}, which is a nop: "
                                "nops publish no flag",
                                S.DepId, S.Deps));
    else if (!TS.HasDep)
      Sink.error(W, fmt::format("depends on tb {} step {}, which has "
                                "hasdep=0 and so never publishes its flag",
                                S.DepId, S.Deps));
  }
};

} // namespace

void validateAlgo(const Algo &A, const LoadOptions &Opts, IssueSink &Sink) {
  Validator(A, Opts, Sink).run();
}

} // namespace tacclrt
