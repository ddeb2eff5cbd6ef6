//===- tests/unit/codegen/CodegenTest.cpp - Lowering on fixed schedules ---===//
//
// Lowering without the solver: hand-made routes on small topologies, timed
// by the list scheduler (or hand-made schedules), lowered, and the
// program's shape checked (relay fusion, scratch for relays, channel
// segments, parallel instances); a fusion that once deadlocked is also
// proven by the checker.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "checker/Checker.h"
#include "codegen/LoweringInternal.h"
#include "format/Loader.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"
#include "passes/TimeModel.h"
#include "tests/unit/codegen/CodegenTestUtil.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <set>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::test;

namespace {
/// A unidirectional ring of \p N ranks.
Sketch ring(unsigned N, Collective Coll) {
  return ringSketch("ring", N, std::move(Coll));
}

Program lower(const Sketch &S, const CodegenOptions &Opts = {}) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  auto P = lowerToProgram(S, scheduleTransfers(S, clockwise(S)), Opts, Diags);
  REQUIRE(P);
  return *P;
}

unsigned count(const Program &P, OpType T) {
  unsigned N = 0;
  for (const GpuProgram &G : P.Gpus)
    for (const ThreadBlock &Tb : G.Tbs)
      for (const Step &St : Tb.Steps)
        N += St.Type == T;
  return N;
}
} // namespace

TEST_CASE("a ring allgather lowers to one rcs threadblock per rank") {
  Sketch S = ring(4, Collective::allGather(4, 1));
  Program P = lower(S);
  CHECK(P.InPlace);
  CHECK(P.OutOfPlace);
  for (const GpuProgram &G : P.Gpus) {
    REQUIRE(G.Tbs.size() == 1);
    CHECK(G.Tbs[0].Send >= 0);
    CHECK(G.Tbs[0].Recv >= 0);
    CHECK(G.SChunks == 0);
  }
  // Each rank forwards two of the three chunks it receives.
  CHECK(count(P, OpType::RecvCopySend) == 8);
  CHECK(count(P, OpType::Recv) == 4);
  CHECK(count(P, OpType::Copy) == 4);

  CodegenOptions NoFuse;
  NoFuse.FuseRelays = false;
  Program U = lower(S, NoFuse);
  CHECK(count(U, OpType::RecvCopySend) == 0);
  CHECK(U.Gpus[0].Tbs.size() == 2);
}

TEST_CASE("alltoall relays keep chunks in scratch") {
  Sketch S = ring(3, Collective::make(CollectiveKind::AllToAll, 3, 1));
  Program P = lower(S);
  CHECK_FALSE(P.InPlace);
  CHECK(P.NChunksPerLoop == 3);
  // Rank r relays exactly one chunk (from r-1 to r+1).
  for (const GpuProgram &G : P.Gpus)
    CHECK(G.SChunks == 1);
}

TEST_CASE("a link with more transfers than steps per tb uses more channels") {
  Sketch S = ring(2, Collective::allGather(2, 10));
  CodegenOptions Small;
  Small.MaxStepsPerTb = 16; // 10 copies leave 6 steps for sends on rank 0
  Program P = lower(S, Small);
  CHECK(P.NChannels == 2);
  for (const GpuProgram &G : P.Gpus)
    for (const ThreadBlock &Tb : G.Tbs)
      CHECK(Tb.Steps.size() <= 16);
}

TEST_CASE("a rank with more XML elements than the reader keeps is refused") {
  // Ring allgather of 4 ranks, 4 chunks each: rank 0 has the algorithm, 4
  // <gpu> entries, its threadblocks and their steps.
  Sketch S = ring(4, Collective::allGather(4, 4));
  Program P = lower(S);
  size_t Nodes = 1 + 4 + P.Gpus[0].Tbs.size();
  for (const ThreadBlock &Tb : P.Gpus[0].Tbs)
    Nodes += Tb.Steps.size();
  CodegenOptions Tight;
  Tight.MaxXmlNodesPerRank = unsigned(Nodes) - 1;
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  CHECK_FALSE(
      lowerToProgram(S, scheduleTransfers(S, clockwise(S)), Tight, Diags));
  CHECK(Diags.hasErrors());
  Tight.MaxXmlNodesPerRank = unsigned(Nodes);
  CHECK(lowerToProgram(S, scheduleTransfers(S, clockwise(S)), Tight, Diags));
}

TEST_CASE("too many XML elements: links between nodes may be contiguous") {
  // The ring of 4 on 2 nodes of 2, the links between nodes of class `ib`:
  // the refusal names the class to mark `contiguous`, unless it is.
  Sketch S = ring(4, Collective::allGather(4, 4));
  Topology T("two", 2, 2);
  int Ib = T.addClass({"ib", 1.0, 1e-6});
  for (const Link &L : S.Topo.links()) {
    Link Copy = L;
    if (T.nodeOf(L.Src) != T.nodeOf(L.Dst))
      Copy.Class = Ib;
    T.addLink(Copy);
  }
  S.Topo = std::move(T);
  CodegenOptions Tight;
  Tight.MaxXmlNodesPerRank = 8;
  for (bool Contiguous : {false, true}) {
    CAPTURE(Contiguous);
    S.ContiguousClasses.assign(1, Contiguous);
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM);
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    CHECK_FALSE(
        lowerToProgram(S, scheduleTransfers(S, clockwise(S)), Tight, Diags));
    Diags.flush(OS);
    CHECK(OS.str().find("XML elements") != std::string::npos);
    CHECK((OS.str().find("`contiguous ib`") != std::string::npos) ==
          !Contiguous);
  }
}

TEST_CASE("instances replicate threadblocks on their own channels") {
  Sketch S = ring(4, Collective::allGather(4, 1));
  Program P = lower(S);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  REQUIRE(replicateInstances(P, 2, CodegenOptions(), {}, Diags));
  CHECK(P.NChannels == 2);
  CHECK(P.NChunksPerLoop == 8);
  const GpuProgram &G = P.Gpus[1];
  REQUIRE(G.Tbs.size() == 2);
  CHECK(G.Tbs[0].Chan == 0);
  CHECK(G.Tbs[1].Chan == 1);
  // Copy i moves subchunk 2*j+i of chunk j.
  CHECK(G.Tbs[0].Steps[0].SrcOff == 0);
  CHECK(G.Tbs[1].Steps[0].SrcOff == 1);
  CHECK(G.Tbs[1].Steps[0].DstOff == 2 * 1 + 1);
  // Too many instances for the dependency-target limit is a diagnostic.
  CodegenOptions Tight;
  Tight.MaxTbsPerRank = 3;
  CHECK_FALSE(replicateInstances(P, 2, Tight, {}, Diags));
  CHECK(Diags.hasErrors());
}

namespace {
/// A ring of \p N ranks with links both ways (a symmetric topology).
Sketch bidirRing(unsigned N, Collective Coll) {
  Sketch S = ring(N, std::move(Coll));
  for (unsigned R = 0; R < N; ++R)
    S.Topo.addLink({RankId((R + 1) % N), RankId(R), 1.0, 1e-6});
  return S;
}

/// Lowers a combining collective the way the compiler does: the dual routed
/// clockwise, scheduled, then run backwards (and forwards for allreduce).
Program lowerReduction(const Sketch &S, const CodegenOptions &Opts = {}) {
  REQUIRE(S.Topo.isSymmetric());
  Sketch Dual = dualSketch(S, /*Transpose=*/false);
  Schedule Up = scheduleTransfers(Dual, clockwise(Dual));
  Schedule Sch = reverseForReduction(S, Up, false, &Up);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  auto P = lowerToProgram(S, Sch, Opts, Diags);
  REQUIRE(P);
  return *P;
}

unsigned totalSteps(const Program &P) {
  unsigned N = 0;
  for (const GpuProgram &G : P.Gpus)
    for (const ThreadBlock &Tb : G.Tbs)
      N += Tb.Steps.size();
  return N;
}
} // namespace

TEST_CASE("a reversed ring allgather is the ring reduce-scatter") {
  Sketch S =
      bidirRing(4, Collective::make(CollectiveKind::ReduceScatter, 4, 1));
  Program P = lowerReduction(S);
  CHECK(P.Coll == tacclrt::CollKind::ReduceScatter);
  CHECK(P.InPlace);
  // Each chunk: the farthest rank sends its input, two ranks reduce and
  // forward without storing (rrs), the owner reduces into its output.
  CHECK(count(P, OpType::Send) == 4);
  CHECK(count(P, OpType::RecvReduceSend) == 8);
  CHECK(count(P, OpType::RecvReduceCopy) == 4);
  CHECK(count(P, OpType::Recv) == 0);
  for (const GpuProgram &G : P.Gpus) {
    CHECK(G.SChunks == 0);
    CHECK(G.IChunks == 4);
    CHECK(G.OChunks == 1);
  }
  // The owner's reduction reads its own input and lands in its output.
  bool OwnerOk = false;
  for (const ThreadBlock &Tb : P.Gpus[2].Tbs)
    for (const Step &St : Tb.Steps)
      if (St.Type == OpType::RecvReduceCopy)
        OwnerOk = St.DstBuf == Buffer::Output && St.DstOff == 0 &&
                  St.SrcBuf == Buffer::Input && St.SrcOff == 2;
  CHECK(OwnerOk);
}

TEST_CASE("a ring allreduce needs no scratch and fuses every relay") {
  Sketch S = bidirRing(4, Collective::make(CollectiveKind::AllReduce, 4, 1));
  Program P = lowerReduction(S);
  for (const GpuProgram &G : P.Gpus)
    CHECK(G.SChunks == 0);
  // Up (counter-clockwise): 4 sends of inputs, 8 reduce-and-forward steps
  // (the partial sums land in the output, to be overwritten), 4 final
  // reductions; down (clockwise): 4 sends of the sums, 8 forwards, 4 last
  // receives. (A final reduction and the first send of its sum go to the
  // same peer on two threadblocks that already fuse the two directions'
  // relays, so they stay apart.)
  CHECK(count(P, OpType::Send) == 8);
  CHECK(count(P, OpType::RecvReduceCopySend) == 8);
  CHECK(count(P, OpType::RecvReduceCopy) == 4);
  CHECK(count(P, OpType::RecvCopySend) == 8);
  CHECK(count(P, OpType::Recv) == 4);
  CHECK(totalSteps(P) == 32);
}

TEST_CASE("reduce is a broadcast run backwards; non-roots never write "
          "output") {
  Sketch S =
      bidirRing(4, Collective::make(CollectiveKind::Reduce, 4, 2, RankId(1)));
  Program P = lowerReduction(S);
  CHECK(P.Root == 1);
  for (unsigned R = 0; R < 4; ++R)
    for (const ThreadBlock &Tb : P.Gpus[R].Tbs)
      for (const Step &St : Tb.Steps)
        if (R != 1 && St.Type != OpType::Send &&
            St.Type != OpType::RecvReduceSend)
          CHECK(St.DstBuf != Buffer::Output);
}

TEST_CASE("back-to-back chunks over a contiguous class share a step") {
  Sketch S = ring(4, Collective::allGather(4, 2));
  S.Topo = Topology("ring", 4);
  int Slow = S.Topo.addClass({"slow", 20.0, 1e-6});
  for (unsigned R = 0; R < 4; ++R) {
    Link L{RankId(R), RankId((R + 1) % 4), 20.0, 1e-6};
    L.Class = Slow;
    S.Topo.addLink(L);
  }
  S.ContiguousClasses = {true};
  Program P = lower(S);
  unsigned Pairs = 0;
  for (const GpuProgram &G : P.Gpus)
    for (const ThreadBlock &Tb : G.Tbs)
      for (const Step &St : Tb.Steps) {
        CHECK(St.Cnt <= 2);
        Pairs += St.Cnt == 2;
      }
  // Per rank: one cpy, one send, two rcs and one receive, all of pairs.
  CHECK(Pairs == 4 * 5);
  CodegenOptions NoMerge;
  NoMerge.MergeContiguous = false;
  Program Q = lower(S, NoMerge);
  CHECK(totalSteps(Q) > totalSteps(P));
  for (const GpuProgram &G : Q.Gpus)
    for (const ThreadBlock &Tb : G.Tbs)
      for (const Step &St : Tb.Steps)
        CHECK(St.Cnt == 1);
}

namespace {
/// What the checker says about \p P (empty: it verifies).
std::string checkErrors(const Program &P, const std::string &Name) {
  std::string Xml = tacclrt::writePlan(P, tacclrt::Dialect::Executor);
  tacclrt::Report Rep;
  auto Algo = tacclrt::loadPlan(Xml, Name, tacclrt::LoadOptions(), Rep);
  if (!Algo)
    return Rep.str();
  Rep.append(tacclrt::checkPlan(*Algo, Name));
  return Rep.hasErrors() ? Rep.str() : std::string();
}

/// \p Sch lowered with the default options; it must lower and verify.
Program lowerVerified(const Sketch &S, const Schedule &Sch) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  auto P = lowerToProgram(S, Sch, CodegenOptions(), Diags);
  REQUIRE(P);
  std::string Errors = checkErrors(*P, S.Name);
  CHECK_MESSAGE(Errors.empty(), Errors);
  return *P;
}
} // namespace

TEST_CASE("relays of one threadblock share a scratch slot") {
  // Gather to rank 2 around a ring: rank 1 forwards four chunks of ranks 3
  // and 0 and rank 0 two of rank 3. The relays fused into rcs steps of a
  // rank's one threadblock share one slot. The schedule overlaps a
  // connection's messages as its FIFO lets it (8 messages of one step
  // here); ordered for that FIFO, as the driver lowers first, every relay
  // fuses, and the program still runs with a FIFO of one message.
  Sketch S = ring(4, Collective::make(CollectiveKind::Gather, 4, 2, RankId(2)));
  CodegenOptions Fifo;
  Fifo.FifoMessages = TimeModel(S).fifoMessages(1);
  REQUIRE(Fifo.FifoMessages == 8);
  Program P = lower(S, Fifo);
  CHECK(count(P, OpType::RecvCopySend) == 6);
  CHECK(P.Gpus[1].SChunks == 1);
  CHECK(P.Gpus[0].SChunks == 1);
  CHECK(P.Gpus[3].SChunks == 0);
  CHECK(checkErrors(P, S.Name).empty());
  // Ordered for a FIFO of one message, rank 1's relays would hold up the
  // next message on the receiving connection: they stay apart, a slot per
  // chunk, and only rank 0's fuse.
  Program One = lower(S);
  CHECK(count(One, OpType::RecvCopySend) == 2);
  CHECK(One.Gpus[1].SChunks == 4);
  CodegenOptions NoFuse;
  NoFuse.FuseRelays = false; // receive and send apart: a slot per chunk
  CHECK(lower(S, NoFuse).Gpus[1].SChunks == 4);
}

TEST_CASE("a relayed chunk forwarded twice fuses only with its first "
          "forward") {
  // Broadcast from rank 1 of chunks c (0) and w (1) on a hand-made
  // schedule (times in us):
  //   c: 1->0 [0,1], 0->3 [1,2], 3->4 [2,3], 0->2 [6,7]
  //   w: 1->3 [0,1], 3->4 [3,4], 4->0 [4,5], 0->2 [5,6]
  // Rank 0 forwards c twice, to 3 first and to 2 last. Fused with its
  // forward to 2, c's receive would stand at 6: after the forward to 3
  // that waits for it, and behind the send of w to 2 in the fused tb. But
  // w reaches rank 0 only after c has gone 0 -> 3 -> 4 (3 sends c before w
  // to 4): a deadlock. (Rank 0's tbs receiving from 1 and sending to 2
  // used to pair first, on the lowest ids.) A receive fuses only with a
  // forward that nothing else waiting for it precedes: here c's forward to
  // 3, and w's receive with its forward to 2.
  Sketch S;
  S.Name = "fork";
  S.Topo = Topology("fork", 5);
  S.Coll = Collective::make(CollectiveKind::Broadcast, 5, 2, RankId(1));
  S.SizeBytes = 1000 * S.Coll.getSizeParts();
  Schedule Sch;
  auto Add = [&](unsigned C, unsigned A, unsigned B, double T0, double T1) {
    Transfer T;
    T.Chunk = ChunkId(C);
    auto Id = S.Topo.findLink(RankId(A), RankId(B));
    T.Link = Id ? *Id : S.Topo.addLink({RankId(A), RankId(B), 1.0, 1e-6});
    T.StartUs = T0;
    T.EndUs = T1;
    Sch.Transfers.push_back(T);
  };
  Add(0, 1, 0, 0, 1);
  Add(0, 0, 3, 1, 2);
  Add(0, 3, 4, 2, 3);
  Add(0, 0, 2, 6, 7);
  Add(1, 1, 3, 0, 1);
  Add(1, 3, 4, 3, 4);
  Add(1, 4, 0, 4, 5);
  Add(1, 0, 2, 5, 6);
  Sch.sortTransfers();
  Sch.MakespanUs = 7;

  Program P = lowerVerified(S, Sch);
  // Rank 0: c fused with 0 -> 3, w with 0 -> 2; ranks 3 and 4 one each.
  std::set<std::pair<int, int>> Fused; // (recv peer, send peer)
  for (const ThreadBlock &Tb : P.Gpus[0].Tbs)
    for (const Step &St : Tb.Steps)
      if (St.Type == OpType::RecvCopySend)
        Fused.insert({Tb.Recv, Tb.Send});
  CHECK(Fused == std::set<std::pair<int, int>>{{1, 3}, {4, 2}});
  CHECK(count(P, OpType::RecvCopySend) == 4);
}

namespace {
/// Allgather around the ring 0 -> 1 -> 2 -> 3 -> 0, three chunks per rank;
/// 1 -> 2 and 3 -> 0 are slow (10 us a chunk) and contiguous, 0 -> 1 and
/// 2 -> 3 fast (1 us).
Sketch grownRing(const std::string &Name) {
  const unsigned N = 4, K = 3;
  Sketch S;
  S.Name = Name;
  S.Topo = Topology(Name, N);
  int Slow = S.Topo.addClass({"slow", 10.0, 0});
  for (unsigned R = 0; R < N; ++R) {
    Link L{RankId(R), RankId((R + 1) % N), R % 2 ? 10.0 : 1.0, 0};
    L.Class = R % 2 ? Slow : -1;
    S.Topo.addLink(L);
  }
  S.ContiguousClasses = {true};
  S.Coll = Collective::allGather(N, K);
  S.SizeBytes = 1000 * S.Coll.getSizeParts();
  return S;
}

/// A greedy list schedule of every chunk of \p S along \p Hops (the ranks
/// rank R forwards chunk C to): the earliest start first, then the
/// earliest arrival, then the lowest (chunk, rank, next rank).
Schedule greedySchedule(
    const Sketch &S,
    const std::function<std::vector<unsigned>(unsigned, unsigned)> &Hops) {
  const unsigned K = S.Coll.getChunksPerRank();
  Schedule Sch;
  std::map<std::pair<unsigned, unsigned>, double> At; // (chunk, rank)
  std::map<unsigned, double> Free;                    // link id
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C)
    At[{C, C / K}] = 0;
  for (;;) {
    std::tuple<double, double, unsigned, unsigned, unsigned> Best{1e9, 0, 0, 0,
                                                                  0};
    for (auto [Key, T] : At) {
      auto [C, R] = Key;
      for (unsigned D : Hops(C, R)) {
        if (D == C / K || At.count({C, D}))
          continue;
        unsigned L = S.Topo.findLink(RankId(R), RankId(D))->index();
        Best = std::min(Best, {std::max(T, Free[L]), T, C, R, D});
      }
    }
    auto [Start, Arrived, C, R, D] = Best;
    if (Start >= 1e9)
      break;
    Transfer T;
    T.Chunk = ChunkId(C);
    T.Link = *S.Topo.findLink(RankId(R), RankId(D));
    T.StartUs = Start;
    T.EndUs = Free[T.Link.index()] = Start + S.Topo.link(T.Link).AlphaUs;
    At[{C, D}] = T.EndUs;
    Sch.Transfers.push_back(T);
    Sch.MakespanUs = std::max(Sch.MakespanUs, T.EndUs);
  }
  Sch.sortTransfers();
  return Sch;
}
} // namespace

TEST_CASE("threadblocks that fuse no relay stay apart behind a message grown "
          "back to back") {
  // Allgather around the ring 0 -> 1 -> 2 -> 3 -> 0, three chunks per rank;
  // 1 -> 2 and 3 -> 0 are slow (10 us a chunk) and contiguous, 0 -> 1 and
  // 2 -> 3 fast (1 us). Every link sends as soon as it can, earliest
  // arrival first: a rank's own chunks, then the others.
  //   1 -> 2: 1's chunks back to back in [0,30], one message (MergeSteps)
  //           that lands at 30 and is stamped to leave at 20; 2 -> 3 still
  //           forwards the first one at [10,11], so 3's receive of it stands
  //           at 11 but can end only after 30. 3 -> 0 and 0 -> 1 the same.
  //   3 forwards 2's and 1's chunks to 0, each after 2 has sent it the
  //   next message: no forward may fuse (nor on 1). Merged all the same
  //   (as they were), 3's tb received 1's first chunk (11) before sending
  //   its message to 0 (20), which 0 needs before 0 -> 1 forwards 3's
  //   first chunk, which 1 received before sending its message to 2, which
  //   2 needs before it forwards 1's first chunk: a deadlock (the pattern
  //   of quad_alltoall in tests/e2e/inputs/two-node-collectives.sketch). A
  //   pair of tbs that fuses nothing stays apart; 0 and 2 fuse three
  //   relays each.
  const unsigned N = 4, K = 3;
  Sketch S = grownRing("grown");
  Schedule Sch = greedySchedule(S, [&](unsigned, unsigned R) {
    return std::vector<unsigned>{(R + 1) % N};
  });
  REQUIRE(Sch.Transfers.size() == N * K * (N - 1));

  Program P = lowerVerified(S, Sch);
  for (unsigned R = 0; R < N; ++R) {
    unsigned Rcs = 0, Both = 0, Grown = 0;
    for (const ThreadBlock &Tb : P.Gpus[R].Tbs) {
      Both += Tb.Send >= 0 && Tb.Recv >= 0;
      for (const Step &St : Tb.Steps) {
        Rcs += St.Type == OpType::RecvCopySend;
        Grown += St.Type == OpType::Send && St.Cnt == K;
      }
    }
    CHECK(Grown == (R % 2 ? 1 : 0)); // the slow links' first messages
    CHECK(Rcs == (R % 2 ? 0 : 3));
    CHECK(Both == (R % 2 ? 0 : 1));
  }
}

TEST_CASE("settled stamps carry a grown message's landing downstream") {
  // Rank 2 sends 0 a message grown back to back (stamped to leave at 20,
  // landing at 30); 0 forwards its first chunk to 1 at 10 and then sends
  // 1 a chunk of its own at 12; 1 sends 2 at 20, waiting for nothing.
  // Settled: the forward waits for the landing (30), 1 receives it a unit
  // later (31), 0's next send waits for that receive (room in the FIFO:
  // 31) and lands at 32; nothing else moves.
  std::vector<RankBuilder> Ranks(3);
  auto Tb = [](int Send, int Recv) {
    ThreadBlock T;
    T.Send = Send;
    T.Recv = Recv;
    return T;
  };
  auto At = [](OpType Ty, double Time, double Sent,
               std::vector<std::pair<int, int>> Deps = {}) {
    PendingStep PS;
    PS.S.Type = Ty;
    PS.S.Cnt = 1;
    PS.Deps = std::move(Deps);
    PS.Time = Time;
    PS.Sent = Sent;
    return PS;
  };
  Ranks[0].Tbs = {Tb(1, -1), Tb(-1, 2)};
  Ranks[0].Steps = {
      {At(OpType::Send, 10, 0, {{1, 0}}), At(OpType::Send, 12, 0)},
      {At(OpType::Recv, 30, 20)}};
  Ranks[1].Tbs = {Tb(2, -1), Tb(-1, 0)};
  Ranks[1].Steps = {{At(OpType::Send, 20, 0)},
                    {At(OpType::Recv, 11, 10), At(OpType::Recv, 13, 12)}};
  Ranks[2].Tbs = {Tb(0, -1), Tb(-1, 1)};
  Ranks[2].Steps = {{At(OpType::Send, 20, 0)}, {At(OpType::Recv, 30, 20)}};
  settleTimes(Ranks);
  CHECK(Ranks[0].Steps[0][0].Time == 30);
  CHECK(Ranks[0].Steps[0][1].Time == 31);
  CHECK(Ranks[0].Steps[1][0].Time == 30);
  CHECK(Ranks[1].Steps[1][0].Sent == 30);
  CHECK(Ranks[1].Steps[1][0].Time == 31);
  CHECK(Ranks[1].Steps[1][1].Sent == 31);
  CHECK(Ranks[1].Steps[1][1].Time == 32);
  CHECK(Ranks[1].Steps[0][0].Time == 20);
  CHECK(Ranks[2].Steps[0][0].Time == 20);
  CHECK(Ranks[2].Steps[1][0].Time == 30);
}

TEST_CASE("a fused pair waits for a message grown back to back only by "
          "settled stamps") {
  // The ring of "threadblocks that fuse no relay stay apart behind a
  // message grown back to back", but 0 reaches 3 and 2 reaches 1 over
  // links of their own, so that 2 no longer sends 3 anything after 1's
  // last chunk (nor 0 sends 1 after 3's): 3 may fuse that chunk's forward
  // to 0, and 1 the mirror one. The merged tb of 3 then ordered, by the
  // schedule's stamps, the receive of 1's first chunk (11) before its
  // message to 0 (20), though that receive can end only after 1's grown
  // message lands at 2 (30): the same deadlock, now with a fused step.
  // settleTimes() carries the landing to 3's receive (31), after the
  // message.
  const unsigned N = 4, K = 3;
  Sketch S = grownRing("grown-fused");
  S.Topo.addLink({RankId(0), RankId(3), 1.0, 0});
  S.Topo.addLink({RankId(2), RankId(1), 1.0, 0});
  // Each chunk goes around the ring, except 0's to 3 and 2's to 1 directly.
  auto Next = [&](unsigned C, unsigned R) -> int {
    unsigned Src = C / K;
    if ((Src == 0 && R == 0) || (Src == 2 && R == 2))
      return -2; // both ways, see below
    if ((Src == 0 && R == 2) || (Src == 2 && R == 0))
      return -1;
    return int((R + 1) % N);
  };
  auto Hops = [&](unsigned C, unsigned R) {
    std::vector<unsigned> To;
    int H = Next(C, R);
    if (H == -2) {
      To.push_back((R + 1) % N);
      To.push_back((R + 3) % N);
    } else if (H >= 0) {
      To.push_back(unsigned(H));
    }
    return To;
  };
  Schedule Sch = greedySchedule(S, Hops);
  REQUIRE(Sch.Transfers.size() == N * K * (N - 1));

  Program P = lowerVerified(S, Sch);
  for (unsigned R : {1u, 3u}) {
    unsigned Rcs = 0;
    for (const ThreadBlock &Tb : P.Gpus[R].Tbs)
      for (const Step &St : Tb.Steps)
        Rcs += St.Type == OpType::RecvCopySend;
    CHECK(Rcs == 1);
  }
}
