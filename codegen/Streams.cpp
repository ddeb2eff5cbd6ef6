//===- codegen/Streams.cpp - Which connection carries each transfer -------===//
//
// A link's transfers travel over one connection per lane of the link
// (parallel links, `x2`, have several), in schedule order. The runtime
// repeats every threadblock's steps once per slice of the buffer, so a
// threadblock whose late step waits for a long chain holds back its early
// steps of the next slice. planStreams() splits a link's transfers into
// waves where that matters, each wave on lanes (connections, so
// threadblocks and channels) of its own:
//   1. with SeparateHalves, an ALLREDUCE's spreading half never shares a
//      connection with its reducing half, so the halves of consecutive
//      slices overlap;
//   2. with PipelineWaves, sends that wait for nothing (a chunk leaving its
//      source, a rank's own input starting a reduction) are apart from
//      forwards of what arrived (in schedule order: a reduction's send is a
//      forward once something was reduced into the sender's value);
//   3. the waves that occur are numbered densely, and transfer i's stream
//      lane is its link lane + wave x (the largest link lane + 1).
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tacclc;
using namespace tacclc::ir;

StreamPlan tacclc::planStreams(const Sketch &S, const Schedule &Sch,
                               const CodegenOptions &Opts) {
  const Collective &Coll = S.Coll;
  const bool Combining = isCombining(Coll.getKind());
  unsigned LinkLanes = 1;
  bool AnyReduce = false, AnySpread = false;
  for (const Transfer &T : Sch.Transfers) {
    LinkLanes = std::max(LinkLanes, T.Lane + 1);
    AnyReduce = AnyReduce || T.Reduce;
    AnySpread = AnySpread || (Combining && !T.Reduce);
  }
  const bool TwoHalves = Opts.SeparateHalves && AnyReduce && AnySpread;

  // 1, 2. Waves: 0 waits for nothing, 1 forwards, 2 spreads.
  std::vector<unsigned> Wave(Sch.Transfers.size(), 0);
  std::set<std::pair<unsigned, unsigned>> Holds; // (chunk, rank) reduced into
  for (size_t I = 0; I < Sch.Transfers.size(); ++I) {
    const Transfer &T = Sch.Transfers[I];
    const Link &L = S.Topo.link(T.Link);
    bool Forward =
        Combining ? T.Reduce && Holds.count({T.Chunk.index(), L.Src.index()})
                  : !Coll.isPre(T.Chunk, L.Src);
    if (T.Reduce)
      Holds.insert({T.Chunk.index(), L.Dst.index()});
    if (TwoHalves && !T.Reduce)
      Wave[I] = 2;
    else
      Wave[I] = Opts.PipelineWaves && Forward ? 1 : 0;
  }

  // 3. Dense numbering, so that no channel goes unused.
  std::map<unsigned, unsigned> Dense;
  for (unsigned W : Wave)
    Dense.try_emplace(W, 0);
  unsigned Waves = 0;
  for (auto &[W, D] : Dense)
    D = Waves++;
  StreamPlan Plan;
  Plan.Lanes = LinkLanes * std::max(Waves, 1u);
  for (size_t I = 0; I < Sch.Transfers.size(); ++I)
    Plan.LaneOf.push_back(Sch.Transfers[I].Lane + Dense[Wave[I]] * LinkLanes);
  return Plan;
}
