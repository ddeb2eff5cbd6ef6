//===- tests/unit/passes/RoutingBoundTest.cpp - Routing's lower bound -----===//
//
// The lower bound routingStart() gives the routing model's makespan (the
// farthest shortest distance, or the load a node's boundary must carry):
// never above the makespan of a routing the model finds without it, on
// two-node DGX-H100 sketches of several sizes and relay rules (every link
// between the nodes, or rails only); and equal to
// the warm start's on a rail allgather of 1 GB (the boundary's load) and of
// 1 MiB (the NVLink lanes' load), where the routing stage then returns the
// warm start without building its model.
//
//===----------------------------------------------------------------------===//
#include "passes/Routing.h"
#include "passes/RoutingModel.h"
#include "passes/RoutingStart.h"
#include "passes/Synthesize.h"
#include "passes/TimeModel.h"

#include "frontend/Frontend.h"
#include "solver/Solver.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

#include <string>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// The sketch `s` on \p Nodes DGX-H100 nodes: \p Coll of \p Size, with
/// \p Rules (relay rules) and an automatic symmetry.
Sketch twoNodes(const std::string &Coll, const std::string &Size,
                const std::string &Rules, unsigned Nodes = 2) {
  std::string Text = "import \"topologies/h100\"\n"
                     "sketch s on h100(nodes: " +
                     std::to_string(Nodes) + ") {\n  collective " + Coll +
                     "\n  size " + Size + "\n" + Rules + "  symmetry auto\n}\n";
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "s.sketch"), llvm::SMLoc());
  FrontendOptions FO;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  auto Mods = loadModules(SM, Id, FO, Diags);
  REQUIRE(Mods);
  auto S = analyzeSketch(*Mods, "s", Diags);
  REQUIRE(S);
  return std::move(*S);
}

const char *const Rail = "  relay direct\n  for g in 0..gpus {\n"
                         "    sender g carries [g]\n  }\n";
} // namespace

TEST_CASE("the routing lower bound is below every routing's makespan") {
  for (const char *Coll : {"allgather", "alltoall"})
    for (const char *Size : {"64 KB", "1 GB"})
      for (std::string Rules :
           {std::string("  relay direct\n"), std::string(Rail),
            std::string(Rail) + "  protocol LL128\n"}) {
        CAPTURE(std::string(Coll));
        CAPTURE(std::string(Size));
        CAPTURE(Rules);
        Sketch S = twoNodes(Coll, Size, Rules);
        llvm::SourceMgr SM;
        DiagnosticEngine Diags(SM);
        SymmetryGroup Group = buildSymmetryGroup(S, Diags);
        RoutingStart Start = routingStart(S, Group);
        CHECK(Start.LowerBound > 0);
        CHECK(Start.LowerBound <= Start.Horizon * (1 + 1e-9));
        // The model without the bound on its makespan, solved: whatever
        // routing it finds takes at least the bound.
        RoutingStart Unbounded = Start;
        Unbounded.LowerBound = 0;
        RoutingModel RM = *buildRoutingModel(S, Group, Unbounded);
        solver::SolveOptions O;
        O.TimeLimitSeconds = 10;
        O.RelativeGap = 0;
        solver::Solution Sol = solver::solveWithCbc(RM.Model, O);
        REQUIRE(Sol.hasValues());
        CHECK(Sol.Values[RM.Makespan.Index] >= Start.LowerBound * (1 - 1e-9));
      }
}

TEST_CASE("a rail allgather at its boundary's load skips the routing solve") {
  Sketch S = twoNodes("allgather", "1 GB", Rail);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  RoutingStart Start = routingStart(S, buildSymmetryGroup(S, Diags));
  // The 8 chunks of the other node enter through 8 NICs: one chunk each
  // (64 MB at the NIC's bandwidth), far above any shortest distance.
  CHECK(Start.LowerBound == doctest::Approx(Start.Horizon).epsilon(1e-9));
  SynthesisOptions Opts;
  SolveStats Stats;
  REQUIRE(routeChunks(S, Opts, Diags, &Stats));
  CHECK(Stats.Status == "optimal");
  CHECK(Stats.Note == "warm start at the lower bound, model not built");
}

TEST_CASE("a small rail allgather at its lanes' load skips the routing solve") {
  // At 1 MiB with LL128 a chunk holds an NVLink lane for the FIFO's pace,
  // longer than its wire time on any port. Under the rail rules a chunk of
  // GPU g reaches GPU h != g of any node over NVLink only: on 32 nodes GPU
  // 0 receives 224 such chunks (7 of each node) over its 7 NVLinks, 32 per
  // lane, which outlasts every shortest distance and every port's load.
  Sketch S = twoNodes("allgather", "1 MiB",
                      std::string(Rail) + "  protocol LL128\n", 32);
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  RoutingStart Start = routingStart(S, buildSymmetryGroup(S, Diags));
  const TimeModel TM(S);
  auto NvLink = S.Topo.findLink(RankId(1), RankId(0));
  REQUIRE(NvLink);
  CHECK(Start.LowerBound ==
        doctest::Approx(32 * TM.laneLoadUs(*NvLink)).epsilon(1e-9));
  CHECK(Start.LowerBound == doctest::Approx(Start.Horizon).epsilon(1e-9));
  SynthesisOptions Opts;
  SolveStats Stats;
  REQUIRE(routeChunks(S, Opts, Diags, &Stats));
  CHECK(Stats.Note == "warm start at the lower bound, model not built");
}
