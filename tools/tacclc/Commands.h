//===- tools/tacclc/Commands.h - The driver's subcommands -------*- C++ -*-===//
//
// Each subcommand of `tacclc` is one function taking its parsed options and
// returning the process exit status: 0 success, 1 user error (diagnostics
// printed), 2 usage or internal error.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_COMMANDS_H
#define TACCLC_TOOLS_COMMANDS_H

#include "codegen/EmitVerified.h"
#include "passes/Options.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// Process exit statuses.
enum ExitCode { ExitSuccess = 0, ExitUserError = 1, ExitInternal = 2 };

/// How far `tacclc FILE.sketch` runs and what it prints.
enum class EmitKind { Ast, Ir, Dot, Milp, Routes, Schedule, Xml };

/// Options of the compile command.
struct CompileOptions {
  std::string Input;
  std::string Output; ///< Empty: stdout.
  std::string SketchName;
  std::vector<std::string> IncludeDirs; ///< -I, searched for imports.
  bool List = false;                    ///< --list: print the sketches.
  EmitKind Emit = EmitKind::Xml;
  bool LegacyDialect = false;
  bool DiagNames = false;
  bool Summary = false;
  bool NoReferee = false; ///< --no-referee: skip SimGrid in the account.
  bool Stats = false;
  bool Verbose = false;   ///< -v: a line per stage as it ends.
  std::string ReportFile; ///< --report: JSON account of the compile.
  SynthesisOptions Synthesis;
  SliceOverlap Overlap = SliceOverlap::Auto; ///< --slice-overlap.
  NicPacing Pacing = NicPacing::Auto;        ///< --pace-nics.
  /// --trial-work: EmitOptions::TrialFlowUpdates, also for `protocol auto`.
  long TrialFlowUpdates = EmitOptions().TrialFlowUpdates;
  /// --time-limit N: the whole compile's limit in seconds (overrides the
  /// sketch's `time limit`).
  std::optional<double> TimeLimitSeconds;
  /// --time-limit routing=N / schedule=N named a stage's own limit (in
  /// Synthesis.Routing or Synthesis.Scheduling).
  bool RoutingLimitGiven = false, ScheduleLimitGiven = false;
  bool GapGiven = false; ///< --gap overrides the sketch's.
  /// --max-memory in bytes: nothing for the default (half the physical
  /// memory), 0 for no budget of its own (support/Memory.h).
  std::optional<uint64_t> MaxMemoryBytes;
};

/// Options of `tacclc check`.
struct CheckOptions {
  std::string Input;
  unsigned FifoCapacity = 1;   ///< Messages per connection before sends block.
  int Root = -1;               ///< Root of a rooted collective; -1: the file's.
  bool IdenticalOrder = false; ///< Require one reduction order per element.
  bool LegacyDialect = false;
};

/// Options of `tacclc run`.
struct RunOptions {
  std::string Input;
  std::string Backend = "cpu";
  uint64_t Bytes = 0; ///< 0: pick a size the algorithm divides.
  bool InPlace = false;
  std::string Type = "float32"; ///< Element type, as NCCL names it.
  std::string Op = "sum";       ///< Reduction of combining collectives.
  double WatchdogSeconds = 10;
  int Root = -1; ///< Root of a rooted collective; -1: the file's, else 0.
  bool LegacyDialect = false;
};

/// `tacclc FILE.sketch`: compile, verify, write the XML atomically.
int runCompile(const CompileOptions &Opts);
/// `tacclc check FILE.xml`: validate and symbolically execute.
int runCheck(const CheckOptions &Opts);
/// `tacclc run FILE.xml`: execute on a backend and check every element.
int runRun(const RunOptions &Opts);

/// Options of `tacclc sim`.
struct SimOptions {
  std::vector<std::string> Inputs; ///< One table (and chart line) each.
  std::string Plot;                ///< SVG chart of algbw, or empty.
  std::string Timeline;            ///< SVG Gantt chart, or empty.
  /// `machine(args)` or `FILE.sketch:machine(args)`; empty: the machine
  /// each file records.
  std::string Topology;
  std::vector<uint64_t> Sizes; ///< The sweep, in bytes (support/Sizes.h).
  bool Json = false;
  /// Links and ports serve one message at a time instead of sharing
  /// their bandwidth max-min fairly.
  bool SerialPorts = false;
  /// Charge the protocols' costs (wire overhead, latencies).
  bool ProtocolCosts = true;
  /// The simulation engine's name (sim/SimGrid.h).
  std::string Engine = "inhouse";
  std::vector<std::string> IncludeDirs;
  bool LegacyDialect = false;
};
/// `tacclc sim FILE.xml [--topology T]`: predicted times over a size sweep.
int runSim(const SimOptions &Opts);

/// Options of `tacclc baseline`.
struct BaselineOptions {
  std::string Algorithm; ///< ring or direct.
  std::string Topology;
  std::string Collective = "allgather";
  unsigned Chunks = 1; ///< Chunks per rank and ring.
  unsigned Rings = 0;  ///< Rings (NCCL's channels); 0: one per NIC.
  int Root = 0;
  uint64_t SizeBytes = 1 << 20; ///< Size the schedule is timed for.
  std::string Protocol = "Simple";
  std::string Output;
  std::vector<std::string> IncludeDirs;
  bool LegacyDialect = false;
};
/// `tacclc baseline ALGO --topology T --collective C -o OUT.xml`: NCCL's
/// own algorithm as TACCL-EF.
int runBaseline(const BaselineOptions &Opts);
/// Options of `tacclc bounds`.
struct BoundsOptions {
  /// A program whose machine, collective, sizes and root are the defaults
  /// of the options below; empty for none.
  std::string Input;
  std::string Topology; ///< As for sim.
  std::string Collective;
  std::vector<uint64_t> Sizes; ///< One size or several, in bytes.
  bool SizesGiven = false;     ///< --size was given: it wins over the file's.
  int Root = 0;                ///< Root of broadcast and reduce.
  bool RootGiven = false;      ///< --root was given: it wins over the file's.
  bool Json = false;
  /// Charge the protocols' launch and per-hop latencies as sim does.
  bool ProtocolCosts = true;
  std::vector<std::string> IncludeDirs;
};
/// `tacclc bounds [FILE.xml] --topology T --collective C --size S`: lower
/// bounds on the collective's time on the machine (passes/Bounds.h).
int runBounds(const BoundsOptions &Opts);

/// Options of `tacclc fmt`.
struct FmtOptions {
  std::vector<std::string> Inputs; ///< Sketch files; "-" is stdin.
  bool InPlace = false;            ///< -i: rewrite the files.
  bool Check = false;              ///< --check: exit 1 if one would change.
};

/// `tacclc fmt FILE...`: print, rewrite (-i) or check (--check) the
/// canonical layout of sketch files (frontend/Format.h).
int runFmt(const FmtOptions &Opts);

/// `tacclc import-taccl SKETCH.json` (ImportTaccl.cpp, which declares its
/// options): its exit status, or nothing when another command was named.
std::optional<int> runImportTacclIfNamed();
/// The options of `tacclc import-taccl`, for --help.
const llvm::cl::OptionCategory &importTacclCategory();

/// `tacclc tune --topology T --collective C -o DIR` (Tune.cpp, which
/// declares its options): its exit status, or nothing when another command
/// was named.
std::optional<int> runTuneIfNamed();
/// The options of `tacclc tune`, for --help.
const llvm::cl::OptionCategory &tuneCategory();

} // namespace tacclc

#endif // TACCLC_TOOLS_COMMANDS_H
