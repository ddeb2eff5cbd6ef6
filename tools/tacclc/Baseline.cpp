//===- tools/tacclc/Baseline.cpp - The baseline command -------------------===//
//
// `tacclc baseline ring|direct|tree|hierarchical --topology T --collective C
// -o OUT.xml`
// writes NCCL's own algorithm for a machine as TACCL-EF, through the same
// stages as a compiled sketch: fixed routes (passes/Baselines.h) instead of
// the routing MILP, then list scheduling, the reversal of the dual for
// reductions (on the transposed topology, so partial sums travel the ring's
// own links), and the compile's lowering and verification
// (codegen/EmitVerified.h) before the atomic write. The file feeds `check`,
// `run` and `sim` like any other. Like a compile's summary, it prints the
// schedule model's prediction beside the program's simulated time, which
// to trust, and why they differ.
//
//===----------------------------------------------------------------------===//
#include "codegen/EmitVerified.h"
#include "frontend/MachineRef.h"
#include "passes/Baselines.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"
#include "passes/TimeModel.h"
#include "support/Suggest.h"
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/CompileReport.h"
#include "tools/tacclc/Output.h"
#include "tools/tacclc/ProgramTimes.h"
#include "tools/tacclc/Provenance.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

using namespace tacclc;

namespace {
int usage(const std::string &Message) {
  llvm::errs() << "tacclc: error: " << Message << "\n";
  return ExitInternal;
}

/// Routes of \p S (non-combining) for the algorithm \p Algo; prints why not.
std::optional<ir::Routes> routesFor(const std::string &Algo,
                                    const ir::Sketch &S, bool Forward,
                                    unsigned Rings) {
  if (Algo == "ring") {
    std::vector<std::vector<ir::RankId>> All;
    // Rings start (and so leave each node) spread over the node's GPUs.
    const unsigned G = S.Topo.getGpusPerNode();
    for (unsigned I = 0; I < Rings; ++I) {
      auto Ring = findRing(S.Topo, I * G / Rings);
      if (!Ring) {
        llvm::errs() << "tacclc: error: the links of '" << S.Topo.getName()
                     << "' hold no ring through the GPUs of each node\n";
        return std::nullopt;
      }
      All.push_back(std::move(*Ring));
    }
    return ringRoutes(S, All, Forward);
  }
  std::string Missing;
  if (Algo == "hierarchical") {
    auto R = hierarchicalRoutes(S, Missing);
    if (!R)
      llvm::errs() << "tacclc: error: no hierarchical routes on '"
                   << S.Topo.getName() << "': " << Missing << "\n";
    return R;
  }
  auto R = directRoutes(S, Missing);
  if (!R)
    llvm::errs() << "tacclc: error: direct sends need the link " << Missing
                 << ", which '" << S.Topo.getName() << "' does not have\n";
  return R;
}

/// A baseline program: the sketch it was built for, its XML, the schedule
/// model's prediction and the program's simulated time.
struct Built {
  ir::Sketch Sketch;
  std::string Xml;
  CallPrediction Predicted;
  ProgramTimes Times;
};

/// The simulated time of the baseline program \p E of \p S, as a compile
/// reports its program's (the referee is left to `tacclc sim --engine
/// simgrid`).
ProgramTimes timeBaseline(const BaselineOptions &O, const ir::Sketch &S,
                          const CallPrediction &Predicted,
                          const EmittedProgram &E) {
  ProgramTimes Times;
  if (O.LegacyDialect) {
    Times.RefereeNote = "the legacy dialect is not simulated";
    return Times;
  }
  Times = timeProgram(E.Plan, S, Predicted,
                      E.Options.FuseRelays ? E.Options.FifoMessages : 0,
                      /*AskReferee=*/false);
  if (Times.Simulated)
    Times.Simulated->FifoAsAsked = true;
  return Times;
}

/// Builds \p O's algorithm for \p Kind on \p Topo with \p Rings rings (1
/// for the others). Returns nothing when it cannot: the reason is printed,
/// or, with \p LimitsOnly set, in \p Diags (the program exceeds the
/// runtime's limits).
std::optional<Built> build(const BaselineOptions &O, ir::CollectiveKind Kind,
                           const ir::Topology &Topo, unsigned Rings,
                           const std::string &MachineRef,
                           DiagnosticEngine &Diags, bool &LimitsOnly) {
  const unsigned N = Topo.getNumRanks();
  ir::Sketch S;
  S.Name = fmt::format("{}_{}", O.Algorithm, O.Collective);
  S.Topo = Topo;
  S.Coll = ir::Collective::make(Kind, N, O.Chunks * Rings, ir::RankId(O.Root));
  S.SizeBytes = O.SizeBytes;
  S.Protocol = O.Protocol;
  S.Topo.applyCostsAt(S.Coll.chunkBytes(double(S.SizeBytes)));

  // The schedule: the routes themselves, or for a reduction the dual's
  // routes on the transposed machine run backwards (an allreduce then
  // spreads the sums forwards).
  ir::Schedule Sched;
  if (O.Algorithm == "tree") {
    std::string Error;
    auto Tree = treeAllReduceSchedule(S, Error);
    if (!Tree) {
      llvm::errs() << "tacclc: error: no double binary tree on '"
                   << S.Topo.getName() << "': " << Error << "\n";
      return std::nullopt;
    }
    Sched = std::move(*Tree);
  } else if (!ir::isCombining(Kind)) {
    auto R = routesFor(O.Algorithm, S, true, Rings);
    if (!R)
      return std::nullopt;
    Sched = scheduleTransfers(S, *R);
  } else {
    ir::Sketch Up = dualSketch(S, /*Transpose=*/true);
    auto R = routesFor(O.Algorithm, Up, false, Rings);
    if (!R)
      return std::nullopt;
    ir::Schedule UpSched = scheduleTransfers(Up, *R);
    std::optional<ir::Schedule> Spread;
    if (Kind == ir::CollectiveKind::AllReduce) {
      ir::Sketch Down = dualSketch(S, false);
      auto D = routesFor(O.Algorithm, Down, true, Rings);
      if (!D)
        return std::nullopt;
      Spread = scheduleTransfers(Down, *D);
    }
    Sched = reverseForReduction(S, UpSched, true, Spread ? &*Spread : nullptr);
  }

  EmitOptions EO;
  EO.Dialect =
      O.LegacyDialect ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
  EO.Origin = baselineProvenance(MachineRef, O.SizeBytes);
  std::optional<EmittedProgram> Emitted = emitVerified(S, Sched, EO, Diags);
  if (!Emitted) {
    LimitsOnly = true;
    return std::nullopt;
  }
  CallPrediction Predicted = predictCall(S, Sched);
  ProgramTimes Times = timeBaseline(O, S, Predicted, *Emitted);
  return Built{std::move(S), std::move(Emitted->Xml), Predicted,
               std::move(Times)};
}
} // namespace

int tacclc::runBaseline(const BaselineOptions &O) {
  if (O.Algorithm != "ring" && O.Algorithm != "direct" &&
      O.Algorithm != "tree" && O.Algorithm != "hierarchical")
    return usage(fmt::format("unknown baseline '{}' (available: ring, "
                             "direct, tree, hierarchical)",
                             O.Algorithm));
  auto Kind = ir::parseCollectiveName(O.Collective);
  if (!Kind) {
    std::string Close = closestName(O.Collective, ir::collectiveNames());
    return usage(fmt::format("unknown collective '{}'; {}", O.Collective,
                             Close.empty()
                                 ? "expected one of " +
                                       llvm::join(ir::collectiveNames(), ", ")
                                 : "did you mean '" + Close + "'?"));
  }
  if (O.Algorithm == "tree" && *Kind != ir::CollectiveKind::AllReduce)
    return usage("the tree baseline is NCCL's double binary tree allreduce: "
                 "use --collective allreduce");
  if (O.LegacyDialect && (*Kind == ir::CollectiveKind::Gather ||
                          *Kind == ir::CollectiveKind::Scatter))
    return usage(
        fmt::format("the msccl-legacy runtime has no {}", O.Collective));
  std::string MachineRef;
  auto Topo = instantiateMachine(O.Topology, O.IncludeDirs, llvm::errs(),
                                 &MachineRef, programFolder(O.Output));
  if (!Topo)
    return ExitUserError;
  const unsigned N = Topo->getNumRanks();
  if (O.Root < 0 || unsigned(O.Root) >= N)
    return usage(fmt::format("root {} is not a rank of the {}", O.Root, N));
  // NCCL's channels: one ring each, each with its own chunks of every rank.
  // By default one per NIC of a node; when that many do not fit the
  // runtime's limits on this machine (a big allreduce), fewer.
  const bool DefaultRings = O.Algorithm == "ring" && !O.Rings;
  unsigned Rings = O.Algorithm != "ring" ? 1
                   : O.Rings             ? O.Rings
                                         : defaultRingCount(*Topo);
  for (;;) {
    // The runtime's chunk offsets are 16-bit: refuse what cannot fit
    // before building anything that large.
    const uint64_t PerRank = uint64_t(O.Chunks) * Rings;
    const uint64_t Parts =
        PerRank * N * (*Kind == ir::CollectiveKind::AllToAll ? N : 1);
    if (O.Chunks == 0 || Parts > 32767)
      return usage(fmt::format("--chunks {} gives {} chunks per rank and {} "
                               "chunks per loop; the runtime allows 1 to "
                               "32767",
                               O.Chunks, PerRank, Parts));
    llvm::SourceMgr SM;
    DiagnosticEngine Diags(SM);
    bool LimitsOnly = false;
    std::optional<Built> B =
        build(O, *Kind, *Topo, Rings, MachineRef, Diags, LimitsOnly);
    if (!B && DefaultRings && LimitsOnly && Rings > 1) {
      unsigned Fewer = Rings / 2;
      llvm::errs() << fmt::format(
          "tacclc: note: {} rings exceed the runtime's limits on '{}'; "
          "trying {} (--rings chooses)\n",
          Rings, O.Topology, Fewer);
      Rings = Fewer;
      continue;
    }
    if (!B) {
      Diags.flush(llvm::errs());
      return ExitUserError;
    }
    llvm::errs() << fmt::format(
        "baseline    {} {} on {}: {} ranks{}, {}; at {} B\n", O.Algorithm,
        O.Collective, O.Topology, N,
        O.Algorithm == "ring" ? fmt::format(", {} ring(s)", Rings) : "",
        ir::describeChunks(*Kind, N, B->Sketch.Coll.getChunksPerRank(),
                           unsigned(O.Root)),
        O.SizeBytes);
    printTimes(llvm::errs(), B->Sketch, B->Predicted, B->Times);
    return writeOutput(O.Output, B->Xml, Diags);
  }
}
