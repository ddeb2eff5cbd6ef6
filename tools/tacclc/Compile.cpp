//===- tools/tacclc/Compile.cpp - The compile command ---------------------===//
//
// The stage chain of `tacclc FILE.sketch`, as one readable function:
//
//   read -> parse (AST) -> Sema (ir::Sketch) -> route (MILP on CBC)
//        -> list schedule -> emitVerified (lower, XML, verify) -> write
//
// `--emit=` stops after a stage and prints it. Every output path is checked
// before the solve; codegen/EmitVerified.h chooses how to lower and proves
// the XML with the runtime's own loader and symbolic checker before
// anything is written, and the output file and the report are written
// together and atomically, so a failed compile never leaves a half-written,
// unverified or half-reported result behind.
//
//===----------------------------------------------------------------------===//
#include "codegen/EmitVerified.h"
#include "frontend/Frontend.h"
#include "frontend/MachineRef.h"
#include "ir/Printer.h"
#include "passes/Synthesize.h"
#include "passes/TimeModel.h"
#include "solver/LpWriter.h"
#include "support/InputFile.h"
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/CompileReport.h"
#include "tools/tacclc/Output.h"
#include "tools/tacclc/ProgramTimes.h"
#include "tools/tacclc/ProtocolPrograms.h"
#include "tools/tacclc/Provenance.h"

#include "support/Deadline.h"
#include "support/Memory.h"
#include "support/Stdlib.h"

#include "format/Poll.h"

#include "llvm/ADT/StringExtras.h"
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

/// The `--list` lines of module \p Module, each indented by \p Indent, an
/// imported module's sketches by the qualified names --sketch takes; false
/// when it declares nothing.
bool listModule(const ModuleSet &Mods, unsigned Module, llvm::StringRef Indent,
                DiagnosticEngine &Diags, llvm::raw_ostream &OS) {
  std::vector<std::string> Machines = describeMachines(Mods, Diags, Module);
  std::vector<SketchSummary> Sketches = listSketches(Mods, Module);
  const std::string Qualifier =
      Module == 0 ? "" : Mods.Modules[Module].Name + ".";
  for (const std::string &Line : Machines)
    OS << Indent << Line << "\n";
  for (const SketchSummary &S : Sketches)
    OS << Indent << "sketch " << Qualifier << S.Name << " " << S.On << "\n";
  return !Machines.empty() || !Sketches.empty();
}

/// `--list`: the machines and sketches of the main file; for a file that
/// declares none, what each of its imports declares, indented under it (so
/// that no imported sketch reads as one of the file's own).
int listModules(const CompileOptions &Opts, const ModuleSet &Mods,
                DiagnosticEngine &Diags) {
  std::string Text = toText([&](llvm::raw_ostream &OS) {
    if (listModule(Mods, 0, "", Diags, OS))
      return;
    const SourceModule &Main = Mods.Modules[0];
    OS << Opts.Input << " declares no machines or sketches";
    if (Main.Imports.empty()) {
      OS << " and imports nothing\n";
      return;
    }
    OS << "; it imports:\n";
    for (size_t I = 0; I < Main.Imports.size(); ++I) {
      OS << "  \"" << Main.Ast->Imports[I]->Path << "\"\n";
      std::string Body = toText([&](llvm::raw_ostream &Lines) {
        listModule(Mods, Main.Imports[I], "    ", Diags, Lines);
      });
      OS << (Body.empty() ? "    (no machines or sketches)\n" : Body);
    }
  });
  if (Diags.hasErrors()) {
    Diags.flush(llvm::errs());
    return ExitUserError;
  }
  return emitText(Opts, Diags, Text);
}

/// Solver settings: the command line, else the sketch, else the defaults;
/// the target runtime's limits.
SynthesisOptions solverSettings(const CompileOptions &Opts,
                                const ir::Sketch &Sketch) {
  SynthesisOptions Synth = Opts.Synthesis;
  for (StageOptions *Stage : {&Synth.Routing, &Synth.Scheduling})
    if (!Opts.GapGiven && Sketch.RelativeGap)
      Stage->RelativeGap = *Sketch.RelativeGap;
  Synth.MeasureReduction =
      Opts.Stats || Opts.Summary || Opts.Verbose || !Opts.ReportFile.empty();
  // Routes, schedules and models are printed whatever a runtime allows:
  // they are how a sketch that breaks a limit is looked into.
  const tacclrt::DialectLimits &Runtime =
      tacclrt::limitsOf(Opts.LegacyDialect ? tacclrt::Dialect::Legacy
                                           : tacclrt::Dialect::Executor);
  if (Opts.Emit == EmitKind::Xml) {
    Synth.Runtime.WaitedThreadblocks = Runtime.DependencyTb + 1;
    Synth.Runtime.XmlElements = Runtime.XmlNodesPerRank;
  } else {
    Synth.Runtime = RankLimits::none();
  }
  return Synth;
}

/// The compile's time limit in seconds: --time-limit N, else the sketch's
/// `time limit`, else the sum of the stages' own limits. With a limit of
/// its own, a stage the command line does not name has none of its own.
/// \p Why says where the limit came from, for the diagnostic at the limit.
double compileTimeLimit(const CompileOptions &Opts, const ir::Sketch &Sketch,
                        SynthesisOptions &Synth, std::string &Why) {
  std::optional<double> Whole = Opts.TimeLimitSeconds;
  Why = "--time-limit";
  if (!Whole && Sketch.TimeLimitSeconds) {
    Whole = Sketch.TimeLimitSeconds;
    Why = "the sketch's time limit";
  }
  if (!Whole) {
    Why = "the sum of the stages' own limits";
    return synthesisTimeLimit(Sketch, Synth);
  }
  if (!Opts.RoutingLimitGiven)
    Synth.Routing.TimeLimitSeconds = 0;
  if (!Opts.ScheduleLimitGiven)
    Synth.Scheduling.TimeLimitSeconds = 0;
  return *Whole;
}

/// What the compile watches synthesis for: each model as LP text into
/// \p Models (--emit=milp), each stage's report (-v).
SynthesisHooks synthesisHooks(const CompileOptions &Opts, std::string &Models) {
  SynthesisHooks Hooks;
  std::string *Out = &Models;
  if (Opts.Emit == EmitKind::Milp)
    Hooks.OnModel = [Out](llvm::StringRef Stage, const solver::Model &M) {
      *Out += toText([&](llvm::raw_ostream &OS) {
        OS << "\\ stage: " << Stage << "\n";
        solver::writeLp(M, OS);
      });
    };
  if (Opts.Verbose)
    Hooks.OnStage = [](const StageReport &R) {
      llvm::errs() << formatStage(R) << "\n";
    };
  return Hooks;
}

/// `--stats`: every stage's model and solve, and the peak memory.
void printStats(const Synthesis &Result, const SynthesisOptions &Synth) {
  for (const StageReport &R : Result.Stages)
    llvm::errs() << "stats: " << formatStageStats(R) << "\n";
  llvm::errs() << "stats: compiler peak memory "
               << formatBytes(peakResidentBytes()) << " (budget "
               << (Synth.Routing.Memory.Bytes
                       ? formatBytes(Synth.Routing.Memory.Bytes) + ", " +
                             Synth.Routing.Memory.Source
                       : std::string("none"))
               << ")\n";
}

/// Writes the program and, where asked, its report (together, or neither)
/// and prints the summary: the prediction, the simulated times (simulated
/// until the compile's limit of \p LimitSeconds from \p Began at the
/// latest: they are not worth its tolerance) and how the program was
/// lowered.
int writeProgram(const CompileOptions &Opts, DiagnosticEngine &Diags,
                 const ir::Sketch &Sketch, const Synthesis &Result,
                 const EmittedProgram &Emitted,
                 std::optional<ProtocolChoice> Protocols,
                 std::chrono::steady_clock::time_point Began,
                 double LimitSeconds,
                 const std::vector<PartProgram> *Parts = nullptr) {
  CallPrediction Predicted = predictCall(Sketch, Result.Schedule);
  ProgramTimes Times;
  const CodegenOptions &CG = Emitted.Options;
  if (Opts.LegacyDialect) {
    Times.RefereeNote = "the legacy dialect is not simulated";
  } else {
    Deadline TimesBy = Deadline::after(Began, LimitSeconds);
    DeadlineScope Simulating(TimesBy.earliest(compileDeadline()), LimitSeconds);
    Times = timeProgram(Emitted.Plan, Sketch, Predicted,
                        CG.FuseRelays ? CG.FifoMessages : 0, !Opts.NoReferee,
                        Emitted.Simulation ? &*Emitted.Simulation : nullptr,
                        Emitted.SimulationStopped, Opts.TrialFlowUpdates);
  }
  CompileFacts Facts{
      Sketch,
      Result,
      Emitted.Program,
      Emitted.fusionNote(),
      Opts.Output,
      Predicted,
      std::move(Times),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Began)
          .count(),
      std::move(Protocols)};
  Facts.NicsPaced = CG.PaceNics;
  Facts.TrialNote = Emitted.trialNote();
  // The programs and the report are written together, or none is.
  std::vector<OutputFile> Outputs;
  if (Parts) {
    for (const PartProgram &Part : *Parts) {
      Outputs.push_back({Part.Path, Part.Emitted.Xml});
      Facts.Parts.push_back({Part.Path, Part.Piece});
    }
  } else {
    Outputs.push_back({Opts.Output, Emitted.Xml});
  }
  if (!Opts.ReportFile.empty())
    Outputs.push_back({Opts.ReportFile, reportJson(Facts)});
  int Rc = writeOutputs(Outputs, Diags);
  if (Rc == ExitSuccess && Opts.Summary)
    printSummary(Facts);
  return Rc;
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
  FO.StdlibDir = stdlibDir();
  auto Modules = loadModules(SM, Id, FO, Diags);
  if (!Modules)
    return Fail();
  // Every output must be writable (and none an input) before the solve.
  std::vector<std::string> OutputPaths{Opts.Output};
  if (!Opts.ReportFile.empty())
    OutputPaths.push_back(Opts.ReportFile);
  if (!checkOutputs(OutputPaths, Diags))
    return Fail();
  if (Opts.List)
    return listModules(Opts, *Modules, Diags);
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

  // `protocol auto`: the stages assume the protocol the time model favours
  // at this size; the program is re-timed under each below.
  Sketch->Protocol = stageProtocol(*Sketch);
  SynthesisOptions Synth = solverSettings(Opts, *Sketch);
  // Time (docs/synthesis.md, "Time and memory limits"): the stages share
  // the compile's limit until nine tenths of it, leaving the rest to
  // lowering and verification; whatever still runs half the tolerance (a
  // tenth of the limit, at least 1 s) past the limit stops.
  std::string Source;
  double Seconds = compileTimeLimit(Opts, *Sketch, Synth, Source);
  double Tolerance = std::max(1.0, 0.1 * Seconds);
  Limit = fmt::format("{:g} s ({})", Seconds, Source);
  Synth.Until = Deadline::after(Began, 0.9 * Seconds);
  DeadlineScope CompileLimit(Deadline::after(Began, Seconds + Tolerance / 2),
                             Seconds);
  Synth.Routing.Memory = Synth.Scheduling.Memory =
      memoryBudget(Opts.MaxMemoryBytes);
  std::string Models; // --emit=milp
  SynthesisHooks Hooks = synthesisHooks(Opts, Models);
  Phase.reset();
  auto Result = synthesize(*Sketch, Synth, Diags, Hooks);
  if (!Result)
    return Fail();
  Phase.emplace("generating the program");
  Diags.flush(llvm::errs());
  if (Opts.Stats)
    printStats(*Result, Synth);
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

  // Fused threadblocks keep the schedule's order, in which a connection's
  // messages overlap their latency as far as the FIFO lets them
  // (passes/TimeModel.h); emitVerified lowers again for a FIFO of one
  // message should that program fail verification.
  EmitOptions EO;
  EO.Dialect = Opts.LegacyDialect ? tacclrt::Dialect::Legacy
                                  : tacclrt::Dialect::Executor;
  EO.Overlap = Opts.Overlap;
  EO.Pacing = Opts.Pacing;
  EO.TrialFlowUpdates = Opts.TrialFlowUpdates;
  EO.FifoMessages = TimeModel(*Sketch).fifoMessages(1);
  EO.Origin = compiledProvenance(*Sketch, SM, Opts.Output);
  // A sketch with a protocol list is written only as its parts; any other
  // is lowered once here (`protocol auto` then simulates it under each).
  std::optional<EmittedProgram> Emitted;
  std::optional<ProtocolChoice> Protocols;
  if (Sketch->ProtocolRanges.empty()) {
    Emitted = emitVerified(*Sketch, Sched, EO, Diags);
    if (!Emitted)
      return Fail();
    if (Sketch->ProtocolAuto) {
      Phase.emplace("choosing the protocol");
      Protocols = chooseProtocol(Emitted->Plan, *Sketch, EO.TrialFlowUpdates);
    }
  }
  // A protocol per part of the size range: one program each, written
  // beside the output file.
  bool ToFile = !Opts.Output.empty() && Opts.Output != "-";
  std::vector<ProtocolPiece> Pieces =
      protocolPieces(*Sketch, Protocols ? &*Protocols : nullptr, ToFile);
  if (!alignPieces(*Sketch, Pieces, Diags))
    return Fail();
  if (Pieces.size() > 1) {
    if (!ToFile) {
      std::vector<std::string> Names;
      for (const ProtocolPiece &P : Pieces)
        Names.push_back(std::string(tacclrt::nameOf(P.Proto)));
      Diags.report(DiagId::ProtocolsNeedFile, Sketch->Loc, Sketch->Name,
                   Pieces.size(), llvm::join(Names, ", "));
      return Fail();
    }
    Phase.emplace("generating a program per protocol");
    auto Parts = emitPieces(*Sketch, Sched, EO, SM, Opts.Output, Pieces, Diags);
    if (!Parts)
      return Fail();
    // The summary and report describe the part of the design point.
    size_t Design = 0;
    for (size_t I = 0; I < Parts->size(); ++I)
      if ((*Parts)[I].Piece.MinBytes <= Sketch->SizeBytes)
        Design = I;
    const PartProgram &D = (*Parts)[Design];
    return writeProgram(Opts, Diags, D.Sketch, *Result, D.Emitted,
                        std::move(Protocols), Began, Seconds, &*Parts);
  }
  // One program: under `protocol auto`, for the winner.
  if (Protocols && Protocols->Best != Emitted->Plan.Proto) {
    Sketch->Protocol = std::string(tacclrt::nameOf(Protocols->Best));
    EO.FifoMessages = TimeModel(*Sketch).fifoMessages(1);
    Emitted = emitVerified(*Sketch, Sched, EO, Diags);
    if (!Emitted)
      return Fail();
  }
  if (!Opts.Summary && Opts.ReportFile.empty())
    return emitText(Opts, Diags, Emitted->Xml);
  return writeProgram(Opts, Diags, *Sketch, *Result, *Emitted,
                      std::move(Protocols), Began, Seconds);
}

int tacclc::runCompile(const CompileOptions &Opts) {
  // The limit counts the command's whole wall time, its start-up included.
  auto Began = processStart();
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
