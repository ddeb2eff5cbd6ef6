//===- tools/tacclc/TuneOutcome.h - A tune's choice per collective -*- C++ -*-//
//
// What `tacclc tune` chose for one collective, shared by the code that
// writes the algorithm folder (TuneReport.cpp) and the code that verifies it
// and writes the reports (TuneReportText.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_TUNEOUTCOME_H
#define TACCLC_TOOLS_TACCLC_TUNEOUTCOME_H

#include "tools/tacclc/TunePlan.h"

#include "format/Plan.h"
#include "tune/Stitch.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// One program that competes.
struct TuneEntry {
  const PlannedJob *Job;
  const TuneProgram *Prog;
  std::string name() const {
    return Job->Job.What == TuneJob::Baseline
               ? "NCCL " + Job->Job.Label
               : Job->Job.Label + " (" + Prog->Protocol + ")";
  }
};

/// The outcome for one collective.
struct TuneOutcome {
  std::string Coll;
  tacclrt::CollKind Kind = tacclrt::CollKind::AllGather;
  std::vector<TuneEntry> Programs;
  std::vector<tune::SizeWinner> Winners;
  std::vector<tune::ServedRange> Ranges;
  std::vector<std::string> RangeFiles; ///< Per range; "" when forwarded.
  std::vector<std::optional<double>> BoundUs;
  /// Per NCCL algorithm, its fastest protocol's time per size.
  std::map<std::string, std::vector<std::optional<double>>> Nccl;
  /// The fastest NCCL program per size (index into Programs, or -1).
  std::vector<int> BestNccl;
};

/// \p E's time at size \p I of the sweep, if it was simulated there.
inline std::optional<double> timeOf(const TuneEntry &E, size_t I) {
  return I < E.Prog->TimesUs.size() ? E.Prog->TimesUs[I] : std::nullopt;
}

/// Checks the folder \p Dir written for \p Outcomes: every file passes
/// `tacclc check`, the runtime's loader takes them all, and every size of
/// the sweep is served by exactly the file chosen for it, or by none where
/// NCCL won. Nothing when it holds; else why not.
std::optional<std::string>
verifyFolder(const TunePlan &P, const std::vector<TuneOutcome> &Outcomes,
             const std::string &Dir, const std::string &Tacclc);
/// report.json's text.
std::string reportJson(const TunePlan &P,
                       const std::vector<TuneOutcome> &Outcomes);
/// report.md's text.
std::string reportMarkdown(const TunePlan &P,
                           const std::vector<TuneOutcome> &Outcomes);
/// The SVG of \p O: algorithm bandwidth of the envelope, NCCL's ring and tree,
/// and the bound, against size.
std::string envelopeChart(const TunePlan &P, const TuneOutcome &O);
/// The lines tune prints when it is done.
void printSummary(const TunePlan &P, const std::vector<TuneOutcome> &Outcomes,
                  const std::string &OutDir, double Seconds);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_TUNEOUTCOME_H
