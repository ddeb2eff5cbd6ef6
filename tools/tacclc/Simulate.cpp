//===- tools/tacclc/Simulate.cpp - The sim command ------------------------===//
//
// `tacclc sim ALGO.xml [--topology REF]` predicts the time of a TACCL-EF
// file on a modelled machine (frontend/MachineRef.h; by default the one the
// file records, tools/tacclc/Provenance.h) over a sweep of sizes and
// prints a table per file in the style of nccl-tests (or JSON); --plot draws
// every file's algbw on one SVG chart, --timeline the messages of the first
// file's first size as a Gantt chart. A size outside the file's
// minBytes..maxBytes is still simulated, and its row says that a runtime
// would not select the file for it.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"

#include "codegen/SimMachine.h"
#include "format/Collective.h"
#include "format/Dialect.h"
#include "format/Loader.h"
#include "frontend/MachineRef.h"
#include "ir/Collective.h"
#include "passes/Bounds.h"
#include "sim/SimGrid.h"
#include "sim/Simulator.h"
#include "support/InputFile.h"
#include "tools/tacclc/Charts.h"
#include "tools/tacclc/Output.h"
#include "tools/tacclc/Provenance.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

using namespace tacclc;

namespace {

/// A diagnostics engine for the output writers.
struct SourceMgrHolder {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags{SM};
};

} // namespace

namespace {
/// One file being simulated over the sweep: its plan, and what its sizes
/// add to the table (or JSON) and the charts.
struct FileSim {
  const std::string &Input;
  /// The machine as named (--topology, or the one the program records).
  const std::string &Machine;
  const ir::Topology &Topo;
  const SimOptions &Opts;
  tacclrt::SimEngineKind Engine;
  const tacclrt::Algo &A;
  /// The lower bound of the collective on this machine, where one is known
  /// (nccl-tests' size: the runtime's, except gather and scatter).
  std::optional<BoundCollective> BoundColl;
  int Root;
  ChartSeries Line{}, BoundLine{};
  std::string Rows{}; ///< The JSON rows so far.
  bool Recorded = false, Rounded = false;
  unsigned Unselected = 0; ///< Sizes outside the file's minBytes..maxBytes.
};

/// Loads \p Input, printing its issues; none after an error.
std::optional<tacclrt::Algo> loadPlan(const std::string &Input,
                                      const SimOptions &Opts) {
  tacclrt::LoadOptions LO;
  LO.D = Opts.LegacyDialect ? tacclrt::Dialect::Legacy
                            : tacclrt::Dialect::Executor;
  tacclrt::Report Rep;
  auto A = tacclrt::loadPlanFile(Input, LO, Rep);
  for (const tacclrt::Issue &I : Rep)
    llvm::errs() << tacclrt::format(I) << "\n";
  if (!A || Rep.hasErrors())
    return std::nullopt;
  return A;
}

/// The title and column heads of a file's table.
std::string tableHeader(const FileSim &F) {
  return fmt::format("# {} on {} ({} ranks), {}, engine {}\n", F.Input,
                     F.Machine, F.A.NGpus, tacclrt::nameOf(F.A.Coll),
                     tacclrt::nameOf(F.Engine)) +
         fmt::format("{:>14} {:>12} {:>12} {:>12} {:>12} {:>10}\n", "size (B)",
                     "time (us)", "algbw (GB/s)", "busbw (GB/s)", "bound (us)",
                     "efficiency");
}

/// \p Size rounded up to the plan's unit: the runtime selects a plan only
/// for sizes whose elements divide into nchunksperloop chunks. The first
/// size rounded gets a note.
uint64_t planBytes(FileSim &F, uint64_t Size) {
  uint64_t Unit = 4 * uint64_t(std::max(1, F.A.NChunksPerLoop));
  uint64_t Bytes = (Size + Unit - 1) / Unit * Unit;
  if (Bytes != Size && !F.Rounded) {
    F.Rounded = true;
    llvm::errs() << fmt::format("{}: note: sizes rounded up to multiples "
                                "of {} B (nchunksperloop={} float32 "
                                "chunks)\n",
                                F.Input, Unit, F.A.NChunksPerLoop);
  }
  return Bytes;
}

/// Why a runtime would not select the file for a call of \p Bytes (its
/// minBytes..maxBytes, format/Dialect.h), or nothing where it would.
std::optional<std::string> unselectedNote(const FileSim &F, uint64_t Bytes) {
  tacclrt::Dialect D = F.Opts.LegacyDialect ? tacclrt::Dialect::Legacy
                                            : tacclrt::Dialect::Executor;
  if (tacclrt::selectsSize(F.A, Bytes, D))
    return std::nullopt;
  std::string Why =
      Bytes < F.A.MinBytes ? fmt::format("below minBytes={}", F.A.MinBytes)
      : D == tacclrt::Dialect::Legacy
          ? fmt::format("not below maxBytes={} (exclusive)", F.A.MaxBytes)
          : fmt::format("above maxBytes={}", F.A.MaxBytes);
  return "not selected: " + Why;
}

/// The lower bound for \p Bytes, where one is known, added to the bound's
/// chart line.
std::optional<double> boundUs(FileSim &F, uint64_t Bytes,
                              bool ProtocolOverheads) {
  if (!F.BoundColl)
    return std::nullopt;
  std::string Error;
  auto B = computeBounds(F.Topo, *F.BoundColl, double(Bytes),
                         static_cast<unsigned>(F.Root), Error,
                         BoundsModel{ProtocolOverheads});
  if (!B)
    return std::nullopt;
  double Us = B->Combined.TimeUs;
  F.BoundLine.Points.push_back({double(Bytes), double(Bytes) / (Us * 1e3)});
  return Us;
}

/// Adds the result for \p Bytes to the file's chart line and to its table
/// (\p Text) or JSON rows; a size the runtime would not select the file for
/// says so (\p Unselected).
void addResult(FileSim &F, std::string &Text, uint64_t Bytes,
               const tacclrt::SimResult &R, std::optional<double> BoundUs,
               const std::optional<std::string> &Unselected) {
  const unsigned N = static_cast<unsigned>(F.A.NGpus);
  // A plan that moves nothing takes no time: no bandwidth to report.
  const bool Timed = R.TimeUs > 0;
  double AlgBw = Timed ? double(Bytes) / (R.TimeUs * 1e3) : 0;
  double BusBw = AlgBw * tacclrt::busBandwidthFactor(F.A.Coll, N);
  if (Timed)
    F.Line.Points.push_back({double(Bytes), AlgBw});
  std::string BoundJson = BoundUs ? fmt::format("{:.6g}", *BoundUs) : "null";
  std::string EffJson =
      BoundUs && Timed ? fmt::format("{:.6g}", *BoundUs / R.TimeUs) : "null";
  std::string BwJson = [&](double V) {
    return Timed ? fmt::format("{:.6g}", V) : std::string("null");
  }(AlgBw);
  std::string BusJson =
      Timed ? fmt::format("{:.6g}", BusBw) : std::string("null");
  if (F.Opts.Json)
    F.Rows += fmt::format("{}\n    {{\"bytes\": {}, \"time_us\": {:.6g}, "
                          "\"algbw_GBps\": {}, \"busbw_GBps\": {}, "
                          "\"bound_us\": {}, \"efficiency\": {}, "
                          "\"iterations\": {}, \"selected\": {}}}",
                          F.Rows.empty() ? "" : ",", Bytes, R.TimeUs, BwJson,
                          BusJson, BoundJson, EffJson, R.Iterations,
                          Unselected ? "false" : "true");
  else
    Text += fmt::format(
        "{:>14} {:>12.2f} {:>12.2f} {:>12.2f} {:>12} {:>10}{}\n", Bytes,
        R.TimeUs, AlgBw, BusBw,
        BoundUs ? fmt::format("{:.2f}", *BoundUs) : std::string("-"),
        BoundUs && Timed ? fmt::format("{:.0f}%", 100 * *BoundUs / R.TimeUs)
                         : std::string("-"),
        Unselected ? "  " + *Unselected : std::string());
}

/// Simulates one size of the sweep (drawing the first one's timeline when
/// \p Timeline is given) and adds its result. False after an error
/// (printed).
bool simulateSize(FileSim &F, uint64_t Size, std::string &Text,
                  std::string *Timeline) {
  uint64_t Bytes = planBytes(F, Size);
  tacclrt::SimOptions SO;
  SO.Bytes = Bytes;
  SO.Service = F.Opts.SerialPorts ? tacclrt::PortService::Serial
                                  : tacclrt::PortService::Fair;
  SO.ProtocolOverheads = F.Opts.ProtocolCosts;
  SO.RecordTransfers = Timeline && !F.Recorded;
  F.Recorded = true;
  double Chunk = double(Bytes) / F.A.NChunksPerLoop;
  tacclrt::SimMachine M = toSimMachine(F.Topo, Chunk);
  tacclrt::SimResult R = tacclrt::simulateOn(F.Engine, F.A, M, SO, F.Input);
  for (const tacclrt::Issue &Is : R.Issues)
    llvm::errs() << tacclrt::format(Is) << "\n";
  if (!R.Ok)
    return false;
  if (SO.RecordTransfers)
    *Timeline = timelineChart(fmt::format("{} on {}, {} ({:.2f} us)",
                                          F.Line.Name, F.Machine,
                                          sizeLabel(double(Bytes)), R.TimeUs),
                              M, R.Transfers);
  std::optional<std::string> Unselected = unselectedNote(F, Bytes);
  F.Unselected += Unselected.has_value();
  addResult(F, Text, Bytes, R, boundUs(F, Bytes, SO.ProtocolOverheads),
            Unselected);
  return true;
}

/// Simulates the program \p A of \p Input on \p Machine over the sweep;
/// appends its table or JSON rows and its chart series. False after an
/// error (printed).
bool simulateFile(const std::string &Input, const tacclrt::Algo &A,
                  const std::string &Machine, const ir::Topology &Topo,
                  const std::vector<uint64_t> &Sizes, const SimOptions &Opts,
                  tacclrt::SimEngineKind Engine, std::string &Text,
                  std::vector<ChartSeries> &Series,
                  std::vector<ChartSeries> &Bounds, std::string *Timeline) {
  bool HaveBound = !Bounds.empty();
  FileSim F{Input,
            Machine,
            Topo,
            Opts,
            Engine,
            A,
            parseBoundCollective(tacclrt::nameOf(A.Coll)),
            A.Root >= 0 ? A.Root : 0};
  F.Line.Name = llvm::sys::path::filename(Input).str();
  if (!Opts.Json)
    Text += tableHeader(F);
  for (uint64_t Size : Sizes)
    if (!simulateSize(F, Size, Text, Timeline))
      return false;
  if (F.Unselected)
    llvm::errs() << fmt::format(
        "{}: note: {} of {} sizes are outside the file's range minBytes={} "
        "maxBytes={}{}: a runtime would not select this algorithm for them "
        "(their rows say 'not selected'); the times are what it would take "
        "if it did\n",
        Input, F.Unselected, Sizes.size(), A.MinBytes, A.MaxBytes,
        Opts.LegacyDialect ? " (exclusive)" : "");
  if (Opts.Json)
    Text += fmt::format("{}\n  {{\"file\": {}, \"collective\": \"{}\", "
                        "\"ranks\": {}, \"engine\": \"{}\", "
                        "\"results\": [{}\n  ]}}",
                        Text.size() > 1 ? "," : "", jsonQuote(Input),
                        tacclrt::nameOf(A.Coll), A.NGpus,
                        tacclrt::nameOf(Engine), F.Rows);
  Series.push_back(std::move(F.Line));
  // One bound line per collective (the first file's), drawn dashed.
  if (!F.BoundLine.Points.empty() && !HaveBound) {
    F.BoundLine.Name = fmt::format("lower bound ({})", tacclrt::nameOf(A.Coll));
    F.BoundLine.Dashed = true;
    Bounds.push_back(std::move(F.BoundLine));
  }
  return true;
}

/// The machine \p Ref names, instantiated once and kept in \p Machines;
/// null after an error (printed).
const ir::Topology *
machineNamed(const std::string &Ref, const SimOptions &Opts,
             std::map<std::string, ir::Topology> &Machines) {
  auto It = Machines.find(Ref);
  if (It == Machines.end()) {
    auto Topo = instantiateMachine(Ref, Opts.IncludeDirs);
    if (!Topo)
      return nullptr;
    It = Machines.emplace(Ref, std::move(*Topo)).first;
  }
  return &It->second;
}
} // namespace

int tacclc::runSim(const SimOptions &Opts) {
  // An explicit machine is checked first; otherwise each program's own.
  std::map<std::string, ir::Topology> Machines;
  if (!Opts.Topology.empty() && !machineNamed(Opts.Topology, Opts, Machines))
    return ExitUserError;
  for (const std::string &Input : Opts.Inputs)
    if (!expectProgram(Input))
      return ExitInternal;
  auto Engine = tacclrt::parseSimEngine(Opts.Engine);
  if (!Engine) {
    llvm::errs() << "tacclc: error: unknown --engine '" << Opts.Engine
                 << "' (inhouse, simgrid, simgrid:lv08, simgrid:ns3)\n";
    return ExitUserError;
  }
  std::string Why;
  if (!tacclrt::engineAvailable(*Engine, Why)) {
    llvm::errs() << "tacclc: error: engine '" << Opts.Engine
                 << "' is not available: " << Why << "\n";
    return ExitUserError;
  }
  // The charts and the table are written together after every file was
  // simulated, or none of them is; their paths are checked first.
  SourceMgrHolder Holder;
  std::vector<OutputFile> Outputs;
  if (!Opts.Timeline.empty())
    Outputs.push_back({Opts.Timeline, ""});
  if (!Opts.Plot.empty())
    Outputs.push_back({Opts.Plot, ""});
  for (const std::string &Input : Opts.Inputs)
    noteInputFile(Input); // no output may replace it
  std::vector<std::string> Paths;
  for (const OutputFile &F : Outputs)
    Paths.push_back(F.Path);
  if (!checkOutputs(Paths, Holder.Diags)) {
    Holder.Diags.flush(llvm::errs());
    return ExitUserError;
  }
  std::string Text = Opts.Json ? "[" : "";
  std::vector<ChartSeries> Series, Bounds;
  std::string Timeline, PlotMachine;
  for (size_t I = 0; I < Opts.Inputs.size(); ++I) {
    const std::string &Input = Opts.Inputs[I];
    std::optional<tacclrt::Algo> A = loadPlan(Input, Opts);
    if (!A)
      return ExitUserError;
    std::optional<std::string> Machine =
        programMachine(Opts.Topology, *A, Input);
    const ir::Topology *Topo =
        Machine ? machineNamed(*Machine, Opts, Machines) : nullptr;
    if (!Topo)
      return ExitUserError;
    PlotMachine = I == 0 || PlotMachine == *Machine
                      ? *Machine
                      : std::string("each program's machine");
    if (!simulateFile(Input, *A, *Machine, *Topo, Opts.Sizes, Opts, *Engine,
                      Text, Series, Bounds,
                      I == 0 && !Opts.Timeline.empty() ? &Timeline : nullptr))
      return ExitUserError;
  }
  Series.insert(Series.end(), Bounds.begin(), Bounds.end());
  if (Opts.Json)
    Text += "\n]\n";
  if (!Opts.Timeline.empty())
    Outputs.front().Text = Timeline;
  if (!Opts.Plot.empty())
    Outputs.back().Text = bandwidthChart(
        fmt::format("algorithm bandwidth on {}", PlotMachine), Series);
  Outputs.push_back({"", Text});
  return writeOutputs(Outputs, Holder.Diags);
}
