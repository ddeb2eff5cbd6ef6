//===- tools/tacclc/TunePlan.h - The jobs of one tune -----------*- C++ -*-===//
//
// What `tacclc tune` decides before running anything: the machine, the
// sweep, and for each collective the jobs: the generated candidates
// (tune/Candidates.h), the sketches of the user's files that are on this
// machine, and NCCL's algorithms under each protocol. Each job gets its
// cache folder from its content key. Then the jobs that have no result yet
// run, a few at a time (runTuneJobs), and the outcome is chosen and written
// by tools/tacclc/TuneReport.h.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_TUNEPLAN_H
#define TACCLC_TOOLS_TACCLC_TUNEPLAN_H

#include "tools/tacclc/TuneJob.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// The request, as the command line gives it.
struct TuneRequest {
  std::string Topology;
  std::vector<std::string> Collectives;
  std::vector<std::uint64_t> Sizes;
  std::vector<std::string> SketchFiles;
  std::vector<std::string> IncludeDirs;
  double TimeLimitSeconds = 60;
  std::string Engine;
  bool Legacy = false;
  /// Leave out the generated candidates (only the user's sketches and
  /// NCCL's algorithms compete).
  bool NoCandidates = false;
};

/// One job of the plan, where its folder is, and what came of it.
struct PlannedJob {
  TuneJob Job;
  std::string Key;
  /// The folder holding job.json (and, once run, result.json).
  std::string Dir;
  /// The candidate's sketch text, written into Dir (generated ones only).
  std::string SketchText;
  std::optional<TuneResult> Result;
  /// Why it has no result: "not run" (over the budget, or --merge found
  /// none), or a result.json that did not parse.
  std::string Missing;
  bool Cached = false; ///< Its result was in the cache before this run.
};

/// Everything one tune does.
struct TunePlan {
  TuneRequest Request;
  /// The machine reference the programs record.
  std::string Reference;
  unsigned Ranks = 0, Nodes = 0, GpusPerNode = 0;
  std::vector<PlannedJob> Jobs;
};

/// Builds the plan: the machine, the candidates, the user's sketches and
/// NCCL's algorithms, each with its key and folder under \p CacheDir.
/// Nothing after printing why (an unknown machine, a bad sketch file, a
/// collective tune does not handle).
std::optional<TunePlan> planTune(const TuneRequest &R,
                                 const std::string &Tacclc,
                                 const std::string &CacheDir);

/// Writes each job's job.json (and its sketch) into its folder, creating
/// it; false after printing why.
bool prepareJobs(TunePlan &P);

/// Loads the results already in each job's folder (or in the same-named
/// folder under one of \p MoreDirs).
void loadResults(TunePlan &P, const std::vector<std::string> &MoreDirs);

/// Runs every job without a result, \p Parallel at a time, with progress on
/// stderr; jobs not started within \p BudgetSeconds (0: no budget) stay
/// "not run". Each is `tacclc tune --run-job DIR`.
void runTuneJobs(TunePlan &P, const std::string &Tacclc, unsigned Parallel,
                 double BudgetSeconds);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_TUNEPLAN_H
