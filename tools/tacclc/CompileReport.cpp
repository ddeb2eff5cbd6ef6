//===- tools/tacclc/CompileReport.cpp - Stage lines, summary, JSON --------===//
//
// Formats what synthesize() and the lowering report. Times are wall seconds
// (they vary run to run, so nothing here may feed back into the output
// algorithm); predicted times are microseconds.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/CompileReport.h"
#include "tools/tacclc/Output.h"

#include "ir/Printer.h"
#include "passes/TimeModel.h"
#include "support/Memory.h"

#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

using namespace tacclc;

namespace {
bool isSolverStage(const StageReport &R) { return !R.Solve.Status.empty(); }

/// "optimal", "feasible (time limit, gap 3.1%)", or "feasible (why)".
std::string outcome(const SolveStats &S) {
  if (S.HitTimeLimit)
    return fmt::format("{} (time limit, gap {:.2f}%)", S.Status, 100 * S.gap());
  if (S.Status == "feasible" && !S.Note.empty())
    return fmt::format("{} ({})", S.Status, S.Note);
  return S.Status;
}

/// A JSON number; NaN and infinities (which JSON lacks) become null.
std::string num(double V) {
  return std::isfinite(V) ? fmt::format("{:.9g}", V) : std::string("null");
}
} // namespace

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
  Text += fmt::format("; warm start {:.6g}; {} in {:.3f} s, objective {:.6g}, "
                      "bound {:.6g}",
                      S.WarmStartObjective, outcome(S), S.Seconds, S.Objective,
                      S.BestBound);
  if (S.SolverPeakBytes)
    Text += "; solver peak memory " + formatBytes(S.SolverPeakBytes);
  return Text;
}

void tacclc::printSummary(const CompileFacts &F) {
  const ir::Sketch &S = F.Sketch;
  const ir::Program &P = F.Program;
  const ir::Schedule &Sch = F.Result.Schedule;
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
  auto Bandwidths = [&](double Us) {
    double AlgBw = double(S.SizeBytes) / (Us * 1e3); // GB/s
    return fmt::format("algbw {:.2f} GB/s, busbw {:.2f} GB/s", AlgBw,
                       AlgBw * ir::busBandwidthFactor(S.Coll.getKind(), N));
  };
  auto &OS = llvm::errs();
  OS << fmt::format("sketch      {} (topology {})\n", S.Name,
                    S.Topo.getName().str());
  OS << fmt::format("collective  {} on {} ranks, {} chunks ({} per rank), "
                    "size {}\n",
                    ir::collectiveName(S.Coll.getKind()).str(), N,
                    S.Coll.getNumChunks(), S.Coll.getChunksPerRank(),
                    ir::formatBytes(S.SizeBytes));
  for (const StageReport &R : F.Result.Stages) {
    std::string Line = fmt::format("{:.2f} s", R.Seconds);
    if (isSolverStage(R) && R.Solve.Status != "skipped")
      Line = fmt::format("{} in {} ({} variables, {} rows)", outcome(R.Solve),
                         Line, R.Solve.Variables, R.Solve.Constraints);
    OS << fmt::format("{:<11} {}; {}\n", R.Name, Line, R.Detail);
  }
  const double Predicted = predictCall(S, Sch).TotalUs;
  OS << fmt::format("predicted   {} ({}) by the schedule's model\n",
                    ir::formatUs(Predicted), Bandwidths(Predicted));
  if (F.SimUs)
    OS << fmt::format("simulated   {} ({}) by tacclc sim\n",
                      ir::formatUs(*F.SimUs), Bandwidths(*F.SimUs));
  OS << fmt::format("program     {} steps ({} relays fused{}), up to {} "
                    "threadblocks per rank, {} channel(s)\n",
                    Steps, Fused, F.FusionNote, MaxTbs, P.NumChannels);
  OS << fmt::format("verified    OK{}\n",
                    F.Output.empty() ? std::string() : " -> " + F.Output);
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
  return fmt::format(
      "{{\n  \"sketch\": {},\n  \"topology\": {},\n  \"collective\": {},\n"
      "  \"ranks\": {},\n  \"bytes\": {},\n  \"chunks\": {},\n"
      "  \"total_seconds\": {},\n  \"predicted_us\": {},\n"
      "  \"simulated_us\": {},\n  \"stages\": [\n{}\n  ]\n}}\n",
      jsonQuote(S.Name), jsonQuote(S.Topo.getName()),
      jsonQuote(ir::collectiveName(S.Coll.getKind())), S.Topo.getNumRanks(),
      S.SizeBytes, S.Coll.getNumChunks(), num(F.TotalSeconds),
      num(predictCall(S, F.Result.Schedule).TotalUs),
      F.SimUs ? num(*F.SimUs) : std::string("null"), Stages);
}
