//===- tools/tacclc/Compile.cpp - The compile command ---------------------===//
//
// The stage chain of `tacclc FILE.sketch`, as one readable function:
//
//   read -> parse (AST) -> Sema (ir::Sketch) -> route (MILP on CBC)
//        -> list schedule -> lower (ir::Program) -> XML -> verify -> write
//
// `--emit=` stops after a stage and prints it. Every output path is checked
// before the solve; the XML is verified by the runtime's own loader and
// symbolic checker before anything is written, and the output file and the
// report are written together and atomically, so a failed compile never
// leaves a half-written, unverified or half-reported result behind.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"
#include "frontend/Frontend.h"
#include "ir/Printer.h"
#include "passes/Synthesize.h"
#include "passes/TimeModel.h"
#include "solver/LpWriter.h"
#include "support/InputFile.h"
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/CompileReport.h"
#include "tools/tacclc/Machine.h"
#include "tools/tacclc/Output.h"
#include "tools/tacclc/ProgramTimes.h"

#include "support/Deadline.h"
#include "support/Memory.h"

#include "format/Loader.h"
#include "format/Poll.h"
#include "sim/Simulator.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

using namespace tacclc;

namespace {
/// Writes \p Text to the output (stdout when none), atomically for files.
int emitText(const CompileOptions &Opts, DiagnosticEngine &Diags,
             const std::string &Text) {
  return writeOutput(Opts.Output, Text, Diags);
}

/// The runtime's verdict on generated XML (verifyXml); any failure is a
/// compiler bug.
void verifyOrDie(const tacclrt::Report &Rep) {
  if (!Rep.hasErrors())
    return;
  reportInternalError("the generated algorithm failed verification:\n" +
                      Rep.str());
}

/// How many slices of its protocol the runtime cuts one chunk into at the
/// largest size the sketch is meant for (each slice is one pass over every
/// threadblock's steps).
uint64_t slicesPerChunk(const ir::Sketch &S) {
  uint64_t Bytes = std::max(S.SizeBytes, S.MaxBytes);
  uint64_t Chunks = uint64_t(chunksPerLoop(S.Coll)) * std::max(1u, S.Instances);
  uint64_t PerChunk = runtimeBytes(S.Coll, Bytes) / Chunks;
  uint64_t Slice = tacclrt::protocolSliceBytes(
      tacclrt::parseProtocol(S.Protocol).value_or(tacclrt::Protocol::Simple));
  return (PerChunk + Slice - 1) / Slice;
}
} // namespace

/// The compile after the driver's setup (runCompile): everything but the
/// reporting of a deadline that passes. Sets \p Limit to how the compile's
/// time limit was made up, for that report.
static int compile(const CompileOptions &Opts, DiagnosticEngine &Diags,
                   std::chrono::steady_clock::time_point Began,
                   std::string &Limit) {
  llvm::SourceMgr &SM = Diags.getSourceMgr();
  auto Fail = [&] {
    Diags.flush(llvm::errs());
    return ExitUserError;
  };
  // What the compile is doing, for the time-limit and out-of-memory
  // messages; the stages name their own steps.
  std::optional<PhaseScope> Phase(std::in_place, "reading the sketch");

  std::string Why;
  auto Buf = readSourceFile(Opts.Input, Why);
  if (!Buf) {
    Diags.report(DiagId::CannotOpenFile, llvm::SMRange(), Opts.Input, Why);
    return Fail();
  }
  unsigned Id = SM.AddNewSourceBuffer(std::move(Buf), llvm::SMLoc());

  FrontendOptions FO;
  FO.IncludeDirs = Opts.IncludeDirs;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  auto Modules = loadModules(SM, Id, FO, Diags);
  if (!Modules)
    return Fail();
  // Every output must be writable (and none an input) before the solve.
  std::vector<std::string> OutputPaths{Opts.Output};
  if (!Opts.ReportFile.empty())
    OutputPaths.push_back(Opts.ReportFile);
  if (!checkOutputs(OutputPaths, Diags))
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
  ir::CollectiveKind Kind = Sketch->Coll.getKind();
  if (Opts.LegacyDialect && (Kind == ir::CollectiveKind::Gather ||
                             Kind == ir::CollectiveKind::Scatter)) {
    Diags.report(DiagId::DialectLacksCollective, Sketch->CollectiveLoc,
                 ir::collectiveName(Kind).str());
    return Fail();
  }

  // Solver settings: the command line, else the sketch, else the defaults.
  SynthesisOptions Synth = Opts.Synthesis;
  for (StageOptions *Stage : {&Synth.Routing, &Synth.Scheduling}) {
    if (!Opts.TimeLimitGiven && Sketch->TimeLimitSeconds)
      Stage->TimeLimitSeconds = *Sketch->TimeLimitSeconds;
    if (!Opts.GapGiven && Sketch->RelativeGap)
      Stage->RelativeGap = *Sketch->RelativeGap;
  }
  Synth.MeasureReduction =
      Opts.Stats || Opts.Summary || Opts.Verbose || !Opts.ReportFile.empty();
  // Time and memory (docs/synthesis.md, "Time and memory limits"): the
  // stages' limits, plus a tenth (at least a second) for the front end,
  // lowering and verification, bound the whole compile.
  double StageSeconds = synthesisTimeLimit(*Sketch, Synth);
  double Grace = std::max(1.0, 0.1 * StageSeconds);
  Limit = fmt::format("{:g} s (the stages' time limits, {:g} s, plus {:g} s)",
                      StageSeconds + Grace, StageSeconds, Grace);
  DeadlineScope CompileLimit(Deadline::after(Began, StageSeconds + Grace),
                             StageSeconds + Grace);
  Synth.Routing.Memory = Synth.Scheduling.Memory =
      memoryBudget(Opts.MaxMemoryBytes);
  SynthesisHooks Hooks;
  std::string Models;
  if (Opts.Emit == EmitKind::Milp)
    Hooks.OnModel = [&](llvm::StringRef Stage, const solver::Model &M) {
      Models += toText([&](llvm::raw_ostream &OS) {
        OS << "\\ stage: " << Stage << "\n";
        solver::writeLp(M, OS);
      });
    };
  if (Opts.Verbose)
    Hooks.OnStage = [&](const StageReport &R) {
      llvm::errs() << formatStage(R) << "\n";
    };
  Phase.reset();
  auto Result = synthesize(*Sketch, Synth, Diags, Hooks);
  if (!Result)
    return Fail();
  Phase.emplace("generating the program");
  Diags.flush(llvm::errs());
  if (Opts.Stats) {
    for (const StageReport &R : Result->Stages)
      llvm::errs() << "stats: " << formatStageStats(R) << "\n";
    llvm::errs() << "stats: compiler peak memory "
                 << formatBytes(peakResidentBytes()) << " (budget "
                 << (Synth.Routing.Memory.Bytes
                         ? formatBytes(Synth.Routing.Memory.Bytes) + ", " +
                               Synth.Routing.Memory.Source
                         : std::string("none"))
                 << ")\n";
  }
  if (Opts.Emit == EmitKind::Milp)
    return emitText(Opts, Diags, Models);
  if (Opts.Emit == EmitKind::Routes)
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      ir::printRoutes(Result->routed(*Sketch), Result->Routes,
                                      OS);
                    }));
  const ir::Schedule &Sched = Result->Schedule;
  if (Opts.Emit == EmitKind::Schedule)
    return emitText(Opts, Diags, toText([&](llvm::raw_ostream &OS) {
                      ir::printSchedule(*Sketch, Sched, OS);
                    }));

  CodegenOptions CG;
  CG.MergeContiguous = Sketch->Instances <= 1;
  // Fused threadblocks keep the schedule's order, in which a connection's
  // messages overlap their latency as far as the FIFO lets them
  // (passes/TimeModel.h); verified below, else lowered again for a FIFO of
  // one message.
  CG.FifoMessages = TimeModel(*Sketch).fifoMessages(1);
  // Several slices per chunk: consecutive slices may overlap when a link's
  // transfers are split into waves (codegen/Streams.cpp). Whether that is
  // faster depends on the algorithm, so both programs are simulated on the
  // sketch's machine at its size below, and the faster one is kept.
  const bool TryWaves = slicesPerChunk(*Sketch) > 1;
  if (Opts.LegacyDialect) {
    CG.setDialect(tacclrt::Dialect::Legacy);
  }
  // Lower, replicate instances, set the size range and print; first with
  // relays fused into rcs steps, and if that program does not verify (the
  // fused threadblocks order steps more strictly), without.
  std::optional<ir::Program> Program;
  auto BuildWith = [&](DiagnosticEngine &D) -> std::optional<std::string> {
    Program = lowerToProgram(*Sketch, Sched, CG, D);
    if (!Program ||
        !replicateInstances(*Program, Sketch->Instances, CG, Sketch->Loc, D))
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
  auto Build = [&] { return BuildWith(Diags); };
  std::optional<std::string> Xml;
  if (TryWaves && Opts.Overlap == SliceOverlap::On) {
    CG.PipelineWaves = CG.SeparateHalves = true;
  } else if (TryWaves && Opts.Overlap == SliceOverlap::Auto &&
             !Opts.LegacyDialect) {
    // Trial lowerings report into an engine of their own: a variant the
    // runtime's limits refuse is simply not chosen.
    auto Trial = [&](bool Waves) -> std::optional<double> {
      DiagnosticEngine Quiet(Diags.getSourceMgr());
      CG.PipelineWaves = CG.SeparateHalves = Waves;
      std::optional<std::string> X = BuildWith(Quiet);
      return X ? simulatedUs(*X, *Sketch) : std::nullopt;
    };
    std::optional<double> WithWaves = Trial(true), Without = Trial(false);
    // Waves only when they simulate faster (ties: fewer threadblocks).
    CG.PipelineWaves = CG.SeparateHalves =
        WithWaves && (!Without || *WithWaves < *Without);
  }
  Xml = Build();
  if (!Xml)
    return Fail();
  // Fusion keeps every threadblock in schedule order, which cannot deadlock
  // (codegen/FuseRelays.cpp); should a fused program still fail to verify,
  // it is lowered again with the ranks the verifier named left unfused, and
  // after a few rounds with no fusion at all (--summary says so). A fused
  // program ordered for a FIFO of several messages that does not verify is
  // first lowered for a FIFO of one; the program that keeps the FIFO's
  // order with the named ranks unfused instead is also built, and the
  // faster of the two in the simulator is kept.
  bool FusionDropped = false;
  CG.NoFuseRanks.assign(Sketch->Topo.getNumRanks(), false);
  tacclrt::Report Rep; // of the last program built
  // Verifies Xml, lowering again as above until it verifies; false when a
  // lowering fails (its errors in D).
  auto Settle = [&](bool MayDropFifo, DiagnosticEngine &D) {
    for (unsigned Round = 0;; ++Round) {
      PhaseScope Verifying("verifying the program");
      Rep = verifyXml(*Xml, Opts.LegacyDialect, Sketch->IdenticalResults);
      if (!Rep.hasErrors() || !CG.FuseRelays)
        return true;
      if (CG.FifoMessages > 1 && MayDropFifo) {
        // Fusion is proved deadlock-free for a FIFO of one message.
        CG.FifoMessages = 1;
      } else {
        bool Named = false;
        for (const tacclrt::Issue &I : Rep)
          if (I.Rank >= 0 && unsigned(I.Rank) < CG.NoFuseRanks.size() &&
              !CG.NoFuseRanks[I.Rank])
            CG.NoFuseRanks[I.Rank] = Named = true;
        if (!Named || Round == 4) {
          CG.FuseRelays = false;
          FusionDropped = true;
        }
      }
      Xml = BuildWith(D);
      if (!Xml)
        return false;
    }
  };
  const CodegenOptions Ordered = CG;
  bool UnfusedFaster = false; // the FIFO's order kept, some ranks unfused
  if (!Settle(/*MayDropFifo=*/true, Diags))
    return Fail();
  if (Ordered.FifoMessages > 1 && CG.FifoMessages == 1 && !Rep.hasErrors() &&
      !Opts.LegacyDialect) {
    PhaseScope Trying("comparing fused orders");
    const CodegenOptions OneMessage = CG;
    const bool OneDropped = FusionDropped;
    std::string OneXml = *Xml;
    CG = Ordered;
    FusionDropped = false;
    DiagnosticEngine Quiet(Diags.getSourceMgr());
    Xml = BuildWith(Quiet);
    std::optional<double> Kept =
        Xml && Settle(/*MayDropFifo=*/false, Quiet) && !Rep.hasErrors()
            ? simulatedUs(*Xml, *Sketch)
            : std::nullopt;
    std::optional<double> One = simulatedUs(OneXml, *Sketch);
    if (Kept && (!One || *Kept < *One)) {
      // Xml, Program and Rep are already the unfused program's.
      UnfusedFaster = true;
    } else {
      // Lower the fused one again, so that Program is its program.
      CG = OneMessage;
      FusionDropped = OneDropped;
      Xml = Build();
      if (!Xml)
        return Fail();
      Rep = verifyXml(*Xml, Opts.LegacyDialect, Sketch->IdenticalResults);
    }
  }
  verifyOrDie(Rep);
  if (!Opts.Summary && Opts.ReportFile.empty())
    return emitText(Opts, Diags, *Xml);
  size_t Unfused =
      std::count(CG.NoFuseRanks.begin(), CG.NoFuseRanks.end(), true);
  CallPrediction Predicted = predictCall(*Sketch, Sched);
  ProgramTimes Times;
  if (Opts.LegacyDialect)
    Times.RefereeNote = "the legacy dialect is not simulated";
  else
    Times = timeProgram(*Xml, *Sketch, Predicted,
                        CG.FuseRelays ? CG.FifoMessages : 0);
  CompileFacts Facts{
      *Sketch,
      *Result,
      *Program,
      FusionDropped && UnfusedFaster
          ? "; unfused: faster than relays fused for a FIFO of one message"
      : FusionDropped ? "; the fused program did not verify"
      : Unfused && UnfusedFaster
          ? fmt::format("; {} rank(s) unfused: faster than relays fused for "
                        "a FIFO of one message",
                        Unfused)
      : Unfused
          ? fmt::format("; {} rank(s) unfused: fusion did not verify", Unfused)
          : std::string(),
      Opts.Output,
      Predicted,
      std::move(Times),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Began)
          .count()};
  // The program and its report are written together, or neither is.
  std::vector<OutputFile> Outputs{{Opts.Output, *Xml}};
  if (!Opts.ReportFile.empty())
    Outputs.push_back({Opts.ReportFile, reportJson(Facts)});
  int Rc = writeOutputs(Outputs, Diags);
  if (Rc == ExitSuccess && Opts.Summary)
    printSummary(Facts);
  return Rc;
}

int tacclc::runCompile(const CompileOptions &Opts) {
  auto Began = std::chrono::steady_clock::now();
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Diags.setShowNames(Opts.DiagNames);
  // The checker and the simulator stop at the deadline too.
  tacclrt::PollHook Saved = tacclrt::setPollHook(&checkDeadline);
  std::string Limit;
  int Rc;
  try {
    Rc = compile(Opts, Diags, Began, Limit);
  } catch (const TimeLimitExceeded &E) {
    Diags.report(DiagId::CompileTimeLimit, llvm::SMRange(), E.phase(), Limit);
    Diags.flush(llvm::errs());
    Rc = ExitUserError;
  }
  tacclrt::setPollHook(Saved);
  return Rc;
}
