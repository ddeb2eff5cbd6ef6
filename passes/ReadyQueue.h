//===- passes/ReadyQueue.h - The list scheduler's ready jobs ----*- C++ -*-===//
//
// The jobs a list scheduler (passes/ListSchedule.cpp) may start next, kept
// so that finding the one that ranks first costs O(log n) however many
// jobs wait on a busy link. A job is a chunk's transfer over one link. Its
// sort key is lexicographic, with its start time as one component and the
// rest fixed; its start is the later of two times:
//   - its own, when its chunk has arrived plus nothing else (fixed), and
//   - its link's, when the link's lanes and the ports it shares could take
//     one more message (it only grows: lanes and ports fill up).
// So the jobs of one link whose own start is no later than the link's all
// start at the link's time, and rank among themselves by the fixed rest of
// their keys: they wait in one heap (`free`). The others rank by their own
// start, fixed too: they wait in a second heap, and a third by own start
// moves them to the first once the link's time reaches them.
//
// The link with the job that ranks first is found in a heap of links, each
// under the key its best job had when the link was last looked at. Keys
// only grow until a job joins the link, and a join posts the link again,
// so the first link whose key is still current holds the job that ranks
// first.
//
// Links that share a port all wait for it: a start through a NIC makes
// every other link through it later (127 on a rail of 128 nodes). Posted
// one by one, each would be found stale and posted again after every such
// start. So the scheduler may name groups of links (a port, for the links
// with one hop latency through it) whose time bounds their links' starts
// from below; a link whose start is its group's time, and whose jobs all
// start at the link's time, is parked in its group, by the rest of its
// best job's key. The group is posted once, under its best parked link's
// key at the group's time: that bounds every parked link's key from below,
// since their jobs all start at the same time and keys grow with it. A
// start through the port makes one posting stale, not one per link.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_READYQUEUE_H
#define TACCLC_PASSES_READYQUEUE_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

namespace tacclc {

/// The ready jobs of a list scheduler, by link (see the file comment).
class ReadyQueue {
public:
  /// A job's sort key: lower ranks first, then lower chunk, then lower
  /// link. Keys must be exactly comparable (the caller rounds them).
  using Key = std::array<double, 3>;
  /// The key of a job if it started at a time.
  using KeyFn = llvm::function_ref<Key(size_t Job, double Start)>;
  /// When a link could next start a job whose chunk is already there, and
  /// the group whose time that is (-1: none; see the file comment).
  struct LinkTime {
    double Start = 0;
    int Group = -1;
  };
  using LinkStartFn = llvm::function_ref<LinkTime(unsigned Link)>;
  /// A group's time: no later than the start of any link it may bind, and
  /// it only grows.
  using GroupTimeFn = llvm::function_ref<double(unsigned Group)>;
  /// What the queue asks of its scheduler.
  struct Env {
    KeyFn KeyOf;
    LinkStartFn LinkStart;
    GroupTimeFn GroupTime;
  };

  /// Room for jobs numbered below \p NumJobs on links below \p NumLinks,
  /// in groups below \p NumGroups.
  ReadyQueue(size_t NumJobs, size_t NumLinks, size_t NumGroups = 0);

  /// Adds job \p Job of chunk \p Chunk on link \p Link, whose own start
  /// (see the file comment) is \p OwnStart.
  void push(size_t Job, unsigned Chunk, unsigned Link, double OwnStart,
            const Env &E);

  /// Removes and returns the job that ranks first; nothing when no job is
  /// ready.
  std::optional<size_t> pop(const Env &E);

  /// Links looked at so far (postings taken from the heap of links,
  /// current or not): the queue's work, O(1) per pop plus one per link
  /// that a start made stale, whatever the number of jobs waiting.
  uint64_t linksLookedAt() const { return LookedAt; }

private:
  /// A job (or a link, by its best job) in a heap: least key first, then
  /// chunk, link.
  struct Entry {
    Key K;
    unsigned Chunk, Link;
    size_t Job;
    bool operator>(const Entry &B) const {
      return std::tie(K, Chunk, Link) > std::tie(B.K, B.Chunk, B.Link);
    }
  };
  /// A link (or a group, Group >= 0) in the heap of links: its best job's
  /// entry when posted, and the posting's number.
  struct Posting {
    Entry Best;
    uint64_t Number;
    int Group = -1;
    bool operator>(const Posting &B) const { return Best > B.Best; }
  };
  /// A link parked in a group: its best job's entry, keyed by the rest of
  /// the key (the start left at zero), and the link's placing number then.
  struct Parked {
    Entry Best;
    uint64_t Number;
    bool operator>(const Parked &B) const { return Best > B.Best; }
  };
  template <typename T>
  using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<T>>;
  enum class Where : uint8_t { None, Free, Waiting };
  /// A link's ready jobs.
  struct LinkJobs {
    /// Jobs that start at the link's time, by their keys at any one time.
    MinHeap<Entry> Free;
    /// Jobs that start later, by key, and by own start.
    MinHeap<Entry> Waiting;
    MinHeap<std::pair<double, size_t>> Soonest;
    /// Jobs in Waiting that have not moved on.
    size_t NumWaiting = 0;
    /// Numbers the link's placings (posted, or parked in a group); only
    /// the last one is current. Current is its entry (none: not placed);
    /// parked in a group, its key is the rest alone.
    uint64_t Posted = 0;
    std::optional<Entry> Current;
    bool IsParked = false;
  };
  /// A group's parked links, and its postings as for a link.
  struct GroupLinks {
    MinHeap<Parked> Links;
    uint64_t Posted = 0;
    std::optional<Entry> Current;
  };

  /// The job of link \p L that ranks first and its key, after moving the
  /// waiting jobs that now start at the link's time; nothing when none.
  /// \p Now is the link's time.
  std::optional<Entry> best(unsigned L, const LinkTime &Now, const Env &E);
  /// Places link \p L, whose time is \p Now and best job \p B: parked
  /// in the group that binds it when it may be, else posted to the heap of
  /// links under its best job's key.
  void place(unsigned L, const LinkTime &Now, const std::optional<Entry> &B,
             const Env &E);
  /// place() with the link's time and best job as they are now.
  void place(unsigned L, const Env &E);
  /// Posts group \p G under its best parked link's key at its time.
  void postGroup(unsigned G, const Env &E);
  /// Takes job \p Job of link \p L out to start.
  void take(unsigned L, size_t Job);
  /// Drops group \p G's parked links that have been placed again since.
  void dropStale(GroupLinks &GL);
  /// Pops \p Top, a group's posting: returns the job that ranks first when
  /// the posting is current and its best link starts at the group's time;
  /// else places again what went stale.
  std::optional<size_t> popGroup(const Posting &Top, const Env &E);

  /// Per job: which heap of its link holds it, and its chunk.
  std::vector<Where> At;
  std::vector<unsigned> ChunkOf;
  std::vector<LinkJobs> Links;
  std::vector<GroupLinks> Groups;
  /// Links by their best job's key when posted.
  MinHeap<Posting> ByLink;
  uint64_t LookedAt = 0;
};

} // namespace tacclc

#endif // TACCLC_PASSES_READYQUEUE_H
