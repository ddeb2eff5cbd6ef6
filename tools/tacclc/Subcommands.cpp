//===- tools/tacclc/Subcommands.cpp - Options of the subcommands ----------===//
//
// The command-line options (llvm::cl) of every subcommand but the compile
// (check, run, sim, baseline, bounds, fmt, lsp; import-taccl declares its
// own in ImportTaccl.cpp) and of --dialect, which they share with it;
// runSubcommand() gathers the named subcommand's options into its options
// struct (Commands.h) and runs it.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Subcommands.h"
#include "tools/tacclc/Commands.h"

#include "lsp/LspServer.h"
#include "sim/Simulator.h"
#include "support/Sizes.h"
#include "support/Stdlib.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace tacclc;

namespace {
// The subcommands have no one-line description: `tacclc --help` lists them
// in its overview, and `tacclc SUB --help` opens with SUB's paragraph
// (Help.cpp).
cl::OptionCategory CommonCat("Options of several commands");
cl::OptionCategory ExecCat("Check and run options");

cl::SubCommand CheckCmd("check");
cl::SubCommand RunCmd("run");
cl::SubCommand SimCmd("sim");
cl::OptionCategory SimCat("Simulation options");
cl::SubCommand BaselineCmd("baseline");
cl::OptionCategory BaselineCat("Baseline options");
cl::SubCommand BoundsCmd("bounds");
cl::OptionCategory BoundsCat("Bounds options");
cl::SubCommand FmtCmd("fmt");
cl::OptionCategory FmtCat("Format options");
cl::SubCommand LspCmd("lsp");
cl::OptionCategory LspCat("Language server options");
cl::list<std::string> LspIncludeDirs("I",
                                     cl::desc("Search this folder for "
                                              "imports"),
                                     cl::value_desc("dir"), cl::Prefix,
                                     cl::sub(LspCmd), cl::cat(LspCat));
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
    cl::cat(CommonCat));
// The runtime's messages have names too.
cl::opt<bool> DiagNames("diag-names",
                        cl::desc("Append [DiagnosticName] to each message"),
                        cl::sub(*cl::TopLevelSubCommand), cl::sub(CheckCmd),
                        cl::sub(RunCmd), cl::sub(SimCmd), cl::cat(CommonCat));

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
    SimTopology("topology",
                cl::desc("The machine: a stdlib topology with arguments, e.g. "
                         "'ndv2(nodes: 2)', or FILE.sketch:NAME(args) "
                         "(default: the machine each file records)"),
                cl::sub(SimCmd), cl::cat(SimCat));
cl::opt<ByteSizeList>
    SimSizes("sizes",
             cl::desc("Sizes: LO:HI (LO doubling up to HI) or a list, e.g. "
                      "1KiB:1GiB or 4096,1MB; KB, MB, GB are powers of 10, "
                      "KiB, MiB, GiB (or K, M, G) powers of 2 "
                      "(default 1KiB:1GiB)"),
             cl::init(ByteSizeList::of("1KiB:1GiB")), cl::sub(SimCmd),
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
             "overhead, per-hop or launch latency"),
    cl::sub(SimCmd), cl::cat(SimCat));
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
cl::opt<int> BaseRoot("root",
                      cl::desc("Root of a rooted collective (default 0)"),
                      cl::init(0), cl::sub(BaselineCmd), cl::cat(BaselineCat));
cl::opt<ByteSize> BaseSize("size",
                           cl::desc("Size the schedule is timed for, e.g. "
                                    "1MiB or 1MB (default 1 MiB)"),
                           cl::init(ByteSize{1 << 20}), cl::sub(BaselineCmd),
                           cl::cat(BaselineCat));
cl::opt<std::string> BaseProtocol("protocol",
                                  cl::desc("Simple (default), LL or LL128"),
                                  cl::init("Simple"), cl::sub(BaselineCmd),
                                  cl::cat(BaselineCat));
cl::opt<std::string> BaseOutput("o", cl::desc("Output file (default stdout)"),
                                cl::value_desc("file"), cl::sub(BaselineCmd),
                                cl::cat(BaselineCat));
cl::opt<std::string> BoundsInput(cl::Positional, cl::Optional,
                                 cl::desc("[<file.xml>]"), cl::sub(BoundsCmd),
                                 cl::cat(BoundsCat));
cl::opt<std::string>
    BoundsTopology("topology",
                   cl::desc("The machine, as for sim (default: the one the "
                            "file records)"),
                   cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<std::string>
    BoundsCollective("collective",
                     cl::desc("allgather, reducescatter, allreduce, "
                              "alltoall, broadcast or reduce (default: the "
                              "file's)"),
                     cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<ByteSizeList> BoundsSize("size",
                                 cl::desc("Size M as nccl-tests counts it (the "
                                          "larger buffer), e.g. 1GiB or 1GB, "
                                          "or a list or LO:HI range as for "
                                          "sim --sizes (default: the sizes "
                                          "the file records)"),
                                 cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<int> BoundsRoot("root",
                        cl::desc("Root of broadcast and reduce (default: the "
                                 "file's root attribute, else 0)"),
                        cl::init(0), cl::sub(BoundsCmd), cl::cat(BoundsCat));
cl::opt<bool> BoundsNoProtocolCosts(
    "no-protocol-costs",
    cl::desc("Latency bound from the links' alpha alone, without the "
             "protocols' launch and per-hop latencies"),
    cl::sub(BoundsCmd), cl::cat(BoundsCat));
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
cl::opt<ByteSize> Bytes("bytes",
                        cl::desc("Call size as the runtime selects "
                                 "algorithms by: count x sizeMultiplier x "
                                 "type size, i.e. the larger buffer, but one "
                                 "rank's part for gather and scatter; e.g. "
                                 "1048576, 1MiB or 1MB (default: about 1 MiB)"),
                        cl::init(ByteSize{0}), cl::sub(RunCmd),
                        cl::cat(ExecCat));
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
} // namespace

std::vector<const cl::OptionCategory *> tacclc::subcommandCategories() {
  return {&CommonCat,     &ExecCat, &SimCat, &BaselineCat,
          &BoundsCat,     &FmtCat,  &LspCat, &importTacclCategory(),
          &tuneCategory()};
}

bool tacclc::legacyDialect() { return TargetDialect == Dialect::Legacy; }

bool tacclc::diagNames() { return DiagNames; }

/// Runs the subcommand named on the command line, if any; its exit status.
std::optional<int> tacclc::runSubcommand() {
  bool Legacy = legacyDialect();
  if (std::optional<int> Status = runImportTacclIfNamed())
    return Status;
  if (std::optional<int> Status = runTuneIfNamed())
    return Status;
  if (LspCmd) {
    LspOptions O;
    O.IncludeDirs.assign(LspIncludeDirs.begin(), LspIncludeDirs.end());
    O.StdlibDir = stdlibDir();
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
    O.Input = BoundsInput;
    O.Topology = BoundsTopology;
    O.Collective = BoundsCollective;
    O.Sizes = BoundsSize.Bytes;
    O.SizesGiven = BoundsSize.getNumOccurrences() > 0;
    O.Root = BoundsRoot;
    O.RootGiven = BoundsRoot.getNumOccurrences() > 0;
    O.Json = BoundsJson;
    O.ProtocolCosts = !BoundsNoProtocolCosts;
    O.IncludeDirs.assign(BoundsIncludeDirs.begin(), BoundsIncludeDirs.end());
    return runBounds(O);
  }
  if (SimCmd) {
    SimOptions O;
    O.Inputs.assign(SimInputs.begin(), SimInputs.end());
    O.Plot = SimPlot;
    O.Timeline = SimTimeline;
    O.Topology = SimTopology;
    O.Sizes = SimSizes.Bytes;
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
  return std::nullopt;
}
