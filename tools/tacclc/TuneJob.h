//===- tools/tacclc/TuneJob.h - One compile and its simulations -*- C++ -*-===//
//
// The unit of work of `tacclc tune`: one program source (a generated or a
// user's sketch, or one of NCCL's algorithms under one protocol) compiled,
// and every program it writes simulated at the sizes of the sweep it may
// serve. A job lives in a folder of its own, named by its content key
// (tune/Cache.h): job.json says what to do, result.json what came of it,
// beside the compiler's log and the XML files. `tacclc tune --run-job DIR`
// runs one; tune runs them in parallel, or lists them (--jobs) for another
// scheduler to run anywhere the folder is reachable.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_TUNEJOB_H
#define TACCLC_TOOLS_TACCLC_TUNEJOB_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// What one job does.
struct TuneJob {
  enum Kind { Sketch, Baseline };
  Kind What = Sketch;
  /// The candidate's name, or `NAME` of a user's sketch, or `ring LL`.
  std::string Label;
  /// The family the report groups it under: "relay direct", "NCCL ring",
  /// "file.sketch".
  std::string Family;
  std::string Collective;
  /// The band of a generated candidate; empty for the others.
  std::string Band;
  /// The machine reference, for baselines and simulations.
  std::string Topology;
  /// The folder references are resolved from (absolute).
  std::string WorkDir;
  /// Sketch jobs: the file (absolute) and the sketch to compile.
  std::string SketchFile, SketchName;
  std::vector<std::string> IncludeDirs;
  double TimeLimitSeconds = 60;
  /// Baseline jobs: NCCL's algorithm and the protocol.
  std::string Algorithm, Protocol;
  bool Legacy = false;
  /// The sweep, ascending; every job times its programs at those sizes
  /// they may serve.
  std::vector<std::uint64_t> Sizes;
  std::string Engine;
};

/// One program a job wrote, and its times.
struct TuneProgram {
  std::string File; ///< Name inside the job's folder.
  std::string Protocol;
  std::uint64_t MinBytes = 0, MaxBytes = 0; ///< As the XML says.
  /// Per size of the sweep: the simulated time, or nothing where the
  /// program may not serve that size or the simulation failed.
  std::vector<std::optional<double>> TimesUs;
};

/// What came of a job.
struct TuneResult {
  /// "ok", "failed" or "timeout".
  std::string Status;
  double Seconds = 0;
  /// Why it failed: the compiler's last error line.
  std::string Message;
  std::vector<TuneProgram> Programs;
};

/// job.json's text for \p J (stable: the same job gives the same bytes).
std::string jobJson(const TuneJob &J);
/// Reads job.json's text; nothing with \p Error set on a bad file.
std::optional<TuneJob> parseJobJson(const std::string &Text,
                                    std::string &Error);
/// result.json's text for \p R.
std::string resultJson(const TuneResult &R);
/// Reads result.json's text; nothing on a bad file.
std::optional<TuneResult> parseResultJson(const std::string &Text,
                                          std::string &Error);

/// Runs the job of folder \p Dir with the compiler \p Tacclc and writes
/// its result.json; the process exit status (0 also for a job whose
/// compile failed: that is a result).
int runTuneJob(const std::string &Tacclc, const std::string &Dir);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_TUNEJOB_H
