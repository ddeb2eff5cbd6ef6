//===- tools/tacclc/Compile.cpp - The compile command ---------------------===//
//
// The stage chain of `tacclc FILE.sketch`, as one readable function:
//
//   read -> parse (AST) -> Sema (ir::Sketch) -> route (MILP on CBC)
//        -> list schedule -> lower (ir::Program) -> XML -> verify -> write
//
// `--emit=` stops after a stage and prints it. The XML is verified by the
// runtime's own loader and symbolic checker before anything is written, and
// the output file is replaced atomically, so a failed compile never leaves a
// half-written or unverified file behind.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "frontend/Frontend.h"
#include "ir/Printer.h"
#include "passes/ListSchedule.h"
#include "passes/ReduceSchedule.h"
#include "passes/Routing.h"
#include "passes/RoutingModel.h"
#include "passes/Symmetry.h"
#include "solver/LpWriter.h"
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/Output.h"

#include "tacclrt/Loader.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>

using namespace tacclc;

namespace {
/// Writes \p Text to the output (stdout when none), atomically for files.
int emitText(const CompileOptions &Opts, DiagnosticEngine &Diags,
             const std::string &Text) {
  return writeOutput(Opts.Output, Text, Diags);
}

/// Loads and checks generated XML with the runtime; any failure is a
/// compiler bug.
void verifyOrDie(const std::string &Xml, bool Legacy, bool Identical) {
  tacclrt::Report Rep = verifyXml(Xml, Legacy, Identical);
  if (!Rep.hasErrors())
    return;
  reportInternalError("the generated algorithm failed verification:\n" +
                      Rep.str());
}

void printSummary(const ir::Sketch &S, const ir::Routes &R,
                  const ir::Schedule &Sch, const ir::Program &P,
                  const SolveStats &Stats, const CompileOptions &Opts,
                  const std::string &FusionNote) {
  unsigned MaxTbs = 0, Steps = 0, Fused = 0;
  for (const ir::GpuProgram &G : P.Gpus) {
    MaxTbs = std::max<unsigned>(MaxTbs, G.Tbs.size());
    for (const ir::ThreadBlock &Tb : G.Tbs) {
      Steps += Tb.Steps.size();
      for (const ir::Step &St : Tb.Steps)
        Fused += St.Type == ir::OpType::RecvCopySend ||
                 St.Type == ir::OpType::RecvReduceSend ||
                 St.Type == ir::OpType::RecvReduceCopySend;
    }
  }
  unsigned N = S.Topo.getNumRanks();
  double AlgBw = double(S.SizeBytes) / (Sch.MakespanUs * 1e3); // GB/s
  // nccl-tests' bus bandwidth factors (allreduce 2(n-1)/n, the rooted
  // one-to-all and all-to-one collectives 1, the others (n-1)/n).
  double BusBw = AlgBw * ir::busBandwidthFactor(S.Coll.getKind(), N);
  auto &OS = llvm::errs();
  OS << fmt::format("sketch      {} (topology {})\n", S.Name,
                    S.Topo.getName().str());
  OS << fmt::format("collective  {} on {} ranks, {} chunks ({} per rank), "
                    "size {}\n",
                    ir::collectiveName(S.Coll.getKind()).str(), N,
                    S.Coll.getNumChunks(), S.Coll.getChunksPerRank(),
                    ir::formatBytes(S.SizeBytes));
  OS << fmt::format("routing     {} in {:.2f} s ({} variables, {} rows)\n",
                    R.SolverStatus, Stats.Seconds, Stats.Variables,
                    Stats.Constraints);
  OS << fmt::format("predicted   {} (algbw {:.2f} GB/s, busbw {:.2f} GB/s)\n",
                    ir::formatUs(Sch.MakespanUs), AlgBw, BusBw);
  OS << fmt::format("program     {} steps ({} relays fused{}), up to {} "
                    "threadblocks per rank, {} channel(s)\n",
                    Steps, Fused, FusionNote, MaxTbs, P.NumChannels);
  OS << fmt::format("verified    OK{}\n",
                    Opts.Output.empty() ? std::string() : " -> " + Opts.Output);
  OS.flush();
}
} // namespace

int tacclc::runCompile(const CompileOptions &Opts) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Diags.setShowNames(Opts.DiagNames);
  auto Fail = [&] {
    Diags.flush(llvm::errs());
    return ExitUserError;
  };

  auto Buf = llvm::MemoryBuffer::getFileOrSTDIN(Opts.Input);
  if (!Buf) {
    Diags.report(DiagId::CannotOpenFile, llvm::SMRange(), Opts.Input,
                 Buf.getError().message());
    return Fail();
  }
  unsigned Id = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());

  FrontendOptions FO;
  FO.IncludeDirs = Opts.IncludeDirs;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  auto Modules = loadModules(SM, Id, FO, Diags);
  if (!Modules)
    return Fail();
  if (Opts.List) {
    std::string Text = toText([&](llvm::raw_ostream &OS) {
      for (const std::string &Line : describeMachines(*Modules, Diags))
        OS << Line << "\n";
      for (const SketchSummary &S : listSketches(*Modules))
        OS << "sketch " << S.Name << " " << S.On << "\n";
    });
    if (Diags.hasErrors())
      return Fail();
    return emitText(Opts, Diags, Text);
  }
  if (Opts.Emit == EmitKind::Ast)
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      ast::dumpAst(*Modules->Modules[0].Ast, SM, OS);
                    }));

  auto Sketch = analyzeSketch(*Modules, Opts.SketchName, Diags);
  if (!Sketch)
    return Fail();
  if (Opts.Emit == EmitKind::Ir)
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      ir::printSketch(*Sketch, OS);
                    }));
  if (Opts.Emit == EmitKind::Dot)
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      ir::printDot(*Sketch, OS);
                    }));
  // A combining collective is routed and scheduled as its non-combining
  // dual, whose schedule is then run backwards (passes/ReduceSchedule.h).
  ir::CollectiveKind Kind = Sketch->Coll.getKind();
  // Its dual is routed on the transposed topology, so that the reversed
  // schedule uses the sketch's links and its relay rules bind the ranks
  // that send once reversed (Sketch::Transposed); a symmetric topology
  // without relay rules is its own transpose.
  std::optional<ir::Sketch> DualStorage;
  bool UpTransposed = false;
  if (ir::isCombining(Kind)) {
    UpTransposed = !Sketch->Topo.isSymmetric() || !Sketch->Carries.empty();
    DualStorage = dualSketch(*Sketch, UpTransposed);
  }
  const ir::Sketch &Routed = DualStorage ? *DualStorage : *Sketch;
  if (Opts.LegacyDialect && (Kind == ir::CollectiveKind::Gather ||
                             Kind == ir::CollectiveKind::Scatter)) {
    Diags.report(DiagId::DialectLacksCollective, Sketch->CollectiveLoc,
                 ir::collectiveName(Kind).str());
    return Fail();
  }
  if (Opts.Emit == EmitKind::Milp) {
    if (!checkRoutable(Routed, Diags))
      return Fail();
    RoutingModel RM = buildRoutingModel(
        Routed, Opts.Synthesis.UseSymmetry ? buildSymmetryGroup(Routed, Diags)
                                           : SymmetryGroup::trivial(Routed));
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      solver::writeLp(RM.Model, OS);
                    }));
  }

  // Solver settings: the command line, else the sketch, else the defaults.
  SynthesisOptions Synth = Opts.Synthesis;
  if (!Opts.TimeLimitGiven && Sketch->TimeLimitSeconds)
    Synth.TimeLimitSeconds = *Sketch->TimeLimitSeconds;
  if (!Opts.GapGiven && Sketch->RelativeGap)
    Synth.RelativeGap = *Sketch->RelativeGap;
  SolveStats Stats;
  auto Routes = routeChunks(Routed, Synth, Diags, &Stats);
  if (!Routes)
    return Fail();
  if (Opts.Stats) {
    llvm::errs() << fmt::format(
        "stats: symmetry group of {} element(s), {} chunk orbit(s) of {} "
        "chunks; routing model reduced from {} variables, {} rows\n",
        Stats.GroupSize, Stats.ChunkOrbits, Routed.Coll.getNumChunks(),
        Stats.VariablesBefore, Stats.ConstraintsBefore);
    llvm::errs() << fmt::format(
        "stats: routing model {} variables ({} integer), {} rows, {} "
        "nonzeros; warm start {:.6g}; {} in {:.3f} s, objective {:.6g}, "
        "bound {:.6g}\n",
        Stats.Variables, Stats.IntegerVariables, Stats.Constraints,
        Stats.Nonzeros, Stats.WarmStartObjective, Routes->SolverStatus,
        Stats.Seconds, Stats.Objective, Stats.BestBound);
  }
  if (Opts.Emit == EmitKind::Routes)
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      ir::printRoutes(Routed, *Routes, OS);
                    }));

  ir::Schedule Sched = scheduleTransfers(Routed, *Routes);
  if (DualStorage) {
    // An allreduce spreads its sums with the dual on the sketch's own
    // topology: the same schedule where that is symmetric.
    std::optional<ir::Schedule> Spread;
    if (Kind == ir::CollectiveKind::AllReduce && UpTransposed) {
      ir::Sketch Down = dualSketch(*Sketch, false);
      auto DownRoutes = routeChunks(Down, Synth, Diags, nullptr);
      if (!DownRoutes)
        return Fail();
      Spread = scheduleTransfers(Down, *DownRoutes);
    }
    Sched = reverseForReduction(*Sketch, Sched, UpTransposed,
                                Spread ? &*Spread : &Sched);
  }
  if (Opts.Emit == EmitKind::Schedule)
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      ir::printSchedule(*Sketch, Sched, OS);
                    }));

  CodegenOptions CG;
  CG.MergeContiguous = Sketch->Instances <= 1;
  if (Opts.LegacyDialect) {
    CG.MaxStepsPerTb = 256;
    CG.ServeInPlace = false;
  }
  // Lower, replicate instances, set the size range and print; first with
  // relays fused into rcs steps, and if that program does not verify (the
  // fused threadblocks order steps more strictly), without.
  std::optional<ir::Program> Program;
  auto Build = [&]() -> std::optional<std::string> {
    Program = lowerToProgram(*Sketch, Sched, CG, Diags);
    if (!Program || !replicateInstances(*Program, Sketch->Instances, CG,
                                        Sketch->Loc, Diags))
      return std::nullopt;
    // The size range the runtime selects the program for: the sketch's, or
    // every size. The new runtime's range is inclusive with 0 = unlimited;
    // the old one's is exclusive and 0 would mean "never".
    Program->MinBytes = runtimeBytes(Sketch->Coll, Sketch->MinBytes);
    Program->MaxBytes = runtimeBytes(Sketch->Coll, Sketch->MaxBytes);
    if (Opts.LegacyDialect) {
      Program->MaxBytes =
          Program->MaxBytes ? Program->MaxBytes + 1 : uint64_t(1) << 40;
      if (Sketch->Coll.getKind() == ir::CollectiveKind::ReduceScatter)
        Program->Collective = "reduce_scatter";
    }
    return toText([&](llvm::raw_ostream &OS) { writeXml(*Program, OS); });
  };
  auto Xml = Build();
  if (!Xml)
    return Fail();
  // Fusion keeps every threadblock in schedule order, which cannot deadlock
  // (codegen/FuseRelays.cpp); should a fused program still fail to verify,
  // it is lowered again with the ranks the verifier named left unfused, and
  // after a few rounds with no fusion at all (--summary says so).
  bool FusionDropped = false;
  CG.NoFuseRanks.assign(Sketch->Topo.getNumRanks(), false);
  for (unsigned Round = 0;; ++Round) {
    tacclrt::Report Rep =
        verifyXml(*Xml, Opts.LegacyDialect, Sketch->IdenticalResults);
    if (!Rep.hasErrors() || !CG.FuseRelays)
      break;
    bool Named = false;
    for (const tacclrt::Issue &I : Rep)
      if (I.Rank >= 0 && unsigned(I.Rank) < CG.NoFuseRanks.size() &&
          !CG.NoFuseRanks[I.Rank])
        CG.NoFuseRanks[I.Rank] = Named = true;
    if (!Named || Round == 4) {
      CG.FuseRelays = false;
      FusionDropped = true;
    }
    Xml = Build();
    if (!Xml)
      return Fail();
  }
  verifyOrDie(*Xml, Opts.LegacyDialect, Sketch->IdenticalResults);
  int Rc = emitText(Opts, Diags, *Xml);
  if (Rc == ExitSuccess && Opts.Summary)
    printSummary(
        *Sketch, *Routes, Sched, *Program, Stats, Opts,
        FusionDropped ? "; the fused program did not verify"
        : std::count(CG.NoFuseRanks.begin(), CG.NoFuseRanks.end(), true)
            ? fmt::format("; {} rank(s) unfused: fusion did not verify",
                          std::count(CG.NoFuseRanks.begin(),
                                     CG.NoFuseRanks.end(), true))
            : std::string());
  return Rc;
}
