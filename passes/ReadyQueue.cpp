//===- passes/ReadyQueue.cpp - The list scheduler's ready jobs ------------===//
//
// Implements passes/ReadyQueue.h. Jobs leave their heaps lazily: a job
// that has moved on (to the free heap, or out to start) is marked in At,
// and its stale entries are dropped when they reach the top. Likewise only
// a link's last posting in the heap of links counts.
//
//===----------------------------------------------------------------------===//
#include "passes/ReadyQueue.h"

using namespace tacclc;

ReadyQueue::ReadyQueue(size_t NumJobs, size_t NumLinks)
    : At(NumJobs, Where::None), ChunkOf(NumJobs, 0), Links(NumLinks) {}

void ReadyQueue::push(size_t Job, unsigned Chunk, unsigned Link,
                      double OwnStart, KeyFn KeyOf, LinkStartFn LinkStart) {
  LinkJobs &LJ = Links[Link];
  ChunkOf[Job] = Chunk;
  const double Now = LinkStart(Link);
  Entry Mine{{}, Chunk, Link, Job};
  if (OwnStart <= Now) {
    // Starts at the link's time: ranked by the rest of its key.
    LJ.Free.push({KeyOf(Job, 0.0), Chunk, Link, Job});
    At[Job] = Where::Free;
    Mine.K = KeyOf(Job, Now);
  } else {
    Mine.K = KeyOf(Job, OwnStart);
    LJ.Waiting.push(Mine);
    LJ.Soonest.push({OwnStart, Job});
    At[Job] = Where::Waiting;
  }
  // A job that ranks after the link's posted best leaves that posting
  // current: it still ranks the link no later than its jobs do.
  if (LJ.Current && Mine > *LJ.Current)
    return;
  post(Link, KeyOf, LinkStart);
}

std::optional<ReadyQueue::Entry> ReadyQueue::best(unsigned L, KeyFn KeyOf,
                                                  LinkStartFn LinkStart) {
  LinkJobs &LJ = Links[L];
  const double Now = LinkStart(L);
  // Waiting jobs the link's time has reached start with the free ones.
  while (!LJ.Soonest.empty()) {
    auto [Own, Job] = LJ.Soonest.top();
    if (At[Job] == Where::Waiting && Own > Now)
      break;
    LJ.Soonest.pop();
    if (At[Job] != Where::Waiting)
      continue;
    LJ.Free.push({KeyOf(Job, 0.0), ChunkOf[Job], L, Job});
    At[Job] = Where::Free;
  }
  while (!LJ.Free.empty() && At[LJ.Free.top().Job] != Where::Free)
    LJ.Free.pop();
  while (!LJ.Waiting.empty() && At[LJ.Waiting.top().Job] != Where::Waiting)
    LJ.Waiting.pop();
  std::optional<Entry> Out;
  if (!LJ.Free.empty()) {
    Out = LJ.Free.top();
    Out->K = KeyOf(Out->Job, Now);
  }
  if (!LJ.Waiting.empty() && (!Out || *Out > LJ.Waiting.top()))
    Out = LJ.Waiting.top();
  return Out;
}

void ReadyQueue::post(unsigned L, KeyFn KeyOf, LinkStartFn LinkStart) {
  post(L, best(L, KeyOf, LinkStart));
}

void ReadyQueue::post(unsigned L, const std::optional<Entry> &B) {
  LinkJobs &LJ = Links[L];
  LJ.Current = B;
  if (B)
    ByLink.push({*B, ++LJ.Posted});
}

std::optional<size_t> ReadyQueue::pop(KeyFn KeyOf, LinkStartFn LinkStart) {
  while (!ByLink.empty()) {
    Posting Top = ByLink.top();
    ByLink.pop();
    ++LookedAt;
    unsigned L = Top.Best.Link;
    if (Top.Number != Links[L].Posted)
      continue;
    std::optional<Entry> B = best(L, KeyOf, LinkStart);
    if (!B || B->Job != Top.Best.Job || B->K != Top.Best.K) {
      // The link's ports or lanes have filled since it was posted.
      post(L, B);
      continue;
    }
    // Keys only grow, so no other link's job can rank before this one.
    At[B->Job] = Where::None;
    post(L, KeyOf, LinkStart);
    return B->Job;
  }
  return std::nullopt;
}
