//===- tools/tacclc/tacclc.cpp - The tacclc command-line driver -----------===//
//
// Parses the command line (llvm::cl) and hands over to one command file:
//
//   tacclc FILE.sketch -o OUT.xml      Compile.cpp (options declared here)
//   tacclc check | run FILE.xml        Execute.cpp
//   tacclc sim FILE.xml [--topology T] Simulate.cpp
//   tacclc baseline ALGO ...           Baseline.cpp
//   tacclc bounds [FILE.xml] ...      Bounds.cpp
//   tacclc fmt [-i | --check] FILE...  Fmt.cpp
//   tacclc import-taccl SKETCH.json    ImportTaccl.cpp
//   tacclc tune --topology T ...       Tune.cpp (TuneJob, TunePlan, TuneReport)
//   tacclc lsp                         lsp/LspServer.h
//
// The subcommands' options are declared in Subcommands.cpp. Usage errors
// exit with 2 (llvm::cl is asked to return instead of exiting).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/Subcommands.h"

#include "format/Diagnostic.h"
#include "sim/SimGrid.h"
#include "solver/Subprocess.h"
#include "support/Memory.h"
#include "support/Sizes.h"
#include "support/Stdlib.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

using namespace llvm;
using namespace tacclc;

namespace {
cl::OptionCategory CompileCat("Compile options");

// Compile (top level).
cl::opt<std::string> Input(cl::Positional, cl::desc("<file.sketch>"),
                           cl::sub(*cl::TopLevelSubCommand),
                           cl::cat(CompileCat));
cl::opt<std::string> Output("o",
                            cl::desc("Write the output here (atomically; "
                                     "default: stdout)"),
                            cl::value_desc("file"),
                            cl::sub(*cl::TopLevelSubCommand),
                            cl::cat(CompileCat));
cl::opt<std::string> SketchName("sketch",
                                cl::desc("Compile this sketch of the file"),
                                cl::value_desc("name"),
                                cl::sub(*cl::TopLevelSubCommand),
                                cl::cat(CompileCat));
cl::opt<EmitKind> Emit(
    "emit", cl::desc("Stop after a stage and print its output"),
    cl::values(
        clEnumValN(EmitKind::Ast, "ast", "the syntax tree"),
        clEnumValN(EmitKind::Ir, "ir", "the resolved sketch"),
        clEnumValN(EmitKind::Dot, "dot", "the logical topology as Graphviz"),
        clEnumValN(EmitKind::Milp, "milp",
                   "each stage's MILP in CPLEX LP format"),
        clEnumValN(EmitKind::Routes, "routes", "each chunk's links"),
        clEnumValN(EmitKind::Schedule, "schedule", "timed transfers per link"),
        clEnumValN(EmitKind::Xml, "xml", "verified TACCL-EF XML (default)")),
    cl::init(EmitKind::Xml), cl::sub(*cl::TopLevelSubCommand),
    cl::cat(CompileCat));
cl::list<std::string> IncludeDirs("I",
                                  cl::desc("Search this folder for imports "
                                           "(before $TACCLC_PATH and the "
                                           "standard library)"),
                                  cl::value_desc("dir"), cl::Prefix,
                                  cl::sub(*cl::TopLevelSubCommand),
                                  cl::cat(CompileCat));
cl::opt<bool>
    List("list",
         cl::desc("Check and list the machines and sketches of the file"),
         cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
// Solver settings: one value for every stage, or STAGE=VALUE pairs.
cl::opt<std::string> TimeLimit(
    "time-limit",
    cl::desc("Seconds the whole compile may take, from reading the sketch "
             "to writing the program (model building, solves, lowering and "
             "verification included; it ends within a tenth or 1 s more): "
             "N; or routing=N,schedule=M: each stage's own limit, the "
             "compile then their sum (60 s each by default); or both, e.g. "
             "30,routing=10. At the limit the best solution found so far is "
             "kept (with a warning); without one the compile fails and "
             "writes nothing"),
    cl::value_desc("spec"), cl::sub(*cl::TopLevelSubCommand),
    cl::cat(CompileCat));
cl::opt<std::string> MaxMemory(
    "max-memory",
    cl::desc("Memory the compile may use, solver included, e.g. 4G, 4GiB "
             "or 512MiB (G, GiB: powers of 2; GB: of 10) "
             "(default: half the physical memory; never more than ulimit -v "
             "and -d allow; 'none' for no budget). A model that cannot fit "
             "is refused before it is built"),
    cl::value_desc("size"), cl::sub(*cl::TopLevelSubCommand),
    cl::cat(CompileCat));
cl::opt<std::string>
    Gap("gap",
        cl::desc("Accepted relative MILP gap (default routing 1e-3, "
                 "schedule 1e-4): G, or routing=G,schedule=H"),
        cl::value_desc("spec"), cl::sub(*cl::TopLevelSubCommand),
        cl::cat(CompileCat));
cl::opt<std::string>
    Threads("threads",
            cl::desc("Solver threads (default 1: reproducible): N, or "
                     "routing=N,schedule=M"),
            cl::value_desc("spec"), cl::sub(*cl::TopLevelSubCommand),
            cl::cat(CompileCat));
cl::opt<bool> Verbose("v",
                      cl::desc("Print each stage as it ends; without a "
                               "terminal, also a progress line when a phase "
                               "has lasted a second and every 10 s"),
                      cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<std::string>
    ReportFile("report",
               cl::desc("Write a JSON account of the compile (stage times, "
                        "solver outcomes, predicted time)"),
               cl::value_desc("file"), cl::sub(*cl::TopLevelSubCommand),
               cl::cat(CompileCat));
cl::opt<bool> NoExactSchedule(
    "no-exact-schedule",
    cl::desc("Skip stage 3 (contiguity MILP); keep the stage-2 schedule"),
    cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<SliceOverlap> Overlap(
    "slice-overlap",
    cl::desc("Split link streams into waves so that buffer slices overlap "
             "(when a call takes several slices per chunk)"),
    cl::values(clEnumValN(SliceOverlap::Auto, "auto",
                          "where it simulates faster (default)"),
               clEnumValN(SliceOverlap::On, "on", "always"),
               clEnumValN(SliceOverlap::Off, "off", "never")),
    cl::init(SliceOverlap::Auto), cl::sub(*cl::TopLevelSubCommand),
    cl::cat(CompileCat));
cl::opt<NicPacing>
    Pacing("pace-nics",
           cl::desc("Make a rank's sends through its NIC to other nodes "
                    "wait their turn in the schedule"),
           cl::values(clEnumValN(NicPacing::Auto, "auto",
                                 "where it simulates faster (default)"),
                      clEnumValN(NicPacing::On, "on", "always"),
                      clEnumValN(NicPacing::Off, "off", "never")),
           cl::init(NicPacing::Auto), cl::sub(*cl::TopLevelSubCommand),
           cl::cat(CompileCat));
cl::opt<unsigned long> TrialFlowUpdates(
    "trial-work",
    cl::desc("Work budget of each trial simulation (waves, pacing, fused "
             "orders, `protocol auto`): messages in flight summed over its "
             "events (default 2^30; 0: no limit)"),
    cl::init(static_cast<unsigned long>(EmitOptions().TrialFlowUpdates)),
    cl::Hidden, cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<bool> SolverLog("solver-log", cl::desc("Show the MILP solver's log"),
                        cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<bool> NoSymmetry(
    "no-symmetry",
    cl::desc("Route every chunk, ignoring the sketch's symmetry (slower)"),
    cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<bool> Summary("summary",
                      cl::desc("Print a summary of the compiled algorithm"),
                      cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<bool> NoReferee(
    "no-referee",
    cl::desc("Leave the SimGrid referee's time out of --summary and --report "
             "(on large machines its simulation takes longer than the "
             "compile)"),
    cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));

/// Parses a per-stage setting: "V" for both stages, or a comma-separated
/// list of "routing=V" and "schedule=V" (a stage not named keeps its
/// default). Values must lie in [Lo, Hi]. Prints an error and returns false
/// on bad input.
bool parseStageValues(llvm::StringRef Option, llvm::StringRef Text, double Lo,
                      double Hi, double &Routing, double &Scheduling) {
  auto Value = [&](llvm::StringRef V, double &Out) {
    double D;
    if (V.trim().getAsDouble(D) || !(D >= Lo && D <= Hi)) {
      llvm::errs() << "tacclc: error: " << Option << ": '" << V
                   << fmt::format("' is not a number from {:g} to {:g}\n", Lo,
                                  Hi);
      return false;
    }
    Out = D;
    return true;
  };
  if (!Text.contains('='))
    return Value(Text, Routing) && Value(Text, Scheduling);
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ',');
  for (llvm::StringRef Part : Parts) {
    auto [Stage, V] = Part.split('=');
    Stage = Stage.trim();
    if (Stage == "routing") {
      if (!Value(V, Routing))
        return false;
    } else if (Stage == "schedule") {
      if (!Value(V, Scheduling))
        return false;
    } else {
      llvm::errs() << "tacclc: error: " << Option << ": unknown stage '"
                   << Stage << "' (expected routing or schedule)\n";
      return false;
    }
  }
  return true;
}

/// Parses --time-limit into \p O: a comma-separated list of "N" (the whole
/// compile) and "routing=N", "schedule=N" (a stage's own limit). Prints an
/// error and returns false on bad input.
bool parseTimeLimit(llvm::StringRef Text, CompileOptions &O) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ',');
  StageOptions &R = O.Synthesis.Routing, &Sc = O.Synthesis.Scheduling;
  for (llvm::StringRef Part : Parts) {
    double Whole = 0;
    if (!Part.contains('=')) {
      if (O.TimeLimitSeconds) {
        llvm::errs() << "tacclc: error: --time-limit: '" << Text
                     << "' gives the compile's limit twice\n";
        return false;
      }
      if (!parseStageValues("--time-limit", Part, 1e-3, 1e9, Whole, Whole))
        return false;
      O.TimeLimitSeconds = Whole;
      continue;
    }
    if (!parseStageValues("--time-limit", Part, 1e-3, 1e9, R.TimeLimitSeconds,
                          Sc.TimeLimitSeconds))
      return false;
    llvm::StringRef Stage = Part.split('=').first.trim();
    O.RoutingLimitGiven |= Stage == "routing";
    O.ScheduleLimitGiven |= Stage == "schedule";
  }
  return true;
}

/// Parses --max-memory: a size as parseByteSize reads one, or "none" (0: no
/// budget). Prints an error and returns nothing on bad input.
std::optional<uint64_t> parseMemory(llvm::StringRef Text) {
  if (Text.trim().equals_insensitive("none"))
    return 0;
  std::optional<uint64_t> Bytes = parseByteSize(Text);
  if (!Bytes)
    llvm::errs() << "tacclc: error: --max-memory: '" << Text
                 << "' is not a size or 'none': expected " << SizeSyntax
                 << " (e.g. 4G, 512MiB)\n";
  return Bytes;
}

/// The compile's options from the command line (\p Stats: --stats), or
/// nothing after printing what is wrong with them.
std::optional<CompileOptions> compileOptions(bool Stats) {
  bool Legacy = legacyDialect();
  CompileOptions O;
  O.Input = Input;
  O.Output = Output;
  O.SketchName = SketchName;
  O.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  O.List = List;
  O.Emit = Emit;
  O.LegacyDialect = Legacy;
  O.DiagNames = diagNames();
  O.Summary = Summary;
  O.NoReferee = NoReferee;
  O.Stats = Stats;
  O.GapGiven = Gap.getNumOccurrences() > 0;
  StageOptions &R = O.Synthesis.Routing, &Sc = O.Synthesis.Scheduling;
  double RThreads = 1, ScThreads = 1;
  // Options not given keep each stage's defaults (passes/Options.h).
  RThreads = R.Threads;
  ScThreads = Sc.Threads;
  if ((TimeLimit.getNumOccurrences() && !parseTimeLimit(TimeLimit, O)) ||
      (Gap.getNumOccurrences() &&
       !parseStageValues("--gap", Gap, 0, 0.999, R.RelativeGap,
                         Sc.RelativeGap)) ||
      (Threads.getNumOccurrences() &&
       !parseStageValues("--threads", Threads, 1, 256, RThreads, ScThreads)))
    return std::nullopt;
  R.Threads = unsigned(RThreads);
  Sc.Threads = unsigned(ScThreads);
  if (MaxMemory.getNumOccurrences()) {
    O.MaxMemoryBytes = parseMemory(MaxMemory);
    if (!O.MaxMemoryBytes)
      return std::nullopt;
  }
  // Progress: one live line on a terminal; without one, sparse lines under
  // -v, else nothing.
  solver::ProgressMode Progress = llvm::sys::Process::StandardErrIsDisplayed()
                                      ? solver::ProgressMode::Line
                                  : Verbose ? solver::ProgressMode::Lines
                                            : solver::ProgressMode::Off;
  for (StageOptions *St : {&R, &Sc}) {
    St->SolverLog = SolverLog;
    St->Progress = Progress;
  }
  O.Synthesis.UseSymmetry = !NoSymmetry;
  O.Synthesis.ExactScheduling = !NoExactSchedule;
  O.Overlap = Overlap;
  O.Pacing = Pacing;
  O.TrialFlowUpdates = long(std::min<unsigned long>(
      TrialFlowUpdates, std::numeric_limits<long>::max()));
  O.Verbose = Verbose;
  O.ReportFile = ReportFile;
  return O;
}
} // namespace

int main(int argc, char **argv) {
  std::vector<int> Ignored = solver::ignoredTerminationSignals();
  InitLLVM X(argc, argv);
  // An allocation failure is one line and exit status 2, not LLVM's abort;
  // SIGINT, SIGTERM and SIGHUP take the solver's child process along.
  installOutOfMemoryHandler();
  solver::installTerminationHandlers(Ignored);
  // LLVM registers its own `-stats` (LLVM statistics, meaningless here);
  // replace it with ours before parsing.
  if (cl::Option *LLVMStats = cl::getRegisteredOptions().lookup("stats"))
    LLVMStats->removeArgument();
  cl::opt<bool> Stats("stats", cl::desc("Print model sizes and solve times"),
                      cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
  // The version, and which standard library imports search (Stdlib.h).
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "tacclc " << TACCLC_VERSION << "\n"
       << describeStdlib(stdlibLocation()) << "\n"
       << tacclrt::describeSimGridEngines() << "\n";
  });
  std::vector<const cl::OptionCategory *> Shown = subcommandCategories();
  Shown.push_back(&CompileCat);
  cl::HideUnrelatedOptions(Shown);
  // `tacclc --help` gives the overview of every command, `tacclc SUB
  // --help` SUB's own paragraph.
  if (!cl::ParseCommandLineOptions(argc, argv, helpOverview(argc, argv),
                                   &errs()))
    return ExitInternal;
  // Runtime messages (check, run, sim, and a compile's verification) are
  // named like the compiler's.
  tacclrt::setShowMessageNames(diagNames());
  if (std::optional<int> Status = runSubcommand())
    return *Status;
  if (Input.empty()) {
    errs() << "tacclc: error: no input file (see tacclc --help)\n";
    return ExitInternal;
  }
  std::optional<CompileOptions> O = compileOptions(Stats);
  if (!O)
    return ExitInternal;
  return runCompile(*O);
}
