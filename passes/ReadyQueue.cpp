//===- passes/ReadyQueue.cpp - The list scheduler's ready jobs ------------===//
//
// Implements passes/ReadyQueue.h. Jobs leave their heaps lazily: a job
// that has moved on (to the free heap, or out to start) is marked in At,
// and its stale entries are dropped when they reach the top. Likewise only
// a link's last placing counts, in the heap of links or in a group, and
// only a group's last posting.
//
//===----------------------------------------------------------------------===//
#include "passes/ReadyQueue.h"

using namespace tacclc;

ReadyQueue::ReadyQueue(size_t NumJobs, size_t NumLinks, size_t NumGroups)
    : At(NumJobs, Where::None), ChunkOf(NumJobs, 0), Links(NumLinks),
      Groups(NumGroups) {}

void ReadyQueue::push(size_t Job, unsigned Chunk, unsigned Link,
                      double OwnStart, const Env &E) {
  LinkJobs &LJ = Links[Link];
  ChunkOf[Job] = Chunk;
  const double Now = E.LinkStart(Link).Start;
  Entry Mine{{}, Chunk, Link, Job};
  if (OwnStart <= Now) {
    // Starts at the link's time: ranked by the rest of its key.
    Entry Rest{E.KeyOf(Job, 0.0), Chunk, Link, Job};
    LJ.Free.push(Rest);
    At[Job] = Where::Free;
    // A parked link starts all its jobs at one time: a job that ranks after
    // the parked one by the rest of its key leaves the parking current.
    if (LJ.IsParked) {
      if (Rest > *LJ.Current)
        return;
      place(Link, E);
      return;
    }
    Mine.K = E.KeyOf(Job, Now);
  } else {
    Mine.K = E.KeyOf(Job, OwnStart);
    LJ.Waiting.push(Mine);
    LJ.Soonest.push({OwnStart, Job});
    At[Job] = Where::Waiting;
    ++LJ.NumWaiting;
    // A link with a job that starts later is not parked.
    if (LJ.IsParked) {
      place(Link, E);
      return;
    }
  }
  // A job that ranks after the link's posted best leaves that posting
  // current: it still ranks the link no later than its jobs do.
  if (LJ.Current && Mine > *LJ.Current)
    return;
  place(Link, E);
}

std::optional<ReadyQueue::Entry>
ReadyQueue::best(unsigned L, const LinkTime &Now, const Env &E) {
  LinkJobs &LJ = Links[L];
  // Waiting jobs the link's time has reached start with the free ones.
  while (!LJ.Soonest.empty()) {
    auto [Own, Job] = LJ.Soonest.top();
    if (At[Job] == Where::Waiting && Own > Now.Start)
      break;
    LJ.Soonest.pop();
    if (At[Job] != Where::Waiting)
      continue;
    LJ.Free.push({E.KeyOf(Job, 0.0), ChunkOf[Job], L, Job});
    At[Job] = Where::Free;
    --LJ.NumWaiting;
  }
  while (!LJ.Free.empty() && At[LJ.Free.top().Job] != Where::Free)
    LJ.Free.pop();
  while (!LJ.Waiting.empty() && At[LJ.Waiting.top().Job] != Where::Waiting)
    LJ.Waiting.pop();
  std::optional<Entry> Out;
  if (!LJ.Free.empty()) {
    Out = LJ.Free.top();
    Out->K = E.KeyOf(Out->Job, Now.Start);
  }
  if (!LJ.Waiting.empty() && (!Out || *Out > LJ.Waiting.top()))
    Out = LJ.Waiting.top();
  return Out;
}

void ReadyQueue::place(unsigned L, const Env &E) {
  const LinkTime Now = E.LinkStart(L);
  place(L, Now, best(L, Now, E), E);
}

void ReadyQueue::place(unsigned L, const LinkTime &Now,
                       const std::optional<Entry> &B, const Env &E) {
  LinkJobs &LJ = Links[L];
  ++LJ.Posted;
  LJ.Current = B;
  LJ.IsParked = false;
  if (!B)
    return;
  if (Now.Group < 0 || LJ.NumWaiting > 0) {
    ByLink.push({*B, LJ.Posted});
    return;
  }
  // Every job starts at the link's time, which is the group's: parked by
  // the rest of the best job's key.
  GroupLinks &GL = Groups[unsigned(Now.Group)];
  Entry Rest{E.KeyOf(B->Job, 0.0), B->Chunk, L, B->Job};
  GL.Links.push({Rest, LJ.Posted});
  LJ.Current = Rest;
  LJ.IsParked = true;
  // A link that ranks after the group's posting leaves it current: that
  // still ranks the group no later than its links.
  Entry AtGroup{E.KeyOf(B->Job, E.GroupTime(unsigned(Now.Group))), B->Chunk, L,
                B->Job};
  if (!GL.Current || *GL.Current > AtGroup)
    postGroup(unsigned(Now.Group), E);
}

void ReadyQueue::take(unsigned L, size_t Job) {
  if (At[Job] == Where::Waiting)
    --Links[L].NumWaiting;
  At[Job] = Where::None;
}

void ReadyQueue::dropStale(GroupLinks &GL) {
  while (!GL.Links.empty()) {
    const Parked &P = GL.Links.top();
    const LinkJobs &LJ = Links[P.Best.Link];
    if (LJ.IsParked && LJ.Posted == P.Number)
      return;
    GL.Links.pop();
  }
}

void ReadyQueue::postGroup(unsigned G, const Env &E) {
  GroupLinks &GL = Groups[G];
  dropStale(GL);
  if (GL.Links.empty()) {
    GL.Current.reset();
    return;
  }
  const Entry &P = GL.Links.top().Best;
  Entry AtGroup{E.KeyOf(P.Job, E.GroupTime(G)), P.Chunk, P.Link, P.Job};
  GL.Current = AtGroup;
  ByLink.push({AtGroup, ++GL.Posted, int(G)});
}

std::optional<size_t> ReadyQueue::popGroup(const Posting &Top, const Env &E) {
  const unsigned G = unsigned(Top.Group);
  GroupLinks &GL = Groups[G];
  if (Top.Number != GL.Posted)
    return std::nullopt;
  dropStale(GL);
  if (GL.Links.empty()) {
    GL.Current.reset();
    return std::nullopt;
  }
  const Parked P = GL.Links.top();
  const Entry AtGroup{E.KeyOf(P.Best.Job, E.GroupTime(G)), P.Best.Chunk,
                      P.Best.Link, P.Best.Job};
  if (AtGroup.Job != Top.Best.Job || AtGroup.K != Top.Best.K) {
    // The group's time has grown, or its best link has left it.
    postGroup(G, E);
    return std::nullopt;
  }
  // The best parked link: if it still starts at the group's time, its job
  // ranks first (keys only grow); else another port or its lanes hold it
  // later, and it is placed again.
  const unsigned L = P.Best.Link;
  GL.Links.pop();
  const LinkTime Now = E.LinkStart(L);
  std::optional<Entry> B = best(L, Now, E);
  std::optional<size_t> Out;
  if (B && B->Job == AtGroup.Job && B->K == AtGroup.K) {
    take(L, B->Job);
    Out = B->Job;
    place(L, E);
  } else {
    place(L, Now, B, E);
  }
  postGroup(G, E);
  return Out;
}

std::optional<size_t> ReadyQueue::pop(const Env &E) {
  while (!ByLink.empty()) {
    Posting Top = ByLink.top();
    ByLink.pop();
    ++LookedAt;
    if (Top.Group >= 0) {
      if (std::optional<size_t> Job = popGroup(Top, E))
        return Job;
      continue;
    }
    unsigned L = Top.Best.Link;
    LinkJobs &LJ = Links[L];
    if (Top.Number != LJ.Posted)
      continue;
    const LinkTime Now = E.LinkStart(L);
    std::optional<Entry> B = best(L, Now, E);
    if (!B || B->Job != Top.Best.Job || B->K != Top.Best.K) {
      // The link's ports or lanes have filled since it was posted.
      place(L, Now, B, E);
      continue;
    }
    // Keys only grow, so no other link's job can rank before this one.
    take(L, B->Job);
    place(L, E);
    return B->Job;
  }
  return std::nullopt;
}
