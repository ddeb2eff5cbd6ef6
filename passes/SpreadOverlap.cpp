//===- passes/SpreadOverlap.cpp - ALLREDUCE sums spread as they finish ----===//
//
// Algorithm (overlapSpread):
//   1. split the schedule into its reduction (Transfer::Reduce) and its
//      spreading transfers;
//   2. a chunk's sum is complete at the chunk's source (the rank the
//      spreading ALLGATHER starts it from) when the last reducing transfer
//      of the chunk into that rank has landed: that is the chunk's release;
//   3. the spreading transfers of each chunk, by start, are its route (a
//      tree, parent links first), list-scheduled by every ordering after
//      the reduction (ListStart: the releases, the reduction as busy);
//   4. the shortest, appended to the reduction, if it beats the input.
//
//===----------------------------------------------------------------------===//
#include "passes/SpreadOverlap.h"
#include "passes/ReduceSchedule.h"

#include "support/Diagnostics.h"

#include <algorithm>

using namespace tacclc;
using namespace tacclc::ir;

std::optional<SpreadOverlap>
tacclc::overlapSpread(const Sketch &S, const Schedule &AllReduce,
                      const Deadline &GiveUp) {
  if (S.Coll.getKind() != CollectiveKind::AllReduce)
    reportInternalError("overlapSpread of a collective that is no allreduce");
  const Sketch Down = dualSketch(S, false);
  const Topology &Topo = S.Topo;
  // 1-2. The reduction and when each sum is complete.
  Schedule Reduced;
  std::vector<const Transfer *> Spreading;
  std::vector<double> Release(S.Coll.getNumChunks(), 0.0);
  for (const Transfer &T : AllReduce.Transfers) {
    if (!T.Reduce) {
      Spreading.push_back(&T);
      continue;
    }
    Reduced.Transfers.push_back(T);
    Reduced.MakespanUs = std::max(Reduced.MakespanUs, T.EndUs);
    if (Down.Coll.isPre(T.Chunk, Topo.link(T.Link).Dst)) {
      double &R = Release.at(T.Chunk.index());
      R = std::max(R, T.EndUs);
    }
  }
  if (Spreading.empty())
    return std::nullopt;
  // 3. The spreading routes, parent links first.
  std::stable_sort(Spreading.begin(), Spreading.end(),
                   [](const Transfer *A, const Transfer *B) {
                     return A->StartUs < B->StartUs;
                   });
  Routes R;
  R.Chunks.resize(S.Coll.getNumChunks());
  for (size_t C = 0; C < R.Chunks.size(); ++C)
    R.Chunks[C].Chunk = ChunkId(unsigned(C));
  for (const Transfer *T : Spreading)
    R.Chunks.at(T->Chunk.index()).Links.push_back(T->Link);
  ListStart From;
  From.Release = std::move(Release);
  From.Busy = &Reduced;
  OrderingResult O = orderTransfers(Down, R, nullptr, GiveUp, From);
  if (O.Tried.empty())
    return std::nullopt;
  // 4. Keep it only if it is shorter.
  SpreadOverlap Out;
  Out.BestOrdering = O.BestOrdering;
  Out.Schedule = std::move(Reduced);
  for (const Transfer &T : O.Best.Transfers)
    Out.Schedule.Transfers.push_back(T);
  Out.Schedule.MakespanUs =
      std::max(Out.Schedule.MakespanUs, O.Best.MakespanUs);
  if (!(Out.Schedule.MakespanUs < AllReduce.MakespanUs * (1 - 1e-9)))
    return std::nullopt;
  Out.Schedule.sortTransfers();
  return Out;
}
