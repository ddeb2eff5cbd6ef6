//===- tools/tacclc/CompileReport.h - What a compile reports ----*- C++ -*-===//
//
// The human and machine-readable accounts of a compile: one line per stage
// for `-v`, the `--stats` lines, the `--summary` block, and the JSON report
// of `--report=FILE` that benchmarks read (stage times, solver statuses and
// gaps, predicted and simulated times, why they disagree). The lines of the
// times, with which to trust and why they differ, serve `tacclc baseline`
// too.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_COMPILEREPORT_H
#define TACCLC_TOOLS_TACCLC_COMPILEREPORT_H

#include "ir/Program.h"
#include "ir/Sketch.h"
#include "passes/Synthesize.h"
#include "passes/TimeModel.h"
#include "tools/tacclc/ProgramTimes.h"
#include "tools/tacclc/ProtocolChoice.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace tacclc {

/// One line saying what a stage did and how long it took (for -v).
std::string formatStage(const StageReport &R);

/// The model sizes and solver outcome of a stage (for --stats).
std::string formatStageStats(const StageReport &R);

/// One program file a compile writes, and the sizes it serves.
struct ProgramFile {
  std::string Path;
  ProtocolPiece Piece;
};

/// Everything a finished compile reports.
struct CompileFacts {
  const ir::Sketch &Sketch;
  const Synthesis &Result;
  const ir::Program &Program;
  std::string FusionNote;   ///< Why relays were left unfused, if so.
  std::string Output;       ///< The output file, or empty for stdout.
  CallPrediction Predicted; ///< The schedule model's time of the call.
  ProgramTimes Times;       ///< The simulations' times of the program.
  double TotalSeconds = 0;  ///< Wall time of the whole compile.
  /// `protocol auto`: every protocol's simulated times and the winner.
  std::optional<ProtocolChoice> Protocols = std::nullopt;
  /// Where the sketch gives parts of its size range their own protocols:
  /// every program written, smallest sizes first (the summary's program
  /// and times are those of the part that holds the design point).
  std::vector<ProgramFile> Parts = {};
  /// A rank's sends through its NIC wait their turn (codegen/PaceNics.cpp).
  bool NicsPaced = false;
  /// Trial simulations that stopped at their budget, if any (", ...").
  std::string TrialNote = {};
};

/// Which time to trust for what, in one line (the `trust` line after the
/// times; docs/simulator.md, "Which prediction to trust").
extern const char *const TrustLine;

/// Prints the times of a program of \p S: the schedule model's prediction
/// \p P and its parts, the simulations' times of \p T, the line that says
/// which to trust when there is a simulated time, and a `differs` line with
/// its reason for each gap of more than 15% between them.
void printTimes(llvm::raw_ostream &OS, const ir::Sketch &S,
                const CallPrediction &P, const ProgramTimes &T);

/// Prints the --summary block to stderr.
void printSummary(const CompileFacts &F);

/// The --report JSON document.
std::string reportJson(const CompileFacts &F);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_COMPILEREPORT_H
