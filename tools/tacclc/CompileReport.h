//===- tools/tacclc/CompileReport.h - What a compile tells the user -*- C++
//-*-===//
//
// The human and machine-readable accounts of a compile: one line per stage
// for `-v`, the `--stats` lines, the `--summary` block, and the JSON report
// of `--report=FILE` that benchmarks read (stage times, solver statuses and
// gaps, predicted and simulated times, why they disagree).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_COMPILEREPORT_H
#define TACCLC_TOOLS_TACCLC_COMPILEREPORT_H

#include "ir/Program.h"
#include "ir/Sketch.h"
#include "passes/Synthesize.h"
#include "passes/TimeModel.h"
#include "tools/tacclc/ProgramTimes.h"

#include <optional>
#include <string>

namespace tacclc {

/// One line saying what a stage did and how long it took (for -v).
std::string formatStage(const StageReport &R);

/// The model sizes and solver outcome of a stage (for --stats).
std::string formatStageStats(const StageReport &R);

/// Everything a finished compile reports.
struct CompileFacts {
  const ir::Sketch &Sketch;
  const Synthesis &Result;
  const ir::Program &Program;
  std::string FusionNote;      ///< Why relays were left unfused, if so.
  std::string Output;          ///< The output file, or empty for stdout.
  CallPrediction Predicted;    ///< The schedule model's time of the call.
  ProgramTimes Times;          ///< The simulations' times of the program.
  double TotalSeconds = 0;     ///< Wall time of the whole compile.
};

/// Prints the --summary block to stderr.
void printSummary(const CompileFacts &F);

/// The --report JSON document.
std::string reportJson(const CompileFacts &F);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_COMPILEREPORT_H
