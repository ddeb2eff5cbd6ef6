//===- passes/ListSchedule.cpp - Greedy list scheduling -------------------===//
//
// Algorithm:
//   1. every route link (c, l) is a job; it becomes ready when chunk c has
//      arrived at l's source (at pre ranks: time 0, or the chunk's release
//      when the schedule continues another; that one's transfers hold the
//      lanes and ports they use until they have moved their data);
//   2. repeatedly start the ready job that ranks first under the ordering
//      heuristic, by its earliest possible start, the longest path below
//      it, the work below it summed over branches, and whether it stays in
//      the chunk's first node; then lower chunk, then lower link; with
//      `sender first`, a chunk relayed over a link to another node waits
//      until the sender's own chunks on that link have started;
//      the ready jobs wait by link (passes/ReadyQueue.h), so a step costs
//      O(log n) plus the links sharing a port with the last one started,
//      not a scan of every ready job (batches, whose heads change as their
//      chunks arrive, are still scanned);
//   3. times follow passes/TimeModel.h: the message is posted once it is
//      ready, its lane has posted the one before it and the lane's FIFO
//      has room (the FIFO's worth of messages back has landed); its data
//      moves after its hop latency, once its lane (parallel links give
//      several) and every shared port it uses have moved the data before
//      it. Its start is the data's start less the hop latency, its end
//      when the data has landed, which releases the jobs leaving the
//      link's destination.
// Deterministic by construction: no hashing, total order on ties.
//
//===----------------------------------------------------------------------===//
#include "passes/ListSchedule.h"
#include "passes/ExactSchedule.h"
#include "passes/ReadyQueue.h"
#include "passes/TimeModel.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
struct Job {
  ChunkId Chunk;
  LinkId Link;
  double Ready = std::numeric_limits<double>::infinity();
  double Remaining = 0; ///< Longest cost from this link to a leaf, inclusive.
  double Below = 0;     ///< Total cost of this link and all below it.
  bool OwnNode = false; ///< Both ends in the node where the chunk starts.
  bool Done = false;
};

/// The heuristic's sort key of a job that could start at \p Start (lower
/// ranks first); ties are broken by the caller.
std::array<double, 3> sortKey(Ordering O, const Job &J, double Start) {
  switch (O) {
  case Ordering::EarliestStart:
    return {Start, -J.Remaining, 0};
  case Ordering::CriticalPath:
    return {-J.Remaining, Start, 0};
  case Ordering::OwnNodeFirst:
    return {Start, J.OwnNode ? 0.0 : 1.0, -J.Remaining};
  case Ordering::WidestSubtree:
    return {-J.Below, Start, 0};
  case Ordering::Batched:
    return {Start, -J.Remaining, 0};
  }
  return {Start, 0, 0};
}

/// Lexicographic comparison with a relative tolerance, so that times that
/// differ by rounding compare equal and fall to the tie-breaks.
int compareKeys(const std::array<double, 3> &A,
                const std::array<double, 3> &B) {
  for (size_t I = 0; I < A.size(); ++I) {
    double Tol = 1e-12 * std::max({1.0, std::fabs(A[I]), std::fabs(B[I])});
    if (A[I] < B[I] - Tol)
      return -1;
    if (A[I] > B[I] + Tol)
      return 1;
  }
  return 0;
}
} // namespace

Schedule tacclc::scheduleTransfers(const Sketch &S, const Routes &R,
                                   Ordering O) {
  return std::move(*listSchedule(S, R, O, Deadline()));
}

namespace {
/// The list scheduler of one ordering heuristic (see the file comment):
/// the jobs, the batches, and the state of every lane and shared port.
class ListScheduler {
public:
  ListScheduler(const Sketch &S, const Routes &R, Ordering O,
                const ListStart &From)
      : S(S), Topo(S.Topo), TM(S), O(O), Fifo(TM.fifoMessages(1)),
        Ports(Topo.resources()), PortFree(Ports.size(), 0.0),
        PortsOf(Topo.links().size()), OwnPending(Topo.links().size(), 0),
        Held(Topo.links().size()) {
    size_t NumJobs = 0;
    for (const ChunkRoute &CR : R.Chunks)
      NumJobs += CR.Links.size();
    Jobs.reserve(NumJobs);
    for (const ChunkRoute &CR : R.Chunks) {
      checkDeadline();
      addChunkJobs(CR, From);
    }
    if (O == Ordering::Batched)
      formBatches();
    else
      BatchOf.assign(Jobs.size(), -1);
    initLanes(From);
    if (S.SenderFirst)
      for (const Job &J : Jobs)
        if (crossesNodes(J.Link) && isOwn(J))
          ++OwnPending[J.Link.index()];
  }

  /// Starts every job in turn; nothing once \p GiveUp has passed.
  std::optional<Schedule> run(const Deadline &GiveUp) {
    // Without batches, the ready jobs wait in a queue; with them, in a list
    // that pickNext() scans (a batch's head changes as its jobs arrive).
    UseQueue = Batches.empty();
    if (UseQueue) {
      GroupsOf.resize(Topo.links().size());
      formGroups();
      Queue.emplace(Jobs.size(), Topo.links().size(), GroupPort.size());
    }
    for (size_t I = 0; I < Jobs.size(); ++I)
      if (Jobs[I].Ready != std::numeric_limits<double>::infinity())
        makeReady(I);
    Schedule Out;
    Continue = Jobs.size();
    for (size_t Left = Jobs.size(); Left > 0; --Left) {
      checkDeadline();
      if (GiveUp.hasPassed())
        return std::nullopt;
      Choice Next = UseQueue ? popNext() : pickNext();
      if (Next.JobIdx == Jobs.size())
        reportInternalError("list scheduler: no transfer can start");
      start(Next, Out);
    }
    Out.sortTransfers();
    return Out;
  }

private:
  /// Lanes per link: when each has moved its data, posted its last
  /// message, and when its messages in flight land.
  struct Lane {
    double DataFree = 0, Posted = 0;
    std::deque<double> Landings; ///< The last FIFO's worth.
  };
  /// The job to start next, its position in Ready, its lane, start and
  /// post times and sort key (JobIdx is Jobs.size() for none).
  struct Choice {
    size_t JobIdx, Pos = 0, LaneIdx = 0;
    double Start = 0, Post = 0;
    std::array<double, 3> Key{};
  };
  /// Adds the jobs of chunk route \p CR: their children (jobs of the same
  /// chunk leaving their destination), ready times at pre ranks and path
  /// lengths below them.
  void addChunkJobs(const ChunkRoute &CR, const ListStart &From) {
    size_t First = Jobs.size();
    for (LinkId L : CR.Links)
      Jobs.push_back({CR.Chunk, L});
    Children.resize(Jobs.size());
    // The chunk's jobs by the rank they leave (then by index), so that the
    // children of a job are those leaving its destination, in order.
    std::vector<std::pair<unsigned, size_t>> Leaving;
    for (size_t J = First; J < Jobs.size(); ++J)
      Leaving.push_back({Topo.link(Jobs[J].Link).Src.index(), J});
    std::sort(Leaving.begin(), Leaving.end());
    for (size_t I = First; I < Jobs.size(); ++I) {
      RankId Src = Topo.link(Jobs[I].Link).Src;
      if (S.Coll.isPre(CR.Chunk, Src))
        Jobs[I].Ready =
            From.Release.empty() ? 0.0 : From.Release.at(CR.Chunk.index());
      unsigned Dst = Topo.link(Jobs[I].Link).Dst.index();
      for (auto It = std::lower_bound(Leaving.begin(), Leaving.end(),
                                      std::make_pair(Dst, size_t(0)));
           It != Leaving.end() && It->first == Dst; ++It)
        Children[I].push_back(It->second);
    }
    // Remaining path lengths, leaves first (links are parent-first).
    unsigned SourceNode = Topo.nodeOf(S.Coll.chunk(CR.Chunk).Source);
    for (size_t I = Jobs.size(); I-- > First;) {
      double Longest = 0, Sum = 0;
      for (size_t C : Children[I]) {
        Longest = std::max(Longest, Jobs[C].Remaining);
        Sum += Jobs[C].Below;
      }
      const Link &L = Topo.link(Jobs[I].Link);
      Jobs[I].Remaining = TM.costUs(Jobs[I].Link) + Longest;
      Jobs[I].Below = TM.costUs(Jobs[I].Link) + Sum;
      Jobs[I].OwnNode =
          Topo.nodeOf(L.Src) == SourceNode && Topo.nodeOf(L.Dst) == SourceNode;
    }
  }

  /// Batches (Ordering::Batched): per contiguous link, its jobs in output
  /// order, cut where two neighbours may not share a message or a batch is
  /// full; a batch of one is none. BatchOf[I] is job I's batch, whose jobs
  /// not yet started are Batches[B], the next first.
  void formBatches() {
    BatchOf.assign(Jobs.size(), -1);
    std::map<unsigned, std::vector<size_t>> OnLink;
    for (size_t I = 0; I < Jobs.size(); ++I)
      OnLink[Jobs[I].Link.index()].push_back(I);
    for (auto &[L, Js] : OnLink) {
      std::sort(Js.begin(), Js.end(), [&](size_t A, size_t B) {
        return S.Coll.chunk(Jobs[A].Chunk).OutputIndex <
               S.Coll.chunk(Jobs[B].Chunk).OutputIndex;
      });
      std::vector<size_t> Run;
      auto Close = [&] {
        if (Run.size() > 1) {
          for (size_t J : Run)
            BatchOf[J] = int(Batches.size());
          Batches.push_back(Run);
        }
        Run.clear();
      };
      for (size_t K = 0; K < Js.size(); ++K) {
        if (!Run.empty() && (Run.size() == MaxChunksPerMessage ||
                             !mayShareMessage(S, Jobs[Run.back()].Chunk,
                                              Jobs[Js[K]].Chunk, LinkId(L))))
          Close();
        Run.push_back(Js[K]);
      }
      Close();
    }
  }

  /// The lanes and shared ports of every link, holding the transfers of
  /// the schedule \p From continues until they have moved their data.
  void initLanes(const ListStart &From) {
    for (const Link &L : Topo.links())
      Lanes.emplace_back(L.Multiplicity);
    for (size_t P = 0; P < Ports.size(); ++P)
      for (LinkId L : Ports[P].Links)
        PortsOf[L.index()].push_back(P);
    if (!From.Busy)
      return;
    // The busy transfers by landing, so that each lane keeps the last
    // FIFO's worth of them in flight.
    std::vector<const Transfer *> Busy;
    for (const Transfer &T : From.Busy->Transfers)
      Busy.push_back(&T);
    std::stable_sort(Busy.begin(), Busy.end(),
                     [](const Transfer *A, const Transfer *B) {
                       return A->EndUs < B->EndUs;
                     });
    for (const Transfer *T : Busy) {
      Lane &Ln = Lanes.at(T->Link.index()).at(T->Lane);
      Ln.DataFree = std::max(Ln.DataFree, T->EndUs);
      Ln.Posted = std::max(Ln.Posted, T->StartUs);
      Ln.Landings.push_back(T->EndUs);
      if (Ln.Landings.size() > Fifo)
        Ln.Landings.pop_front();
      for (size_t P : PortsOf[T->Link.index()])
        PortFree[P] = std::max(PortFree[P], T->EndUs);
    }
  }

  /// True if job \p J sends its chunk from the rank where it starts.
  bool isOwn(const Job &J) const {
    return S.Coll.chunk(J.Chunk).Source == Topo.link(J.Link).Src;
  }
  /// True if `sender first` keeps job \p J back: its link's own chunks
  /// have not all started.
  bool heldBack(const Job &J) const {
    return OwnPending[J.Link.index()] > 0 && !isOwn(J);
  }
  bool crossesNodes(LinkId L) const {
    return Topo.nodeOf(Topo.link(L).Src) != Topo.nodeOf(Topo.link(L).Dst);
  }

  /// A batched job may start when it is its batch's next and every job of
  /// the batch has arrived; \p Earliest is then the last arrival.
  bool batchReady(size_t I, double &Earliest) const {
    int B = BatchOf[I];
    if (B < 0)
      return true;
    const std::vector<size_t> &Js = Batches[B];
    if (Js.front() != I)
      return false;
    for (size_t J : Js) {
      if (Jobs[J].Ready == std::numeric_limits<double>::infinity())
        return false;
      Earliest = std::max(Earliest, Jobs[J].Ready);
    }
    return true;
  }

  /// When a job ready at \p Earliest could post its message on link
  /// \p L, and when its data could start moving: on the lane where that is
  /// earliest (\p LaneOut).
  double timing(LinkId L, double Earliest, size_t &LaneOut,
                double &Post) const {
    double Best = std::numeric_limits<double>::infinity();
    const std::vector<Lane> &Ls = Lanes[L.index()];
    for (size_t K = 0; K < Ls.size(); ++K) {
      double P = std::max(Earliest, Ls[K].Posted);
      if (Ls[K].Landings.size() >= Fifo)
        P = std::max(P, Ls[K].Landings.front());
      double Data = std::max(P + TM.hopUs(L), Ls[K].DataFree);
      if (Data < Best) {
        Best = Data;
        LaneOut = K;
        Post = P;
      }
    }
    for (size_t Pt : PortsOf[L.index()])
      Best = std::max(Best, PortFree[Pt]);
    return Best;
  }

  /// Job \p I's lane, times and sort key if it may start now (with
  /// \p UseBatches: only as its batch allows).
  std::optional<Choice> evaluate(size_t I, bool UseBatches) const {
    const Job &J = Jobs[I];
    if (heldBack(J))
      return std::nullopt;
    double Earliest = J.Ready;
    if (UseBatches && !batchReady(I, Earliest))
      return std::nullopt;
    Choice C{I};
    C.Start = timing(J.Link, Earliest, C.LaneIdx, C.Post) - TM.hopUs(J.Link);
    C.Key = sortKey(O, J, C.Start);
    return C;
  }

  /// The ready job that ranks first under the ordering (ties: lower chunk,
  /// then lower link). With batches, a pass may find nothing to start when
  /// batches wait on each other through chunks they relay; the next pass
  /// ignores them.
  Choice pickNext() const {
    Choice Best;
    Best.JobIdx = Jobs.size();
    for (bool UseBatches : {true, false}) {
      if (Best.JobIdx != Jobs.size())
        break;
      for (size_t Pos = 0; Pos < Ready.size(); ++Pos) {
        size_t I = Ready[Pos];
        if (UseBatches && Continue != Jobs.size() && I != Continue)
          continue;
        std::optional<Choice> C = evaluate(I, UseBatches);
        if (!C)
          continue;
        const Job &J = Jobs[I];
        int Cmp =
            Best.JobIdx == Jobs.size() ? -1 : compareKeys(C->Key, Best.Key);
        if (Cmp < 0 ||
            (Cmp == 0 && std::make_pair(J.Chunk.index(), J.Link.index()) <
                             std::make_pair(Jobs[Best.JobIdx].Chunk.index(),
                                            Jobs[Best.JobIdx].Link.index()))) {
          Best = *C;
          Best.Pos = Pos;
        }
      }
    }
    return Best;
  }

  /// pickNext() without batches, from the queue of ready jobs. A job held
  /// back by `sender first` waits beside the queue until its link's own
  /// chunks have started (it is held when it becomes ready: the number of
  /// own chunks pending only falls).
  Choice popNext() {
    std::optional<size_t> Job = Queue->pop(env());
    if (!Job) {
      Choice None;
      None.JobIdx = Jobs.size();
      return None;
    }
    std::optional<Choice> C = evaluate(*Job, false);
    if (!C)
      reportInternalError("list scheduler: a queued transfer is held back");
    return *C;
  }

  /// Makes job \p I ready to start: queued, held or listed.
  void makeReady(size_t I) {
    if (!UseQueue) {
      Ready.push_back(I);
      return;
    }
    const Job &J = Jobs[I];
    if (heldBack(J)) {
      Held[J.Link.index()].push_back(I);
      return;
    }
    // Its start if the link were idle: timing() adds the hop latency to
    // the ready time and start() takes it off again, rounding both ways.
    double Hop = TM.hopUs(J.Link);
    double Own = (J.Ready + Hop) - Hop;
    Queue->push(I, J.Chunk.index(), J.Link.index(), Own, env());
  }

  /// The queue's view of a job's key if it started at \p Start: the
  /// heuristic's key on a grid of 2^-20 us, so that times equal but for
  /// rounding fall to the tie-breaks (rounding keeps their order).
  ReadyQueue::Key roundedKey(size_t I, double Start) const {
    ReadyQueue::Key K = sortKey(O, Jobs[I], Start);
    for (double &X : K)
      X = std::nearbyint(X * 1048576.0) / 1048576.0;
    return K;
  }
  /// The queue's view of a link: when it could start a job whose chunk is
  /// already there (its lanes, FIFO and ports permitting), and the group
  /// of a port that holds it until then, if one does.
  ReadyQueue::LinkTime linkStart(unsigned L) const {
    size_t Lane = 0;
    double Post = 0;
    const double Data =
        timing(LinkId(L), std::numeric_limits<double>::lowest(), Lane, Post);
    ReadyQueue::LinkTime Out{Data - TM.hopUs(LinkId(L))};
    for (auto [Pt, G] : GroupsOf[L])
      if (PortFree[Pt] == Data) {
        Out.Group = int(G);
        break;
      }
    return Out;
  }
  /// A group's time: its port's, less its links' hop latency (no later
  /// than the start of any of its links, as timing() computes it).
  double groupTime(unsigned G) const {
    return PortFree[GroupPort[G]] - GroupHop[G];
  }
  /// Groups for the queue: per shared port, its links of one hop latency.
  void formGroups() {
    std::map<std::pair<size_t, double>, unsigned> Ids;
    for (size_t P = 0; P < Ports.size(); ++P)
      for (LinkId L : Ports[P].Links) {
        auto [It, New] =
            Ids.try_emplace({P, TM.hopUs(L)}, unsigned(Ids.size()));
        if (New) {
          GroupPort.push_back(P);
          GroupHop.push_back(TM.hopUs(L));
        }
        GroupsOf[L.index()].push_back({P, It->second});
      }
  }
  ReadyQueue::Env env() const { return {KeyOf, LinkStartOf, GroupTimeOf}; }

  /// Starts the chosen job: its lane, ports, batch and children follow,
  /// and its transfer joins \p Out.
  void start(const Choice &C, Schedule &Out) {
    if (!UseQueue)
      Ready.erase(Ready.begin() + C.Pos);
    Job &J = Jobs[C.JobIdx];
    J.Done = true;
    // A batch, once started, sends all its jobs back to back: nothing else
    // takes its link or ports in between, so that stage 3 may make them
    // one message. Continue is the started batch's next job, if any.
    if (BatchOf[C.JobIdx] >= 0) {
      // Later jobs of the batch now come after this one; a job started out
      // of turn (the fallback pass) leaves its batch.
      std::vector<size_t> &Js = Batches[BatchOf[C.JobIdx]];
      Js.erase(std::find(Js.begin(), Js.end(), C.JobIdx));
      BatchOf[C.JobIdx] = -1;
      Continue = Js.empty() ? Jobs.size() : Js.front();
    } else {
      Continue = Jobs.size();
    }
    double End = C.Start + TM.costUs(J.Link);
    Lane &Ln = Lanes[J.Link.index()][C.LaneIdx];
    Ln.DataFree = End;
    Ln.Posted = C.Post;
    Ln.Landings.push_back(End);
    if (Ln.Landings.size() > Fifo)
      Ln.Landings.pop_front();
    for (size_t P : PortsOf[J.Link.index()])
      PortFree[P] = End;
    if (S.SenderFirst && crossesNodes(J.Link) && isOwn(J) &&
        --OwnPending[J.Link.index()] == 0)
      for (size_t H : std::exchange(Held[J.Link.index()], {}))
        makeReady(H);
    for (size_t Ch : Children[C.JobIdx]) {
      Jobs[Ch].Ready = End;
      makeReady(Ch);
    }
    Out.Transfers.push_back(
        {J.Chunk, J.Link, C.Start, End, unsigned(C.LaneIdx)});
    Out.MakespanUs = std::max(Out.MakespanUs, End);
  }

  const Sketch &S;
  const Topology &Topo;
  const TimeModel TM;
  const Ordering O;
  const unsigned Fifo;
  std::vector<Job> Jobs;
  std::vector<std::vector<size_t>> Children;
  std::vector<int> BatchOf;
  std::vector<std::vector<size_t>> Batches;
  std::vector<std::vector<Lane>> Lanes;
  const std::vector<Resource> Ports;
  std::vector<double> PortFree;
  std::vector<std::vector<size_t>> PortsOf;
  /// Own chunks still to start per link (with `sender first`).
  std::vector<unsigned> OwnPending;
  bool UseQueue = false;
  std::optional<ReadyQueue> Queue;
  /// roundedKey(), linkStart() and groupTime(), as the queue calls them.
  std::function<ReadyQueue::Key(size_t, double)> KeyOf =
      [this](size_t I, double Start) { return roundedKey(I, Start); };
  std::function<ReadyQueue::LinkTime(unsigned)> LinkStartOf =
      [this](unsigned L) { return linkStart(L); };
  std::function<double(unsigned)> GroupTimeOf = [this](unsigned G) {
    return groupTime(G);
  };
  /// Per link, its ports and their groups; per group, its port and hop.
  std::vector<std::vector<std::pair<size_t, unsigned>>> GroupsOf;
  std::vector<size_t> GroupPort;
  std::vector<double> GroupHop;
  /// Per link, ready jobs held back by `sender first` (queue mode).
  std::vector<std::vector<size_t>> Held;
  /// Ready jobs (list mode).
  std::vector<size_t> Ready;
  size_t Continue = 0;
};
} // namespace

std::optional<Schedule> tacclc::listSchedule(const Sketch &S, const Routes &R,
                                             Ordering O, const Deadline &GiveUp,
                                             const ListStart &From) {
  return ListScheduler(S, R, O, From).run(GiveUp);
}
