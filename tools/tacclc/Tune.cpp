//===- tools/tacclc/Tune.cpp - `tacclc tune` ------------------------------===//
//
// `tacclc tune --topology MACHINE --collective C[,C...] -o DIR`: from a
// machine to a folder of verified algorithms, one per range of sizes where
// a synthesised program beats NCCL's own, without writing a sketch. Given
// `--sketches FILE` alone, the machine and the collectives are those of the
// file's sketches (scripts/algo-dir runs it so, with --no-candidates). The
// command's options and its three modes:
//   tune ... -o DIR            plan, run the jobs (-j at a time, cached),
//                              choose, write and verify DIR;
//   tune ... --jobs FILE -o DIR  plan and prepare the jobs, write one
//                              command line per job to FILE for another
//                              scheduler (a Slurm array, GNU parallel);
//   tune ... --merge DIR... -o DIR  the same choice from results that
//                              those runs left in other cache folders;
// and the hidden --run-job DIR each job runs as (tools/tacclc/TuneJob.h).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/TuneJob.h"
#include "tools/tacclc/TunePlan.h"
#include "tools/tacclc/TuneReport.h"

#include "sim/SimGrid.h"
#include "support/OutputFile.h"
#include "support/Sizes.h"
#include "tune/Cache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

using namespace llvm;
using namespace tacclc;

namespace {
cl::OptionCategory &category() {
  static cl::OptionCategory Cat("Tune options");
  return Cat;
}
cl::SubCommand &command() {
  static cl::SubCommand Cmd(
      "tune", "Synthesise, simulate and choose the fastest verified "
              "algorithm for every size on a machine, without a sketch");
  return Cmd;
}

cl::opt<std::string> Topology("topology",
                              cl::desc("The machine: ndv2(nodes: 2), "
                                       "mybox(nodes: 4) or "
                                       "FILE.sketch:NAME(args); default: the "
                                       "one the sketches of --sketches are on"),
                              cl::value_desc("machine"), cl::sub(command()),
                              cl::cat(category()));
cl::list<std::string>
    Collectives("collective",
                cl::desc("The collectives: allgather, alltoall, "
                         "reducescatter, allreduce (comma-separated); "
                         "default: those of the sketches of --sketches"),
                cl::CommaSeparated, cl::value_desc("c,..."), cl::sub(command()),
                cl::cat(category()));
cl::opt<std::string> Sizes("sizes",
                           cl::desc("The sweep (default 1KiB:4GiB): LO:HI "
                                    "doubling, or a comma list"),
                           cl::init("1KiB:4GiB"), cl::sub(command()),
                           cl::cat(category()));
cl::list<std::string>
    SketchFiles("sketches",
                cl::desc("Sketch files whose sketches on this machine compete "
                         "too"),
                cl::value_desc("file.sketch"), cl::sub(command()),
                cl::cat(category()));
cl::opt<bool> NoCandidates("no-candidates",
                           cl::desc("Generate no sketches: only the files of "
                                    "--sketches and NCCL's algorithms"),
                           cl::sub(command()), cl::cat(category()));
cl::opt<unsigned> Parallel("j",
                           cl::desc("Jobs at once (default: one per core)"),
                           cl::value_desc("n"), cl::Prefix, cl::sub(command()),
                           cl::cat(category()));
cl::opt<double> TimeLimit("time-limit",
                          cl::desc("Each compile's time limit in seconds "
                                   "(default 60)"),
                          cl::init(60), cl::sub(command()),
                          cl::cat(category()));
cl::opt<double> Budget("budget",
                       cl::desc("Start no job after this many seconds (they "
                                "are reported as not run); default: none"),
                       cl::init(0), cl::sub(command()), cl::cat(category()));
cl::opt<std::string> Engine("engine",
                            cl::desc("Simulation engine that judges: simgrid "
                                     "(default where built) or inhouse"),
                            cl::sub(command()), cl::cat(category()));
cl::opt<std::string> CacheDir("cache",
                              cl::desc("The cache folder (default "
                                       "$TACCLC_CACHE_DIR, else "
                                       "~/.cache/tacclc/tune)"),
                              cl::value_desc("dir"), cl::sub(command()),
                              cl::cat(category()));
cl::opt<std::string> JobsFile("jobs",
                              cl::desc("Prepare the jobs and write their "
                                       "command lines here instead of "
                                       "running them"),
                              cl::value_desc("file"), cl::sub(command()),
                              cl::cat(category()));
cl::list<std::string> MergeDirs("merge",
                                cl::desc("Take results from these cache "
                                         "folders too, and run nothing"),
                                cl::value_desc("dir"), cl::sub(command()),
                                cl::cat(category()));
cl::opt<std::string> RunJob("run-job", cl::desc("Run one job's folder"),
                            cl::Hidden, cl::sub(command()),
                            cl::cat(category()));
cl::opt<std::string> Output("o", cl::desc("The algorithm folder to write"),
                            cl::value_desc("dir"), cl::sub(command()),
                            cl::cat(category()));
cl::list<std::string> IncludeDirs("I",
                                  cl::desc("Search this folder for "
                                           "imports"),
                                  cl::value_desc("dir"), cl::Prefix,
                                  cl::sub(command()), cl::cat(category()));
cl::opt<bool> Legacy("legacy",
                     cl::desc("Write for the original microsoft/msccl "
                              "runtime (--dialect=msccl-legacy)"),
                     cl::sub(command()), cl::cat(category()));

int usage(const std::string &Why) {
  errs() << "tacclc: error: " << Why << "\n";
  return ExitInternal;
}

std::string selfPath() { return sys::fs::getMainExecutable(nullptr, nullptr); }
} // namespace

const cl::OptionCategory &tacclc::tuneCategory() { return category(); }

std::optional<int> tacclc::runTuneIfNamed() {
  if (!command())
    return std::nullopt;
  const std::string Self = selfPath();
  if (!RunJob.empty())
    return runTuneJob(Self, RunJob);
  const auto Start = std::chrono::steady_clock::now();

  TuneRequest R;
  // Without --topology or --collective, the sketches of --sketches name
  // the machine and the collectives (planTune).
  if (Topology.empty() && SketchFiles.empty())
    return usage("tune needs --topology MACHINE (or --sketches FILE, whose "
                 "sketches name it)");
  if (Collectives.empty() && SketchFiles.empty())
    return usage("tune needs --collective (allgather, alltoall, "
                 "reducescatter, allreduce)");
  if (Output.empty())
    return usage("tune needs -o DIR, the algorithm folder to write");
  R.Topology = Topology;
  for (const std::string &C : Collectives)
    if (!is_contained(R.Collectives, C))
      R.Collectives.push_back(C);
  auto Sweep = parseSizeList(Sizes);
  if (!Sweep || Sweep->empty())
    return usage(
        fmt::format("bad --sizes '{}': {}", Sizes.getValue(), SizeListSyntax));
  R.Sizes = *Sweep;
  std::sort(R.Sizes.begin(), R.Sizes.end());
  R.Sizes.erase(std::unique(R.Sizes.begin(), R.Sizes.end()), R.Sizes.end());
  R.SketchFiles.assign(SketchFiles.begin(), SketchFiles.end());
  R.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  if (!(TimeLimit > 0 && TimeLimit <= 86400))
    return usage("--time-limit must be above 0 and at most 86400 seconds");
  if (Budget < 0)
    return usage("--budget must not be negative");
  R.TimeLimitSeconds = TimeLimit;
  R.Legacy = Legacy;
  R.NoCandidates = NoCandidates;
  std::string Why;
  if (Engine.empty())
    R.Engine = tacclrt::engineAvailable(tacclrt::SimEngineKind::SimGrid, Why)
                   ? "simgrid"
                   : "inhouse";
  else if (auto K = tacclrt::parseSimEngine(Engine)) {
    if (!tacclrt::engineAvailable(*K, Why))
      return usage("--engine " + Engine + ": " + Why);
    R.Engine = Engine;
  } else {
    return usage("--engine must be simgrid or inhouse, not '" + Engine + "'");
  }

  std::string Cache = CacheDir.empty() ? tune::defaultCacheDir() : CacheDir;
  if (Cache.empty())
    return usage("no cache folder: give --cache DIR (neither "
                 "$TACCLC_CACHE_DIR, $XDG_CACHE_HOME nor $HOME is set)");
  {
    SmallString<256> Abs(Cache);
    sys::fs::make_absolute(Abs);
    Cache = std::string(Abs);
  }
  auto Plan = planTune(R, Self, Cache);
  if (!Plan)
    return ExitUserError;
  std::vector<std::string> Merge;
  for (const std::string &D : MergeDirs) {
    SmallString<256> Abs(D);
    sys::fs::make_absolute(Abs);
    Merge.push_back(std::string(Abs));
  }
  loadResults(*Plan, Merge);
  if (!JobsFile.empty() || Merge.empty())
    if (!prepareJobs(*Plan))
      return ExitUserError;

  unsigned Cached = 0;
  for (const PlannedJob &J : Plan->Jobs)
    Cached += J.Result.has_value();
  errs() << fmt::format(
      "tune: {} on {} ({} GPUs), {} sizes from {} to {}: "
      "{} jobs, {} cached; judged by the {} engine\n",
      join(Plan->Request.Collectives, ", "), Plan->Reference, Plan->Ranks,
      R.Sizes.size(), formatByteSize(R.Sizes.front()),
      formatByteSize(R.Sizes.back()), Plan->Jobs.size(), Cached, R.Engine);

  if (!JobsFile.empty()) {
    std::string Lines;
    for (const PlannedJob &J : Plan->Jobs)
      if (!J.Result)
        Lines += fmt::format("'{}' tune --run-job '{}'\n", Self, J.Dir);
    OutputError E;
    if (!writeOutputFiles({{JobsFile, Lines}}, {}, E))
      return usage("cannot write " + E.Path + ": " + E.Reason);
    outs() << fmt::format("wrote {} job(s) to {}; run them, then `tacclc "
                          "tune` with the same options and --merge {} (or "
                          "the folders they wrote to)\n",
                          Plan->Jobs.size() - Cached, JobsFile.getValue(),
                          Cache);
    return ExitSuccess;
  }
  if (Merge.empty()) {
    unsigned J = Parallel ? Parallel.getValue()
                          : std::max(1u, std::thread::hardware_concurrency());
    runTuneJobs(*Plan, Self, J, Budget);
  } else {
    for (PlannedJob &J : Plan->Jobs)
      if (!J.Result && J.Missing.empty())
        J.Missing = "not run: no result in the merged folders";
  }
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return writeTuneOutput(*Plan, Output, Self, Secs);
}
