//===- tools/tacclc/CompileReport.cpp - Stage lines, summary, JSON --------===//
//
// Formats what synthesize() and the lowering report. Times are wall seconds
// (they vary run to run, so nothing here may feed back into the output
// algorithm); predicted times are microseconds.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/CompileReport.h"
#include "tools/tacclc/Output.h"
#include "tools/tacclc/ProtocolPrograms.h"

#include "ir/Printer.h"
#include "passes/TimeModel.h"
#include "support/Deadline.h"
#include "support/Memory.h"

#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace tacclc;

namespace {
bool isSolverStage(const StageReport &R) { return !R.Solve.Status.empty(); }

/// "optimal", "feasible (time limit, gap 3.1%)", "feasible (time limit, no
/// bound known)", or "feasible (why)".
std::string outcome(const SolveStats &S) {
  if (S.HitTimeLimit && std::isnan(S.gap()))
    return fmt::format("{} (time limit, no bound known)", S.Status);
  if (S.HitTimeLimit)
    return fmt::format("{} (time limit, gap {:.2f}%)", S.Status, 100 * S.gap());
  if ((S.Status == "feasible" || S.Status == "optimal") && !S.Note.empty())
    return fmt::format("{} ({})", S.Status, S.Note);
  return S.Status;
}

/// A value for text: "none" when unknown (NaN or infinite).
std::string value(double V) {
  return std::isfinite(V) ? fmt::format("{:.6g}", V) : std::string("none");
}

/// A JSON number; NaN and infinities (which JSON lacks) become null.
std::string num(double V) {
  return std::isfinite(V) ? fmt::format("{:.9g}", V) : std::string("null");
}

/// What the prediction is made of: "launch 8.4 us + schedule 27.6 us", and
/// "+ 511 further slices x 110 us (nic of 0:0 (send))" for several slices.
std::string predictionParts(const CallPrediction &P) {
  std::string Text =
      fmt::format("launch {} + schedule {}", ir::formatUs(P.LaunchUs),
                  ir::formatUs(P.ScheduleUs));
  if (P.Slices > 1)
    Text += fmt::format(" + {} further slices x {} ({})", P.Slices - 1,
                        ir::formatUs(P.SliceUs), P.Busiest);
  return Text;
}

/// One gap between two of the times.
struct Gap {
  /// E.g. "predicted 36.0 us is 21% below tacclc sim's 45.6 us".
  std::string Between;
  Disagreement Why;
};

/// The gaps of more than 15% between the prediction \p P, the simulation
/// and the referee of \p T, each with its reason.
std::vector<Gap> gaps(const CallPrediction &P, const ProgramTimes &T) {
  std::vector<Gap> Out;
  const std::optional<MeasuredCall> &Sim = T.Simulated;
  auto Between = [](const std::string &A, double AUs, const std::string &B,
                    double BUs) {
    double Pct = 100 * std::fabs(AUs - BUs) / BUs;
    return fmt::format("{} {} is {:.0f}% {} {}'s {}", A, ir::formatUs(AUs), Pct,
                       AUs < BUs ? "below" : "above", B, ir::formatUs(BUs));
  };
  if (Sim)
    if (auto D = explainDisagreement(P, *Sim))
      Out.push_back(
          {Between("predicted", P.TotalUs, Sim->Engine, Sim->TimeUs), *D});
  if (T.RefereeUs) {
    // The referee's gaps are explained with what the in-house simulation
    // measured; between the two engines, what differs is their network.
    MeasuredCall Ref = Sim ? *Sim : MeasuredCall();
    Ref.Engine = "the referee";
    Ref.TimeUs = *T.RefereeUs;
    if (auto D = explainDisagreement(P, Ref))
      Out.push_back(
          {Between("predicted", P.TotalUs, Ref.Engine, Ref.TimeUs), *D});
    if (Sim && timesDisagree(Sim->TimeUs, Ref.TimeUs))
      Out.push_back(
          {Between("tacclc sim", Sim->TimeUs, Ref.Engine, Ref.TimeUs),
           {"engines",
            fmt::format("the engines model the network differently (tacclc "
                        "sim: {} links at once through {})",
                        Sim->PortSharing, Sim->SharedPort)}});
  }
  return Out;
}

} // namespace

const char *const tacclc::TrustLine =
    "tacclc sim for the program's time: it runs the lowered program "
    "(protocol, pipelined slices, shared ports); the prediction is the "
    "MILP's view of the schedule, for comparing schedules "
    "(docs/simulator.md, \"Which prediction to trust\")";

void tacclc::printTimes(llvm::raw_ostream &OS, const ir::Sketch &S,
                        const CallPrediction &Pred, const ProgramTimes &T) {
  unsigned N = S.Topo.getNumRanks();
  auto Bandwidths = [&](double Us) {
    double AlgBw = double(S.SizeBytes) / (Us * 1e3); // GB/s
    return fmt::format("algbw {:.2f} GB/s, busbw {:.2f} GB/s", AlgBw,
                       AlgBw * ir::busBandwidthFactor(S.Coll.getKind(), N));
  };
  OS << fmt::format("predicted   {} ({}) by the schedule's model: {}\n",
                    ir::formatUs(Pred.TotalUs), Bandwidths(Pred.TotalUs),
                    predictionParts(Pred));
  const std::optional<MeasuredCall> &Sim = T.Simulated;
  if (Sim)
    OS << fmt::format("simulated   {} ({}) by tacclc sim\n",
                      ir::formatUs(Sim->TimeUs), Bandwidths(Sim->TimeUs));
  else if (!T.SimNote.empty())
    OS << "simulated   not run: " << T.SimNote << "\n";
  if (T.RefereeUs)
    OS << fmt::format("referee     {} ({}) by the SimGrid referee\n",
                      ir::formatUs(*T.RefereeUs), Bandwidths(*T.RefereeUs));
  if (Sim)
    OS << "trust       " << TrustLine << "\n";
  for (const Gap &G : gaps(Pred, T))
    OS << "differs     " << G.Between << ": " << G.Why.Reason << "\n";
}

std::string tacclc::formatStage(const StageReport &R) {
  std::string Head = fmt::format("[{}] {:.2f} s", R.Name, R.Seconds);
  if (isSolverStage(R) && R.Solve.Status != "skipped")
    Head += ", " + outcome(R.Solve);
  return fmt::format("{}, {}: {}", Head, ir::formatUs(R.MakespanUs), R.Detail);
}

std::string tacclc::formatStageStats(const StageReport &R) {
  if (!isSolverStage(R))
    return fmt::format("{} {:.3f} s; {}", R.Name, R.Seconds, R.Detail);
  const SolveStats &S = R.Solve;
  std::string Text = fmt::format(
      "{} model {} variables ({} integer), {} rows, {} nonzeros", R.Name,
      S.Variables, S.IntegerVariables, S.Constraints, S.Nonzeros);
  if (S.VariablesBefore != S.Variables || S.ConstraintsBefore != S.Constraints)
    Text += fmt::format(" (before symmetry reduction {} variables, {} rows; "
                        "group of {}, {} chunk orbits)",
                        S.VariablesBefore, S.ConstraintsBefore, S.GroupSize,
                        S.ChunkOrbits);
  Text += fmt::format("; warm start {}; {} in {:.3f} s, objective {}, bound {}",
                      value(S.WarmStartObjective), outcome(S), S.Seconds,
                      value(S.Objective), value(S.BestBound));
  if (S.SolverPeakBytes)
    Text += "; solver peak memory " + formatBytes(S.SolverPeakBytes);
  return Text;
}

void tacclc::printSummary(const CompileFacts &F) {
  const ir::Sketch &S = F.Sketch;
  const ir::Program &P = F.Program;
  unsigned MaxTbs = 0, Steps = 0, Fused = 0;
  for (const ir::GpuProgram &G : P.Gpus) {
    MaxTbs = std::max<unsigned>(MaxTbs, G.Tbs.size());
    for (const ir::ThreadBlock &Tb : G.Tbs) {
      Steps += Tb.Steps.size();
      for (const ir::Step &St : Tb.Steps)
        Fused += St.Type == ir::OpType::RecvCopySend ||
                 St.Type == ir::OpType::RecvReduceSend ||
                 St.Type == ir::OpType::RecvReduceCopySend;
    }
  }
  unsigned N = S.Topo.getNumRanks();
  auto &OS = llvm::errs();
  OS << fmt::format("sketch      {} (topology {})\n", S.Name,
                    S.Topo.getName().str());
  OS << fmt::format("collective  {} on {} ranks, {}, size {}\n",
                    ir::collectiveName(S.Coll.getKind()).str(), N,
                    ir::describeChunks(S.Coll.getKind(), N,
                                       S.Coll.getChunksPerRank(),
                                       S.Coll.getRoot().index()),
                    ir::formatBytes(S.SizeBytes));
  for (const StageReport &R : F.Result.Stages) {
    std::string Line = fmt::format("{:.2f} s", R.Seconds);
    if (isSolverStage(R) && R.Solve.Status != "skipped")
      Line = fmt::format("{} in {} ({} variables, {} rows)", outcome(R.Solve),
                         Line, R.Solve.Variables, R.Solve.Constraints);
    OS << fmt::format("{:<11} {}; {}\n", R.Name, Line, R.Detail);
  }
  if (F.Protocols)
    printProtocolChoice(OS, *F.Protocols);
  printTimes(OS, S, F.Predicted, F.Times);
  OS << fmt::format("program     {} steps ({} relays fused{}), up to {} "
                    "threadblocks per rank, {} channel(s){}{}\n",
                    Steps, Fused, F.FusionNote, MaxTbs, P.NChannels,
                    F.NicsPaced ? ", NIC sends paced" : "", F.TrialNote);
  if (!F.Parts.empty()) {
    std::vector<std::string> Parts;
    for (const ProgramFile &Part : F.Parts)
      Parts.push_back(fmt::format("{} for {} -> {}",
                                  tacclrt::nameOf(Part.Piece.Proto),
                                  describePiece(Part.Piece), Part.Path));
    OS << fmt::format("verified    OK, {} programs: {}\n", Parts.size(),
                      fmt::join(Parts, "; "));
  } else {
    OS << fmt::format("verified    OK{}\n",
                      F.Output.empty() ? std::string() : " -> " + F.Output);
  }
  OS.flush();
}

std::string tacclc::reportJson(const CompileFacts &F) {
  const ir::Sketch &S = F.Sketch;
  std::string Stages;
  for (const StageReport &R : F.Result.Stages) {
    if (!Stages.empty())
      Stages += ",\n";
    Stages += fmt::format("    {{\"name\": {}, \"seconds\": {}, "
                          "\"makespan_us\": {}, \"detail\": {}",
                          jsonQuote(R.Name), num(R.Seconds), num(R.MakespanUs),
                          jsonQuote(R.Detail));
    if (isSolverStage(R)) {
      const SolveStats &St = R.Solve;
      Stages += fmt::format(
          ", \"status\": {}, \"time_limit_hit\": {}, \"gap\": {}, "
          "\"objective\": {}, \"bound\": {}, \"variables\": {}, "
          "\"integer_variables\": {}, \"constraints\": {}, "
          "\"variables_before_symmetry\": {}, "
          "\"constraints_before_symmetry\": {}, \"solve_seconds\": {}, "
          "\"note\": {}",
          jsonQuote(St.Status), St.HitTimeLimit ? "true" : "false",
          num(St.gap()), num(St.Objective), num(St.BestBound), St.Variables,
          St.IntegerVariables, St.Constraints, St.VariablesBefore,
          St.ConstraintsBefore, num(St.Seconds), jsonQuote(St.Note));
    }
    Stages += "}";
  }
  // Where the time went, phase by phase (a nested phase counts in its
  // parent too), and the compiler's peak memory.
  std::vector<std::string> Phases;
  for (const PhaseTime &T : phaseTimes())
    Phases.push_back(
        fmt::format("    {{\"name\": {}, \"seconds\": {}, \"entries\": {}}}",
                    jsonQuote(T.Name), num(T.Seconds), T.Entries));
  const CallPrediction &P = F.Predicted;
  std::string Prediction = fmt::format(
      "{{\"launch_us\": {}, \"schedule_us\": {}, \"slices\": {}, "
      "\"slice_us\": {}, \"busiest\": {}, \"critical_hops\": {}, "
      "\"critical_latency_us\": {}}}",
      num(P.LaunchUs), num(P.ScheduleUs), P.Slices, num(P.SliceUs),
      jsonQuote(P.Busiest), P.CriticalHops, num(P.CriticalLatencyUs));
  std::string Gaps;
  for (const Gap &G : gaps(P, F.Times))
    Gaps += fmt::format("{}    {{\"between\": {}, \"class\": {}, "
                        "\"reason\": {}}}",
                        Gaps.empty() ? "" : ",\n", jsonQuote(G.Between),
                        jsonQuote(G.Why.Class), jsonQuote(G.Why.Reason));
  const std::optional<MeasuredCall> &Sim = F.Times.Simulated;
  // `protocol auto`: the sizes compared and each protocol's times there.
  std::string Choice = "null";
  if (F.Protocols) {
    std::vector<std::string> Times;
    for (const auto &[Proto, Us] : F.Protocols->Times) {
      std::vector<std::string> Each;
      for (double T : Us)
        Each.push_back(num(T));
      Times.push_back(fmt::format("{}: [{}]", jsonQuote(tacclrt::nameOf(Proto)),
                                  fmt::join(Each, ", ")));
    }
    std::vector<std::string> Stopped;
    for (tacclrt::Protocol P : F.Protocols->Stopped)
      Stopped.push_back(jsonQuote(tacclrt::nameOf(P)));
    Choice = fmt::format("{{\"sizes\": [{}], \"times_us\": {{{}}}, "
                         "\"stopped\": [{}]}}",
                         fmt::join(F.Protocols->Sizes, ", "),
                         fmt::join(Times, ", "), fmt::join(Stopped, ", "));
  }
  // The programs written: one, or one per part of the size range.
  std::vector<std::string> Programs;
  auto Program = [&](llvm::StringRef File, llvm::StringRef Proto,
                     uint64_t MinBytes, uint64_t MaxBytes) {
    Programs.push_back(
        fmt::format("{{\"file\": {}, \"protocol\": {}, \"min_bytes\": {}, "
                    "\"max_bytes\": {}}}",
                    jsonQuote(File), jsonQuote(Proto), MinBytes, MaxBytes));
  };
  if (F.Parts.empty())
    Program(F.Output, S.Protocol, S.MinBytes, S.MaxBytes);
  for (const ProgramFile &Part : F.Parts)
    Program(Part.Path, tacclrt::nameOf(Part.Piece.Proto), Part.Piece.MinBytes,
            Part.Piece.MaxBytes);
  return fmt::format(
      "{{\n  \"sketch\": {},\n  \"topology\": {},\n  \"collective\": {},\n"
      "  \"ranks\": {},\n  \"bytes\": {},\n  \"chunks\": {},\n"
      "  \"protocol\": {},\n  \"protocol_choice\": {},\n"
      "  \"programs\": [{}],\n"
      "  \"total_seconds\": {},\n  \"predicted_us\": {},\n"
      "  \"prediction\": {},\n"
      "  \"simulated_us\": {},\n  \"simulation_events\": {},\n"
      "  \"simulation_flow_updates\": {},\n  \"simulation_note\": {},\n"
      "  \"referee_us\": {},\n"
      "  \"referee_note\": {},\n  \"disagreements\": [{}{}],\n"
      "  \"stages\": [\n{}\n  ],\n"
      "  \"phases\": [\n{}\n  ],\n  \"peak_bytes\": {}\n}}\n",
      jsonQuote(S.Name), jsonQuote(S.Topo.getName()),
      jsonQuote(ir::collectiveName(S.Coll.getKind())), S.Topo.getNumRanks(),
      S.SizeBytes, S.Coll.getNumChunks(), jsonQuote(S.Protocol), Choice,
      fmt::join(Programs, ", "), num(F.TotalSeconds), num(P.TotalUs),
      Prediction, Sim ? num(Sim->TimeUs) : std::string("null"),
      Sim ? std::to_string(Sim->Events) : std::string("null"),
      Sim ? std::to_string(Sim->FlowUpdates) : std::string("null"),
      jsonQuote(F.Times.SimNote),
      F.Times.RefereeUs ? num(*F.Times.RefereeUs) : std::string("null"),
      jsonQuote(F.Times.RefereeNote), Gaps.empty() ? "" : "\n",
      Gaps.empty() ? Gaps : Gaps + "\n  ", Stages, fmt::join(Phases, ",\n"),
      peakResidentBytes());
}
