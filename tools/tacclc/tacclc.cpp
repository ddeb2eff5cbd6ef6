//===- tools/tacclc/tacclc.cpp - The tacclc command-line driver -----------===//
//
// Declares every command-line option (llvm::cl), selects the subcommand and
// hands over to Compile.cpp or Execute.cpp:
//
//   tacclc FILE.sketch [-o OUT.xml] [--emit=ast|ir|milp|routes|schedule|xml]
//   tacclc check FILE.xml
//   tacclc run FILE.xml --backend cpu [--bytes N]
//   tacclc fmt [-i | --check] FILE.sketch...
//   tacclc lsp
//
// Usage errors exit with 2 (llvm::cl is asked to return instead of exiting).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"

#include "format/Diagnostic.h"
#include "sim/Simulator.h"
#include "solver/Subprocess.h"
#include "support/Memory.h"
#include "support/Sizes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace tacclc;

namespace {
cl::OptionCategory CompileCat("Compile options");
cl::OptionCategory ExecCat("Check and run options");

cl::SubCommand CheckCmd("check",
                        "Validate a TACCL-EF XML file and prove its result "
                        "by symbolic execution");
cl::SubCommand RunCmd("run", "Execute a TACCL-EF XML file and check every "
                             "output element");
cl::SubCommand SimCmd("sim", "Predict the time of a TACCL-EF XML file on a "
                             "modelled machine over a sweep of sizes");
cl::OptionCategory SimCat("Simulation options");
cl::SubCommand BaselineCmd(
    "baseline",
    "Write NCCL's own algorithm (ring, direct, tree, hierarchical) for a "
    "machine as TACCL-EF");
cl::OptionCategory BaselineCat("Baseline options");
cl::SubCommand BoundsCmd("bounds", "Lower bounds on the time of a collective "
                                   "on a machine (cut, per-rank, latency)");
cl::OptionCategory BoundsCat("Bounds options");
cl::SubCommand FmtCmd("fmt", "Print sketch files in their canonical layout, "
                             "rewrite them (-i) or check them (--check)");
cl::OptionCategory FmtCat("Format options");
cl::SubCommand LspCmd("lsp", "Serve the Language Server Protocol over stdin "
                             "and stdout (for editors)");
cl::list<std::string> LspIncludeDirs("I",
                                     cl::desc("Search this folder for "
                                              "imports"),
                                     cl::value_desc("dir"), cl::Prefix,
                                     cl::sub(LspCmd), cl::cat(FmtCat));
cl::list<std::string> FmtInputs(cl::Positional, cl::OneOrMore,
                                cl::desc("<file.sketch>..."), cl::sub(FmtCmd),
                                cl::cat(FmtCat));
cl::opt<bool> FmtInPlace("i",
                         cl::desc("Rewrite the files that are not in the "
                                  "layout (atomically)"),
                         cl::sub(FmtCmd), cl::cat(FmtCat));
cl::opt<bool> FmtCheck("check",
                       cl::desc("Print nothing but the files not in the "
                                "layout, and exit 1 if there is one"),
                       cl::sub(FmtCmd), cl::cat(FmtCat));

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
    cl::desc("Seconds per stage, model building and solve included (default "
             "60): N, or routing=N,schedule=M. The compile as a whole ends "
             "within the stages' sum plus a tenth (at least 1 s), else it "
             "stops naming the phase that ran out"),
    cl::value_desc("spec"), cl::sub(*cl::TopLevelSubCommand),
    cl::cat(CompileCat));
cl::opt<std::string> MaxMemory(
    "max-memory",
    cl::desc("Memory the compile may use, solver included, e.g. 4G or 512M "
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
                      cl::desc("Print each stage as it ends, and solver "
                               "progress as lines"),
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
cl::opt<bool> SolverLog("solver-log", cl::desc("Show the MILP solver's log"),
                        cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<bool> NoSymmetry(
    "no-symmetry",
    cl::desc("Route every chunk, ignoring the sketch's symmetry (slower)"),
    cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
cl::opt<bool> Summary("summary",
                      cl::desc("Print a summary of the compiled algorithm"),
                      cl::sub(*cl::TopLevelSubCommand), cl::cat(CompileCat));
// Also shown by check, run and sim, whose runtime messages have names too.
cl::opt<bool> DiagNames("diag-names",
                        cl::desc("Append [DiagnosticName] to each message"),
                        cl::sub(*cl::TopLevelSubCommand), cl::sub(CheckCmd),
                        cl::sub(RunCmd), cl::sub(SimCmd), cl::cat(CompileCat));

// Shared by all commands.
enum class Dialect { Executor, Legacy };
cl::opt<Dialect> TargetDialect(
    "dialect", cl::desc("Target MSCCL runtime"),
    cl::values(clEnumValN(Dialect::Executor, "msccl-executor",
                          "Azure msccl-executor-nccl / RCCL (default)"),
               clEnumValN(Dialect::Legacy, "msccl-legacy",
                          "the original microsoft/msccl runtime")),
    cl::init(Dialect::Executor), cl::sub(*cl::TopLevelSubCommand),
    cl::sub(CheckCmd), cl::sub(RunCmd), cl::sub(SimCmd), cl::sub(BaselineCmd),
    cl::cat(ExecCat));

// check / run.
cl::opt<std::string> CheckInput(cl::Positional, cl::Required,
                                cl::desc("<file.xml>"), cl::sub(CheckCmd),
                                cl::cat(ExecCat));
cl::opt<unsigned> FifoCapacity(
    "fifo-capacity",
    cl::desc("Messages a connection holds before a send blocks, for deadlock "
             "checking (default 1: safe for any message size)"),
    cl::init(1), cl::sub(CheckCmd), cl::cat(ExecCat));
cl::opt<int> Root("root",
                  cl::desc("Root of a broadcast, reduce, gather or scatter "
                           "(default: the file's root attribute; check "
                           "otherwise finds one, run uses 0)"),
                  cl::init(-1), cl::sub(CheckCmd), cl::sub(RunCmd),
                  cl::cat(ExecCat));
cl::opt<bool> IdenticalOrder(
    "identical-order",
    cl::desc("Require every rank to reduce each element in the same order "
             "(bitwise-identical results)"),
    cl::sub(CheckCmd), cl::cat(ExecCat));
cl::list<std::string> SimInputs(cl::Positional, cl::OneOrMore,
                                cl::desc("<file.xml>..."), cl::sub(SimCmd),
                                cl::cat(SimCat));
cl::opt<std::string> SimPlot("plot",
                             cl::desc("Write algbw versus size of every file "
                                      "as an SVG chart"),
                             cl::value_desc("file.svg"), cl::sub(SimCmd),
                             cl::cat(SimCat));
cl::opt<std::string> SimTimeline("timeline",
                                 cl::desc("Write the Gantt chart of the first "
                                          "file at the first size as SVG"),
                                 cl::value_desc("file.svg"), cl::sub(SimCmd),
                                 cl::cat(SimCat));
cl::opt<std::string>
    SimTopology("topology", cl::Required,
                cl::desc("The machine: a stdlib topology with arguments, e.g. "
                         "'ndv2(nodes: 2)', or FILE.sketch:NAME(args)"),
                cl::sub(SimCmd), cl::cat(SimCat));
cl::opt<std::string> SimSizes("sizes",
                              cl::desc("Sizes: LO:HI (powers of two) or a "
                                       "list, e.g. 1KB:1GB or 4096,1MB "
                                       "(default 1KB:1GB)"),
                              cl::init("1KB:1GB"), cl::sub(SimCmd),
                              cl::cat(SimCat));
cl::opt<bool> SimJson("json", cl::desc("Print JSON instead of a table"),
                      cl::sub(SimCmd), cl::cat(SimCat));
cl::opt<tacclrt::PortService> SimPortService(
    "port-service",
    cl::desc("How links and shared ports serve concurrent messages"),
    cl::values(clEnumValN(tacclrt::PortService::Fair, "fair",
                          "max-min fair sharing of the bandwidth (default)"),
               clEnumValN(tacclrt::PortService::Serial, "serial",
                          "one whole message at a time (a plan that relies "
                          "on concurrent flows sharing a port slows down)")),
    cl::init(tacclrt::PortService::Fair), cl::sub(SimCmd), cl::cat(SimCat));
cl::opt<std::string> SimEngine(
    "engine",
    cl::desc("Simulation engine: inhouse (default, fast), simgrid (SimGrid, "
             "max-min fair sharing), simgrid:lv08 (SimGrid's TCP-calibrated "
             "model), simgrid:ns3 (SimGrid's ns-3 packet-level binding)"),
    cl::value_desc("name"), cl::init("inhouse"), cl::sub(SimCmd),
    cl::cat(SimCat));
cl::opt<bool> SimNoProtocolCosts(
    "no-protocol-costs",
    cl::desc("Charge only the links' alpha and beta: no protocol wire "
             "overhead, per-hop or launch latency (bounds: the latency bound "
             "is alpha only)"),
    cl::sub(SimCmd), cl::sub(BoundsCmd), cl::cat(SimCat));
cl::list<std::string> SimIncludeDirs("I",
                                     cl::desc("Search this folder for "
                                              "imports"),
                                     cl::value_desc("dir"), cl::Prefix,
                                     cl::sub(SimCmd), cl::cat(SimCat));
cl::opt<std::string> BaseAlgo(cl::Positional, cl::Required,
                              cl::desc("<ring|direct|tree|hierarchical>"),
                              cl::sub(BaselineCmd), cl::cat(BaselineCat));
cl::opt<std::string> BaseTopology("topology", cl::Required,
                                  cl::desc("The machine, as for sim"),
                                  cl::sub(BaselineCmd), cl::cat(BaselineCat));
cl::opt<std::string> BaseCollective("collective",
                                    cl::desc("The collective (default "
                                             "allgather)"),
                                    cl::init("allgather"), cl::sub(BaselineCmd),
                                    cl::cat(BaselineCat));
cl::opt<unsigned> BaseChunks("chunks",
                             cl::desc("Chunks per rank and ring (default 1)"),
                             cl::init(1), cl::sub(BaselineCmd),
                             cl::cat(BaselineCat));
cl::opt<unsigned> BaseRings("rings",
                            cl::desc("Rings of the ring baseline, NCCL's "
                                     "channels (default: one per NIC of a "
                                     "node)"),
                            cl::init(0), cl::sub(BaselineCmd),
                            cl::cat(BaselineCat));
cl::opt<int> BaseRoot("root", cl::desc("Root of a rooted collective"),
                      cl::init(0), cl::sub(BaselineCmd), cl::cat(BaselineCat));
cl::opt<uint64_t> BaseSize("size",
                           cl::desc("Bytes the schedule is timed for "
                                    "(default 1 MiB)"),
                           cl::init(1 << 20), cl::sub(BaselineCmd),
                           cl::cat(BaselineCat));
cl::opt<std::string> BaseProtocol("protocol", cl::desc("Simple, LL or LL128"),
                                  cl::init("Simple"), cl::sub(BaselineCmd),
                                  cl::cat(BaselineCat));
cl::opt<std::string> BaseOutput("o", cl::desc("Output file (default stdout)"),
                                cl::value_desc("file"), cl::sub(BaselineCmd),
                                cl::cat(BaselineCat));
cl::opt<std::string> BoundsTopology("topology", cl::Required,
                                    cl::desc("The machine, as for sim"),
                                    cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<std::string>
    BoundsCollective("collective", cl::Required,
                     cl::desc("allgather, reducescatter, allreduce, "
                              "alltoall, broadcast or reduce"),
                     cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<std::string> BoundsSize("size", cl::Required,
                                cl::desc("Size M as nccl-tests counts it (the "
                                         "larger buffer), e.g. 1GB, or a list "
                                         "or LO:HI range as for sim --sizes"),
                                cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<int> BoundsRoot("root",
                        cl::desc("Root of broadcast and reduce (default 0)"),
                        cl::init(0), cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<bool> BoundsJson("json", cl::desc("Print JSON instead of a table"),
                         cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::list<std::string> BoundsIncludeDirs("I",
                                        cl::desc("Search this folder for "
                                                 "imports"),
                                        cl::value_desc("dir"), cl::Prefix,
                                        cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<std::string> RunInput(cl::Positional, cl::Required,
                              cl::desc("<file.xml>"), cl::sub(RunCmd),
                              cl::cat(ExecCat));
cl::opt<std::string> Backend("backend",
                             cl::desc("Where to execute: cpu (default), cuda "
                                      "(ranks spread over the GPUs), "
                                      "cuda-virtual (every rank on one GPU) "
                                      "or nccl (a process per rank and GPU, "
                                      "through NCCL)"),
                             cl::init("cpu"), cl::sub(RunCmd),
                             cl::cat(ExecCat));
cl::opt<uint64_t> Bytes("bytes",
                        cl::desc("Call size in bytes as the runtime selects "
                                 "algorithms by: count x sizeMultiplier x "
                                 "type size, i.e. the larger buffer, but one "
                                 "rank's part for gather and scatter "
                                 "(default: about 1 MiB)"),
                        cl::init(0), cl::sub(RunCmd), cl::cat(ExecCat));
cl::opt<bool> InPlace("inplace", cl::desc("Run an in-place call"),
                      cl::sub(RunCmd), cl::cat(ExecCat));
cl::opt<std::string> RunType("dtype",
                             cl::desc("Element type: int8, uint8, int32, "
                                      "uint32, int64, uint64, float16, "
                                      "bfloat16, float32 (default), float64"),
                             cl::init("float32"), cl::sub(RunCmd),
                             cl::cat(ExecCat));
cl::opt<std::string> RunOp("op",
                           cl::desc("Reduction of combining collectives: sum "
                                    "(default), prod, min, max"),
                           cl::init("sum"), cl::sub(RunCmd), cl::cat(ExecCat));
cl::opt<double> Watchdog("watchdog",
                         cl::desc("Seconds without progress before a run is "
                                  "declared hung (default 10)"),
                         cl::init(10.0), cl::sub(RunCmd), cl::cat(ExecCat));
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
                   << "' is not a number from " << Lo << " to " << Hi << "\n";
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
/// Parses --max-memory: a size as parseSizeList reads one, or "none" (0: no
/// budget). Prints an error and returns nothing on bad input.
std::optional<uint64_t> parseMemory(llvm::StringRef Text) {
  if (Text.trim().equals_insensitive("none"))
    return 0;
  auto Sizes = parseSizeList(Text.trim());
  if (!Sizes || Sizes->size() != 1) {
    llvm::errs() << "tacclc: error: --max-memory: '" << Text
                 << "' is not a size (e.g. 4G, 512M) or 'none'\n";
    return std::nullopt;
  }
  return Sizes->front();
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
  cl::SetVersionPrinter(
      [](raw_ostream &OS) { OS << "tacclc " << TACCLC_VERSION << "\n"; });
  cl::HideUnrelatedOptions(
      {&CompileCat, &ExecCat, &SimCat, &BaselineCat, &BoundsCat, &FmtCat});
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "tacclc: compile communication sketches to TACCL-EF (MSCCL XML)\n\n"
          "  tacclc FILE.sketch -o OUT.xml   compile, verify, write\n"
          "  tacclc check FILE.xml           validate and prove correct\n"
          "  tacclc run FILE.xml --backend cpu [--bytes N]   execute\n"
          "  tacclc sim FILE.xml --topology T [--sizes 1KB:1GB]   predict\n"
          "  tacclc baseline ring|tree|direct|hierarchical --topology T "
          "--collective C -o F\n"
          "  tacclc bounds --topology T --collective C --size S   bounds\n"
          "  tacclc fmt [-i | --check] FILE.sketch...   canonical layout\n"
          "  tacclc lsp                      language server (stdio)\n\n"
          "Exit status: 0 success, 1 error in the input (a compile past its "
          "time limit or memory budget included), 2 usage or internal error "
          "or out of memory.\n",
          &errs()))
    return ExitInternal;
  bool Legacy = TargetDialect == Dialect::Legacy;
  tacclrt::setShowMessageNames(DiagNames);

  if (LspCmd) {
    LspOptions O;
    O.IncludeDirs.assign(LspIncludeDirs.begin(), LspIncludeDirs.end());
    O.StdlibDir = TACCLC_STDLIB_DIR;
    return runLsp(O);
  }
  if (FmtCmd) {
    FmtOptions O;
    O.Inputs.assign(FmtInputs.begin(), FmtInputs.end());
    O.InPlace = FmtInPlace;
    O.Check = FmtCheck;
    return runFmt(O);
  }
  if (CheckCmd) {
    CheckOptions O;
    O.Input = CheckInput;
    O.FifoCapacity = FifoCapacity;
    O.Root = Root;
    O.IdenticalOrder = IdenticalOrder;
    O.LegacyDialect = Legacy;
    return runCheck(O);
  }
  if (BaselineCmd) {
    BaselineOptions O;
    O.Algorithm = BaseAlgo;
    O.Topology = BaseTopology;
    O.Collective = BaseCollective;
    O.Chunks = BaseChunks;
    O.Rings = BaseRings;
    O.Root = BaseRoot;
    O.SizeBytes = BaseSize;
    O.Protocol = BaseProtocol;
    O.Output = BaseOutput;
    O.LegacyDialect = Legacy;
    return runBaseline(O);
  }
  if (BoundsCmd) {
    BoundsOptions O;
    O.Topology = BoundsTopology;
    O.Collective = BoundsCollective;
    O.Size = BoundsSize;
    O.Root = BoundsRoot;
    O.Json = BoundsJson;
    O.ProtocolCosts = !SimNoProtocolCosts;
    O.IncludeDirs.assign(BoundsIncludeDirs.begin(), BoundsIncludeDirs.end());
    return runBounds(O);
  }
  if (SimCmd) {
    SimOptions O;
    O.Inputs.assign(SimInputs.begin(), SimInputs.end());
    O.Plot = SimPlot;
    O.Timeline = SimTimeline;
    O.Topology = SimTopology;
    O.Sizes = SimSizes;
    O.Json = SimJson;
    O.SerialPorts = SimPortService == tacclrt::PortService::Serial;
    O.ProtocolCosts = !SimNoProtocolCosts;
    O.Engine = SimEngine;
    O.IncludeDirs.assign(SimIncludeDirs.begin(), SimIncludeDirs.end());
    O.LegacyDialect = Legacy;
    return runSim(O);
  }
  if (RunCmd) {
    RunOptions O;
    O.Input = RunInput;
    O.Backend = Backend;
    O.Bytes = Bytes;
    O.InPlace = InPlace;
    O.Type = RunType;
    O.Op = RunOp;
    O.WatchdogSeconds = Watchdog;
    O.Root = Root;
    O.LegacyDialect = Legacy;
    return runRun(O);
  }
  if (Input.empty()) {
    errs() << "tacclc: error: no input file (see tacclc --help)\n";
    return ExitInternal;
  }
  CompileOptions O;
  O.Input = Input;
  O.Output = Output;
  O.SketchName = SketchName;
  O.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  O.List = List;
  O.Emit = Emit;
  O.LegacyDialect = Legacy;
  O.DiagNames = DiagNames;
  O.Summary = Summary;
  O.Stats = Stats;
  O.TimeLimitGiven = TimeLimit.getNumOccurrences() > 0;
  O.GapGiven = Gap.getNumOccurrences() > 0;
  StageOptions &R = O.Synthesis.Routing, &Sc = O.Synthesis.Scheduling;
  double RThreads = 1, ScThreads = 1;
  // Options not given keep each stage's defaults (passes/Options.h).
  RThreads = R.Threads;
  ScThreads = Sc.Threads;
  if ((TimeLimit.getNumOccurrences() &&
       !parseStageValues("--time-limit", TimeLimit, 1e-3, 1e9,
                         R.TimeLimitSeconds, Sc.TimeLimitSeconds)) ||
      (Gap.getNumOccurrences() &&
       !parseStageValues("--gap", Gap, 0, 0.999, R.RelativeGap,
                         Sc.RelativeGap)) ||
      (Threads.getNumOccurrences() &&
       !parseStageValues("--threads", Threads, 1, 256, RThreads, ScThreads)))
    return ExitInternal;
  R.Threads = unsigned(RThreads);
  Sc.Threads = unsigned(ScThreads);
  if (MaxMemory.getNumOccurrences()) {
    O.MaxMemoryBytes = parseMemory(MaxMemory);
    if (!O.MaxMemoryBytes)
      return ExitInternal;
  }
  // Progress: lines under -v, one live line on a terminal, else nothing.
  solver::ProgressMode Progress = Verbose ? solver::ProgressMode::Lines
                                  : llvm::sys::Process::StandardErrIsDisplayed()
                                      ? solver::ProgressMode::Line
                                      : solver::ProgressMode::Off;
  for (StageOptions *St : {&R, &Sc}) {
    St->SolverLog = SolverLog;
    St->Progress = Progress;
  }
  O.Synthesis.UseSymmetry = !NoSymmetry;
  O.Synthesis.ExactScheduling = !NoExactSchedule;
  O.Overlap = Overlap;
  O.Verbose = Verbose;
  O.ReportFile = ReportFile;
  return runCompile(O);
}
