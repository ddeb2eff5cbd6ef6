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
// first (a start makes stale only the links sharing a port with it, not
// every job waiting behind them, as one queue of jobs would).
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
  /// When a link could next start a job whose chunk is already there.
  using LinkStartFn = llvm::function_ref<double(unsigned Link)>;

  /// Room for jobs numbered below \p NumJobs on links below \p NumLinks.
  ReadyQueue(size_t NumJobs, size_t NumLinks);

  /// Adds job \p Job of chunk \p Chunk on link \p Link, whose own start
  /// (see the file comment) is \p OwnStart.
  void push(size_t Job, unsigned Chunk, unsigned Link, double OwnStart,
            KeyFn KeyOf, LinkStartFn LinkStart);

  /// Removes and returns the job that ranks first; nothing when no job is
  /// ready.
  std::optional<size_t> pop(KeyFn KeyOf, LinkStartFn LinkStart);

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
  /// A link in the heap of links: its best job's entry when posted, and
  /// the posting's number.
  struct Posting {
    Entry Best;
    uint64_t Number;
    bool operator>(const Posting &B) const { return Best > B.Best; }
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
    /// Numbers the link's postings in the heap of links; only the last
    /// one is current, and Current is its entry (none: not posted).
    uint64_t Posted = 0;
    std::optional<Entry> Current;
  };

  /// The job of link \p L that ranks first and its key, after moving the
  /// waiting jobs that now start at the link's time; nothing when none.
  std::optional<Entry> best(unsigned L, KeyFn KeyOf, LinkStartFn LinkStart);
  /// Posts link \p L's best job to the heap of links.
  void post(unsigned L, KeyFn KeyOf, LinkStartFn LinkStart);
  /// Posts \p B as link \p L's best job, or records that it has none.
  void post(unsigned L, const std::optional<Entry> &B);

  /// Per job: which heap of its link holds it, and its chunk.
  std::vector<Where> At;
  std::vector<unsigned> ChunkOf;
  std::vector<LinkJobs> Links;
  /// Links by their best job's key when posted.
  MinHeap<Posting> ByLink;
  uint64_t LookedAt = 0;
};

} // namespace tacclc

#endif // TACCLC_PASSES_READYQUEUE_H
