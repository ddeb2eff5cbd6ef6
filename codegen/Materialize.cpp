//===- codegen/Materialize.cpp - Pending steps to the program's steps -----===//
//
// Step 8, the last of the lowering (LowerToProgram.cpp). Until here a step
// names the steps it waits for as (threadblock, logical step) pairs, and may
// wait for several; MSCCL steps carry one dependency each. Per rank:
//   1. dependencies beyond a step's last become nops right before it, each
//      carrying one; logical steps become positions (they shift by the nops
//      inserted before them);
//   2. every dependency target gets hasdep=1; where a target's threadblock
//      id is beyond what the runtime can name in a dependency (a rank with
//      many peers), the rank's threadblocks are renumbered, targets first,
//      and what still exceeds the limit is reported;
//   3. steps per threadblock, threadblocks per rank and per channel, and
//      the XML elements the MSCCL reader keeps per rank are checked (the
//      last two only while nothing else was exceeded, so that one cause is
//      reported once).
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include "support/Deadline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Fills the threadblocks of \p RB with their final steps: a nop for every
/// dependency but the last, which the step itself carries, and positions
/// in place of logical steps.
void placeSteps(RankBuilder &RB) {
  // Positions shift when nops are inserted: logical -> final index.
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
          Nop.DepId = DepTb;
          Nop.Deps = DepPos;
          Out.push_back(Nop);
        }
      }
      Step St = PS.S;
      if (!PS.Deps.empty()) {
        St.DepId = PS.Deps.back().first;
        St.Deps = FinalIndex[PS.Deps.back().first][PS.Deps.back().second];
      }
      Out.push_back(St);
    }
  }
}

/// Sets hasdep on every dependency target of rank \p R, whose steps wait
/// on \p Targets threadblocks (targets first: putDependencyTargetsFirst);
/// reports the rank if they are more than a dependency can name (false
/// then).
bool markDependencyTargets(RankBuilder &RB, unsigned R, unsigned Targets,
                           const Sketch &S, const CodegenOptions &Opts,
                           DiagnosticEngine &Diags) {
  for (ThreadBlock &TB : RB.Tbs)
    for (const Step &St : TB.Steps)
      if (St.DepId >= 0)
        RB.Tbs[St.DepId].Steps[St.Deps].HasDep = true;
  if (Targets <= Opts.MaxDepTargetTb + 1)
    return true;
  Diags.report(DiagId::LimitExceeded, S.Loc,
               fmt::format("rank {} waits on {} of its threadblocks; the "
                           "runtime can name only {} in a dependency "
                           "(connect fewer peers: use fewer relays or "
                           "links)",
                           R, Targets, Opts.MaxDepTargetTb + 1));
  return false;
}

/// Reports each threadblock of rank \p R with more steps than the runtime
/// allows (false if any).
bool checkStepsPerTb(const RankBuilder &RB, unsigned R, const Sketch &S,
                     const CodegenOptions &Opts, DiagnosticEngine &Diags) {
  bool Ok = true;
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
  return Ok;
}

/// Reports rank \p R if it has more threadblocks, or more sending or
/// receiving ones on one channel, than the runtime allows (false then).
bool checkThreadblocks(const RankBuilder &RB, unsigned R, const Sketch &S,
                       const CodegenOptions &Opts, DiagnosticEngine &Diags) {
  std::map<unsigned, unsigned> SendsOn, RecvsOn;
  for (const ThreadBlock &Tb : RB.Tbs) {
    SendsOn[Tb.Chan] += Tb.Send >= 0;
    RecvsOn[Tb.Chan] += Tb.Recv >= 0;
  }
  unsigned Busiest = 0;
  for (const auto &Side : {SendsOn, RecvsOn})
    for (const auto &[Chan, N] : Side)
      Busiest = std::max(Busiest, N);
  if (RB.Tbs.size() <= Opts.MaxTbsPerRank && Busiest <= Opts.MaxTbsPerChannel)
    return true;
  Diags.report(DiagId::LimitExceeded, S.Loc,
               fmt::format("rank {} needs {} threadblocks, up to {} "
                           "sending or receiving on one channel; the "
                           "runtime allows {} per rank and {} per channel "
                           "(connect fewer peers: use fewer relays or "
                           "links)",
                           R, RB.Tbs.size(), Busiest, Opts.MaxTbsPerRank,
                           Opts.MaxTbsPerChannel));
  return false;
}

/// A hint for a rank with too many steps: the first class of links between
/// nodes that is not `contiguous`, where a peer's chunks could share a step
/// (empty when there is none).
std::string contiguityHint(const Sketch &S) {
  const Topology &T = S.Topo;
  for (const Link &L : T.links()) {
    if (L.Class < 0 || T.nodeOf(L.Src) == T.nodeOf(L.Dst))
      continue;
    size_t C = size_t(L.Class);
    if (C < S.ContiguousClasses.size() && S.ContiguousClasses[C])
      continue;
    const std::string &Name = T.classes()[C].Name;
    return fmt::format("; or mark the links between nodes contiguous "
                       "(`contiguous {}`), so that the chunks a peer sends "
                       "together share a step",
                       Name);
  }
  return std::string();
}

/// Reports rank \p R if its XML elements (the algorithm, one per rank, one
/// per threadblock and step) exceed what the MSCCL reader keeps (false
/// then).
bool checkXmlNodes(const RankBuilder &RB, unsigned R, unsigned NumRanks,
                   const Sketch &S, const CodegenOptions &Opts,
                   DiagnosticEngine &Diags) {
  size_t Nodes = 1 + size_t(NumRanks) + RB.Tbs.size();
  for (const ThreadBlock &Tb : RB.Tbs)
    Nodes += Tb.Steps.size();
  if (Nodes <= Opts.MaxXmlNodesPerRank)
    return true;
  Diags.report(DiagId::LimitExceeded, S.Loc,
               fmt::format("rank {} needs {} XML elements (the algorithm, "
                           "{} ranks, {} threadblocks and their steps); "
                           "the MSCCL runtime's reader keeps at most {} "
                           "per rank (use fewer chunks, channels or "
                           "rings{})",
                           R, Nodes, NumRanks, RB.Tbs.size(),
                           Opts.MaxXmlNodesPerRank, contiguityHint(S)));
  return false;
}
} // namespace

bool tacclc::materializeProgram(std::vector<RankBuilder> &Ranks,
                                const std::vector<unsigned> &ScratchChunks,
                                const Sketch &S, const CodegenOptions &Opts,
                                DiagnosticEngine &Diags, Program &P) {
  const unsigned NumRanks = Ranks.size();
  P.Gpus.resize(NumRanks);
  bool Ok = true;
  for (unsigned R = 0; R < NumRanks; ++R) {
    checkDeadline();
    RankBuilder &RB = Ranks[R];
    placeSteps(RB);
    unsigned Targets = putDependencyTargetsFirst(RB.Tbs, Opts.MaxDepTargetTb);
    Ok = markDependencyTargets(RB, R, Targets, S, Opts, Diags) && Ok;
    Ok = checkStepsPerTb(RB, R, S, Opts, Diags) && Ok;
    // Only the first of these two that a rank exceeds, and neither after
    // another limit was exceeded.
    Ok = Ok && checkThreadblocks(RB, R, S, Opts, Diags);
    Ok = Ok && checkXmlNodes(RB, R, NumRanks, S, Opts, Diags);
    GpuProgram &G = P.Gpus[R];
    G.IChunks = S.Coll.getInputChunks();
    G.OChunks = S.Coll.getOutputChunks();
    G.SChunks = ScratchChunks[R];
    G.Tbs = std::move(RB.Tbs);
  }
  numberByPosition(P);
  return Ok;
}

unsigned tacclc::putDependencyTargetsFirst(std::vector<ThreadBlock> &Tbs,
                                           unsigned MaxTarget) {
  std::vector<bool> Target(Tbs.size(), false);
  bool Beyond = false;
  unsigned Targets = 0;
  for (const ThreadBlock &TB : Tbs)
    for (const Step &St : TB.Steps)
      if (St.DepId >= 0) {
        Targets += !Target[St.DepId];
        Target[St.DepId] = true;
        Beyond |= static_cast<unsigned>(St.DepId) > MaxTarget;
      }
  if (!Beyond)
    return Targets;
  std::vector<int> NewId(Tbs.size());
  std::vector<ThreadBlock> Out;
  Out.reserve(Tbs.size());
  for (bool First : {true, false})
    for (size_t Tb = 0; Tb < Tbs.size(); ++Tb)
      if (Target[Tb] == First) {
        NewId[Tb] = static_cast<int>(Out.size());
        Out.push_back(std::move(Tbs[Tb]));
      }
  for (ThreadBlock &TB : Out)
    for (Step &St : TB.Steps)
      if (St.DepId >= 0)
        St.DepId = NewId[St.DepId];
  Tbs = std::move(Out);
  return Targets;
}

void tacclc::numberByPosition(Program &P) {
  P.NGpus = static_cast<int>(P.Gpus.size());
  for (size_t R = 0; R < P.Gpus.size(); ++R) {
    GpuProgram &G = P.Gpus[R];
    G.Id = static_cast<int>(R);
    for (size_t T = 0; T < G.Tbs.size(); ++T) {
      ThreadBlock &Tb = G.Tbs[T];
      Tb.Id = static_cast<int>(T);
      for (size_t S = 0; S < Tb.Steps.size(); ++S)
        Tb.Steps[S].S = static_cast<int>(S);
    }
  }
}
