//===- codegen/Instances.cpp - Parallel instances of a program ------------===//
//
// `instances N` runs N copies of the algorithm at once, each on its own
// channel, so that N connections per peer pair share the work (TACCL and
// MSCCLang call this instances). Algorithm:
//   1. every buffer's chunk j becomes subchunks j*N .. j*N+N-1, so
//      nchunksperloop and every buffer size grow N-fold;
//   2. copy i of threadblock t (id t + i * tbs) keeps t's peers on channel
//      chan*N + i and moves subchunk j*N+i wherever t moved chunk j;
//   3. dependencies point at the same copy of their target threadblock;
//      if that puts one beyond the id a dependency can name, the copies
//      are renumbered with the threadblocks waited on first.
// A step that moves several consecutive chunks at once (cnt > 1) would
// need non-contiguous subchunks; the lowering never emits one before this
// pass, which asserts it. Limits (threadblocks per rank, channels,
// dependency targets) are checked with a diagnostic.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "codegen/LoweringInternal.h"

#include <fmt/format.h>

using namespace tacclc;
using namespace tacclc::ir;

bool tacclc::replicateInstances(Program &P, unsigned N,
                                const CodegenOptions &Opts, llvm::SMRange Loc,
                                DiagnosticEngine &Diags) {
  if (N <= 1)
    return true;
  if (P.NChannels * N > Opts.MaxChannels) {
    Diags.report(DiagId::LimitExceeded, Loc,
                 fmt::format("{} instances need {} channels; the runtime "
                             "allows {}",
                             N, P.NChannels * N, Opts.MaxChannels));
    return false;
  }
  for (size_t R = 0; R < P.Gpus.size(); ++R) {
    GpuProgram &G = P.Gpus[R];
    const size_t Tbs = G.Tbs.size();
    if (Tbs * N > Opts.MaxTbsPerRank) {
      Diags.report(DiagId::LimitExceeded, Loc,
                   fmt::format("rank {} would need {} threadblocks for {} "
                               "instances; the runtime allows {} (use fewer "
                               "instances)",
                               R, Tbs * N, N, Opts.MaxTbsPerRank));
      return false;
    }
    std::vector<ThreadBlock> Out;
    Out.reserve(Tbs * N);
    for (unsigned I = 0; I < N; ++I)
      for (const ThreadBlock &Tb : G.Tbs) {
        ThreadBlock Copy = Tb;
        Copy.Chan = Tb.Chan * N + I;
        for (Step &St : Copy.Steps) {
          if (St.Cnt > 1)
            reportInternalError("instances: a step moves several chunks");
          if (St.SrcOff >= 0)
            St.SrcOff = St.SrcOff * int(N) + int(I);
          if (St.DstOff >= 0)
            St.DstOff = St.DstOff * int(N) + int(I);
          if (St.DepId >= 0)
            St.DepId += int(I * Tbs);
        }
        Out.push_back(std::move(Copy));
      }
    unsigned Targets = putDependencyTargetsFirst(Out, Opts.MaxDepTargetTb);
    if (Targets > Opts.MaxDepTargetTb + 1) {
      Diags.report(DiagId::LimitExceeded, Loc,
                   fmt::format("rank {} would wait on {} threadblocks for {} "
                               "instances; the runtime can name only {} in "
                               "a dependency (use fewer instances)",
                               R, Targets, N, Opts.MaxDepTargetTb + 1));
      return false;
    }
    G.Tbs = std::move(Out);
    G.IChunks *= N;
    G.OChunks *= N;
    G.SChunks *= N;
  }
  P.NChannels *= N;
  P.NChunksPerLoop *= N;
  numberByPosition(P);
  return true;
}
