//===- tests/unit/passes/LimitsTest.cpp - Sizes, budgets and fallbacks ----===//
//
// The model sizes the stages count before building (and refuse by) are
// those of the models they build, on every sketch of the standard library;
// a memory budget too small refuses the routing model with the
// diagnostic; each stage whose budget has passed takes its fallback with a
// warning; the compile's deadline stops synthesis with TimeLimitExceeded.
//
//===----------------------------------------------------------------------===//
#include "passes/ExactSchedule.h"
#include "passes/ListSchedule.h"
#include "passes/Routing.h"
#include "passes/RoutingModel.h"
#include "passes/RoutingStart.h"
#include "passes/Synthesize.h"

#include "../codegen/CodegenTestUtil.h"
#include "frontend/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Every sketch of every file of the standard library with at most
/// \p MaxRanks ranks.
std::vector<Sketch> stdlibSketches(unsigned MaxRanks) {
  std::vector<Sketch> Out;
  namespace fs = std::filesystem;
  std::vector<std::string> Files;
  for (const auto &E : fs::recursive_directory_iterator(TACCLC_STDLIB_DIR))
    if (E.path().extension() == ".sketch")
      Files.push_back(E.path().string());
  std::sort(Files.begin(), Files.end());
  for (const std::string &File : Files) {
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM);
    auto Buf = llvm::MemoryBuffer::getFile(File);
    REQUIRE(Buf);
    unsigned Id = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
    FrontendOptions FO;
    FO.StdlibDir = TACCLC_STDLIB_DIR;
    auto Modules = loadModules(SM, Id, FO, Diags);
    REQUIRE(Modules);
    for (const SketchSummary &Summary : listSketches(*Modules)) {
      auto S = analyzeSketch(*Modules, Summary.Name, Diags);
      REQUIRE(S);
      if (S->Topo.getNumRanks() <= MaxRanks)
        Out.push_back(std::move(*S));
    }
  }
  return Out;
}

/// A bidirectional ring of \p N ranks, allgather of \p K chunks per rank.
Sketch ring(unsigned N, unsigned K = 1) {
  return test::ringSketch("s", N, Collective::allGather(N, K), true);
}

/// An alltoall on the same ring: its links carry far more than the lower
/// bound, so its warm start is not optimal and routing needs its model.
Sketch ringAlltoall(unsigned N) {
  return test::ringSketch(
      "s", N, Collective::make(CollectiveKind::AllToAll, N, 1), true);
}

/// \p Start (kept for \p Group's orbit representatives) with every chunk's
/// paths written out: a representative's moved by the group element.
RoutingStart unfolded(const Sketch &S, const SymmetryGroup &Group,
                      RoutingStart Start) {
  const unsigned N = S.Topo.getNumRanks();
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    const ChunkId Ch(C);
    if (Group.isRepresentative(Ch))
      continue;
    const ChunkPaths &Rep = Start.Paths[Group.representative(Ch).index()];
    ChunkPaths &P = Start.Paths[C];
    P.Dist.resize(N);
    P.TreeTime.resize(N);
    P.Parent.assign(N, LinkId());
    for (unsigned R = 0; R < N; ++R) {
      unsigned To = Group.rank(Group.via(Ch), RankId(R)).index();
      P.Dist[To] = Rep.Dist[R];
      P.TreeTime[To] = Rep.TreeTime[R];
      if (Rep.Parent[R].isValid())
        P.Parent[To] = Group.link(Group.via(Ch), Rep.Parent[R]);
    }
  }
  return Start;
}

std::string printed(DiagnosticEngine &Diags) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Diags.flush(OS);
  return OS.str();
}
} // namespace

TEST_CASE("model sizes are counted as the models are built") {
  std::vector<Sketch> Sketches = stdlibSketches(32);
  REQUIRE(Sketches.size() >= 10);
  for (const Sketch &S : Sketches) {
    CAPTURE(S.Name);
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM);
    for (const SymmetryGroup &Group :
         {SymmetryGroup::trivial(S), buildSymmetryGroup(S, Diags)}) {
      CAPTURE(Group.size());
      RoutingStart Start = routingStart(S, Group);
      RoutingModel RM = *buildRoutingModel(S, Group, Start);
      ModelSize Size = routingModelSize(S, Group, Start);
      CHECK(Size.Variables == RM.Model.numVariables());
      CHECK(Size.IntegerVariables == RM.Model.numIntegerVariables());
      // Load, port and switch rows that coincide (under symmetry, or a
      // port with one link in use) are kept once but counted each time.
      CHECK(Size.Rows >= RM.Model.numConstraints());
      CHECK(Size.Nonzeros >= RM.Model.numNonzeros());
      if (Group.isTrivial()) {
        CHECK(Size.Rows <= RM.Model.numConstraints() * 1.01);
        CHECK(Size.Nonzeros <= RM.Model.numNonzeros() * 1.05);
      }
      CHECK(Size.totalBytes() > Size.modelBytes());
    }
    SymmetryGroup Trivial = SymmetryGroup::trivial(S);
    RoutingStart Start = routingStart(S, Trivial);
    // Stage 3, on the warm start's routes, merging where allowed.
    Schedule Sched = scheduleTransfers(S, startRoutes(S, Trivial, Start));
    for (bool Merge : {false, true}) {
      ScheduleModel SM3 = buildScheduleModel(S, Sched, Merge);
      ModelSize Size3 = scheduleModelSize(S, Sched, Merge);
      CHECK(Size3.Variables == SM3.Model.numVariables());
      CHECK(Size3.IntegerVariables == SM3.NumDecisions);
      CHECK(Size3.Rows == SM3.Model.numConstraints());
      CHECK(Size3.Nonzeros == SM3.Model.numNonzeros());
    }
  }
}

TEST_CASE("the unreduced model is counted from the representatives") {
  // As counted for --stats under a symmetry, and as counted with no group.
  unsigned Reduced = 0;
  for (const Sketch &S : stdlibSketches(32)) {
    CAPTURE(S.Name);
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM);
    SymmetryGroup Group = buildSymmetryGroup(S, Diags);
    if (Group.isTrivial())
      continue;
    ++Reduced;
    RoutingStart Start = routingStart(S, Group);
    ModelSize Full;
    routingModelSize(S, Group, Start, &Full);
    ModelSize Want = routingModelSize(S, SymmetryGroup::trivial(S),
                                      unfolded(S, Group, Start));
    CHECK(Full.Variables == Want.Variables);
    CHECK(Full.IntegerVariables == Want.IntegerVariables);
    CHECK(Full.Rows == Want.Rows);
    CHECK(Full.Nonzeros == Want.Nonzeros);
    CHECK(Full.BuilderBytes == Want.BuilderBytes);
  }
  CHECK(Reduced >= 5);
}

TEST_CASE("the warm start's routes deliver every chunk") {
  // Without symmetry, and under the sketch's group, where only the orbit
  // representatives' trees are kept and the others are read as images.
  unsigned Imaged = 0;
  for (const Sketch &S : stdlibSketches(16)) {
    CAPTURE(S.Name);
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM);
    for (const SymmetryGroup &Group :
         {SymmetryGroup::trivial(S), buildSymmetryGroup(S, Diags)}) {
      CAPTURE(Group.size());
      RoutingStart Start = routingStart(S, Group);
      Routes R = startRoutes(S, Group, Start);
      REQUIRE(R.Chunks.size() == S.Coll.getNumChunks());
      for (const ChunkRoute &CR : R.Chunks) {
        std::vector<bool> Has(S.Topo.getNumRanks(), false);
        for (RankId Pre : S.Coll.chunk(CR.Chunk).Pre)
          Has[Pre.index()] = true;
        for (LinkId L : CR.Links) {
          CHECK(Has[S.Topo.link(L).Src.index()]); // parents first
          CHECK(usesStartLink(S, Group, Start, CR.Chunk, L));
          Has[S.Topo.link(L).Dst.index()] = true;
        }
        for (RankId Post : S.Coll.chunk(CR.Chunk).Post)
          CHECK(Has[Post.index()]);
        Imaged += !Group.isRepresentative(CR.Chunk);
      }
    }
  }
  CHECK(Imaged > 0);
}

TEST_CASE("a routing model larger than the memory budget is refused") {
  // An alltoall on a ring loads its links far above the bound: the model
  // is needed (an allgather's warm start is optimal, and needs none).
  Sketch S = ringAlltoall(32);
  SymmetryGroup Trivial = SymmetryGroup::trivial(S);
  uint64_t ModelBytes =
      routingModelSize(S, Trivial, routingStart(S, Trivial)).totalBytes();
  REQUIRE(ModelBytes > (16 << 20));
  SynthesisOptions Opts;
  Opts.Routing.Memory.Source = "--max-memory";
  // Room for the warm start's paths and half the model.
  Opts.Routing.Memory.Bytes = currentMemoryUsage().ResidentBytes +
                              routingStartBytes(S, Trivial) + ModelBytes / 2;
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  CHECK(!routeChunks(S, Opts, Diags));
  std::string Text = printed(Diags);
  CHECK(Text.find("error: the routing model would need about") !=
        std::string::npos);
  CHECK(Text.find("(--max-memory)") != std::string::npos);
  CHECK(Text.find("add a symmetry") != std::string::npos);
  CHECK(Text.find("raise --max-memory") != std::string::npos);

  // Without room for the paths, the refusal comes before them.
  Opts.Routing.Memory.Bytes = 1 << 20;
  CHECK(!routeChunks(S, Opts, Diags));
  Text = printed(Diags);
  CHECK(Text.find("error: the routing warm start would need at least") !=
        std::string::npos);
  CHECK(Text.find("memory budget of 1.0 MiB (--max-memory)") !=
        std::string::npos);

  // With room it routes (from the warm start, if the solve runs long).
  Opts.Routing.Memory.Bytes = uint64_t(8) << 30;
  Opts.Routing.Budget = Deadline::after(1);
  CHECK(routeChunks(S, Opts, Diags));
}

TEST_CASE("stages out of time take their fallbacks, with a warning") {
  // An alltoall: its warm start is above the lower bound, so routing has a
  // model to solve (an allgather's start is optimal even out of time).
  Sketch S = ringAlltoall(32);
  SynthesisOptions Opts;
  Opts.Routing.Budget = Deadline::after(-1);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  SolveStats Stats;
  auto R = routeChunks(S, Opts, Diags, &Stats);
  REQUIRE(R);
  CHECK(R->SolverStatus == "warm start");
  CHECK(Stats.HitTimeLimit);
  CHECK(Stats.Variables > 0);
  CHECK(printed(Diags).find("warning: the routing stage's time (0 s) ran "
                            "out while computing the warm start") !=
        std::string::npos);
  CHECK(R->Chunks.size() == S.Coll.getNumChunks());
  // A start at the lower bound needs no model, in time or not.
  SolveStats AtBound;
  auto Gathered = routeChunks(ring(8), Opts, Diags, &AtBound);
  REQUIRE(Gathered);
  CHECK(Gathered->SolverStatus == "optimal");
  CHECK(AtBound.Note == "warm start at the lower bound, model not built");

  // Ordering: the first heuristic always finishes, the others are left out.
  OrderingResult O = orderTransfers(S, *R, nullptr, Deadline::after(-1));
  CHECK(O.Tried.size() == 1);
  CHECK(O.Best.Transfers.size() > 0);
  CHECK(orderTransfers(S, *R).Tried.size() == orderingsFor(S).size());

  // Stage 3 with decisions to make keeps the stage-2 schedule.
  S = ring(8, 2);
  S.Topo.addClass({"c", 1.0, 1e-6, {}});
  Topology Classed("ring", 8);
  Classed.addClass(S.Topo.classes()[0]);
  for (Link L : S.Topo.links()) {
    L.Class = 0;
    Classed.addLink(L);
  }
  S.Topo = Classed;
  S.ContiguousClasses = {true};
  Schedule Sched = scheduleTransfers(S, test::clockwise(S));
  REQUIRE(scheduleModelSize(S, Sched, true).IntegerVariables > 0);
  StageOptions Late;
  Late.Budget = Deadline::after(-1);
  Schedule Kept = scheduleExactly(S, Sched, true, Late, Diags);
  CHECK(Kept.MakespanUs == Sched.MakespanUs);
  CHECK(printed(Diags).find("keeping the heuristic schedule") !=
        std::string::npos);
}

TEST_CASE("synthesis stops at the compile's deadline") {
  Sketch S = ring(8);
  SynthesisOptions Opts;
  CHECK(synthesisTimeLimit(S, Opts) == 120);
  Opts.Routing.TimeLimitSeconds = 5;
  Opts.Scheduling.TimeLimitSeconds = 2;
  CHECK(synthesisTimeLimit(S, Opts) == 7);
  Sketch AllReduce = S;
  AllReduce.Coll = Collective::make(CollectiveKind::AllReduce, 8, 1);
  CHECK(synthesisTimeLimit(AllReduce, Opts) == 5 + 2 * 2); // symmetric ring
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  DeadlineScope Passed(Deadline::after(-1), 7);
  CHECK_THROWS_AS(synthesize(S, Opts, Diags), TimeLimitExceeded);
}

TEST_CASE("the stages share the time until SynthesisOptions::Until") {
  Sketch S = ring(8);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  SynthesisOptions Opts;
  // No time left: every stage takes its fallback, whatever its own limit
  // (an alltoall, whose warm start is above the lower bound: routing has a
  // model to give up).
  Opts.Until = Deadline::after(-1);
  auto Late = synthesize(ringAlltoall(32), Opts, Diags);
  REQUIRE(Late);
  REQUIRE(Late->Stages.size() == 3);
  CHECK(Late->Stages[0].Solve.HitTimeLimit);
  CHECK(Late->Stages[0].Solve.Note ==
        "the model was not built: the warm start's routes");
  CHECK(Late->Stages[1].Detail.find("earliest-start") != std::string::npos);
  CHECK(printed(Diags).find("the routing stage's time (0 s) ran out") !=
        std::string::npos);
  // Time enough: the same sketch solves, and no stage runs past Until.
  Opts.Until = Deadline::after(30);
  auto T0 = std::chrono::steady_clock::now();
  auto InTime = synthesize(S, Opts, Diags);
  REQUIRE(InTime);
  CHECK(InTime->Stages[0].Solve.Status == "optimal");
  CHECK(std::chrono::steady_clock::now() - T0 < std::chrono::seconds(31));
}
