//===- codegen/LowerToProgram.cpp - Schedule to TACCL-EF program ----------===//
//
// Algorithm (ALLGATHER, out-of-place):
//   1. buffers: input = the rank's own K chunks, output = all R*K chunks,
//      no scratch; nchunksperloop = R*K;
//   2. threadblocks: per rank, one tb per used outgoing link (send = peer)
//      followed by one tb per used incoming link (recv = peer), all on
//      channel 0; so no two tbs share a (peer, channel, direction);
//   3. steps: each tb carries its link's transfers in schedule order, which
//      is also the FIFO order MSCCL matches sends and receives by; a send
//      reads the input buffer at the chunk's source and the output buffer
//      on relays, where it depends on the receive that delivered the chunk;
//   4. the local copy input -> output of the rank's own chunks opens the
//      rank's first send tb;
//   5. dependencies beyond the first become nops right before the step; every
//      dependency target gets hasdep=1;
//   6. limits: steps per tb and dependency-target tb ids are checked.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"

#include <fmt/format.h>

#include <map>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// A step plus the (tb, step) pairs it must wait for.
struct PendingStep {
  Step S;
  std::vector<std::pair<int, int>> Deps;
};

struct RankBuilder {
  std::vector<ThreadBlock> Tbs;
  std::vector<std::vector<PendingStep>> Steps;
  std::map<unsigned, int> SendTb, RecvTb; // peer -> tb
};
} // namespace

std::optional<Program> tacclc::lowerToProgram(const Sketch &S,
                                              const Schedule &Sch,
                                              const CodegenOptions &Opts,
                                              DiagnosticEngine &Diags) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  const unsigned NumRanks = Topo.getNumRanks();

  Program P;
  P.Name = S.Name;
  P.Protocol = S.Protocol;
  P.Collective = std::string(collectiveName(Coll.getKind()));
  P.ChunksPerLoop = Coll.getOutputChunks();
  P.NumChannels = 1;
  P.InPlace = false;
  P.OutOfPlace = true;

  // 2. Threadblocks, sends first, each side ordered by peer.
  std::vector<RankBuilder> Ranks(NumRanks);
  std::vector<std::vector<bool>> LinkUsed(NumRanks,
                                          std::vector<bool>(NumRanks, false));
  for (const Transfer &T : Sch.Transfers) {
    const Link &L = Topo.link(T.Link);
    LinkUsed[L.Src.index()][L.Dst.index()] = true;
  }
  for (unsigned R = 0; R < NumRanks; ++R) {
    RankBuilder &RB = Ranks[R];
    for (unsigned Peer = 0; Peer < NumRanks; ++Peer)
      if (LinkUsed[R][Peer]) {
        RB.SendTb[Peer] = RB.Tbs.size();
        RB.Tbs.push_back({static_cast<int>(Peer), -1, 0, {}});
      }
    for (unsigned Peer = 0; Peer < NumRanks; ++Peer)
      if (LinkUsed[Peer][R]) {
        RB.RecvTb[Peer] = RB.Tbs.size();
        RB.Tbs.push_back({-1, static_cast<int>(Peer), 0, {}});
      }
    RB.Steps.resize(RB.Tbs.size());
  }

  // 4. Local copies of each rank's own chunks.
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    const Chunk &Ch = Coll.chunk(ChunkId(C));
    RankBuilder &RB = Ranks[Ch.Source.index()];
    if (RB.Tbs.empty())
      reportInternalError("a rank that owns a chunk has no threadblock");
    Step Cpy{OpType::Copy,
             Buffer::Input,
             static_cast<int>(Ch.InputIndex),
             Buffer::Output,
             static_cast<int>(Ch.OutputIndex),
             1};
    RB.Steps[0].push_back({Cpy, {}});
  }

  // 3. Transfers in schedule order; remember where each chunk arrived.
  std::map<std::pair<unsigned, unsigned>, std::pair<int, int>> ArrivedAt;
  for (const Transfer &T : Sch.Transfers) {
    const Link &L = Topo.link(T.Link);
    const Chunk &Ch = Coll.chunk(T.Chunk);
    unsigned Src = L.Src.index(), Dst = L.Dst.index();
    bool AtSource = Coll.isPre(T.Chunk, L.Src);

    PendingStep Send;
    Send.S = {OpType::Send,
              AtSource ? Buffer::Input : Buffer::Output,
              static_cast<int>(AtSource ? Ch.InputIndex : Ch.OutputIndex),
              Buffer::Output,
              static_cast<int>(Ch.OutputIndex),
              1};
    if (!AtSource) {
      auto It = ArrivedAt.find({T.Chunk.index(), Src});
      if (It == ArrivedAt.end())
        reportInternalError(
            fmt::format("chunk {} is sent from rank {} before it arrives there",
                        T.Chunk.index(), Src));
      Send.Deps.push_back(It->second);
    }
    int STb = Ranks[Src].SendTb.at(Dst);
    Ranks[Src].Steps[STb].push_back(Send);

    PendingStep Recv;
    Recv.S = {OpType::Recv,
              Buffer::Output,
              static_cast<int>(Ch.OutputIndex),
              Buffer::Output,
              static_cast<int>(Ch.OutputIndex),
              1};
    int RTb = Ranks[Dst].RecvTb.at(Src);
    ArrivedAt[{T.Chunk.index(), Dst}] = {
        RTb, static_cast<int>(Ranks[Dst].Steps[RTb].size())};
    Ranks[Dst].Steps[RTb].push_back(Recv);
  }

  // 5. Materialise: nops for extra dependencies, then positions and hasdep.
  // Positions shift when nops are inserted, so map logical -> final indices.
  P.Gpus.resize(NumRanks);
  bool Ok = true;
  for (unsigned R = 0; R < NumRanks; ++R) {
    RankBuilder &RB = Ranks[R];
    std::vector<std::vector<int>> FinalIndex(RB.Tbs.size());
    for (size_t Tb = 0; Tb < RB.Tbs.size(); ++Tb) {
      int Pos = 0;
      for (const PendingStep &PS : RB.Steps[Tb]) {
        Pos += PS.Deps.empty() ? 0 : static_cast<int>(PS.Deps.size()) - 1;
        FinalIndex[Tb].push_back(Pos++);
      }
    }
    for (size_t Tb = 0; Tb < RB.Tbs.size(); ++Tb) {
      std::vector<Step> &Out = RB.Tbs[Tb].Steps;
      for (const PendingStep &PS : RB.Steps[Tb]) {
        for (size_t D = 0; D < PS.Deps.size(); ++D) {
          auto [DepTb, DepLogical] = PS.Deps[D];
          int DepPos = FinalIndex[DepTb][DepLogical];
          if (D + 1 < PS.Deps.size()) {
            Step Nop;
            Nop.DepTb = DepTb;
            Nop.DepStep = DepPos;
            Out.push_back(Nop);
          }
        }
        Step St = PS.S;
        if (!PS.Deps.empty()) {
          St.DepTb = PS.Deps.back().first;
          St.DepStep = FinalIndex[PS.Deps.back().first][PS.Deps.back().second];
        }
        Out.push_back(St);
      }
    }
    // hasdep on every dependency target.
    for (ThreadBlock &TB : RB.Tbs)
      for (const Step &St : TB.Steps)
        if (St.DepTb >= 0) {
          RB.Tbs[St.DepTb].Steps[St.DepStep].HasDep = true;
          if (static_cast<unsigned>(St.DepTb) > Opts.MaxDepTargetTb) {
            Diags.report(DiagId::LimitExceeded, S.Loc,
                         fmt::format("rank {} needs a dependency on "
                                     "threadblock {}; the runtime allows "
                                     "only ids up to {}",
                                     R, St.DepTb, Opts.MaxDepTargetTb));
            Ok = false;
          }
        }
    for (size_t Tb = 0; Tb < RB.Tbs.size(); ++Tb)
      if (RB.Tbs[Tb].Steps.size() > Opts.MaxStepsPerTb) {
        Diags.report(DiagId::LimitExceeded, S.Loc,
                     fmt::format("rank {} threadblock {} needs {} steps; the "
                                 "runtime allows {} per threadblock (use "
                                 "fewer chunks)",
                                 R, Tb, RB.Tbs[Tb].Steps.size(),
                                 Opts.MaxStepsPerTb));
        Ok = false;
      }
    GpuProgram &G = P.Gpus[R];
    G.InputChunks = Coll.getInputChunks();
    G.OutputChunks = Coll.getOutputChunks();
    G.ScratchChunks = 0;
    G.Tbs = std::move(RB.Tbs);
  }
  if (!Ok)
    return std::nullopt;
  return P;
}
