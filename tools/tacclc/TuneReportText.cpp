//===- tools/tacclc/TuneReportText.cpp - Proving and reporting a tune -----===//
//
// The checks of a written algorithm folder (each file through `tacclc
// check`, the folder through libtaccl-nccl's own loader and selection, and
// the minBytes/maxBytes of every file against each runtime's selection
// rule at every size of the sweep and at both ends of every range), and
// report.json, report.md and the envelope charts (tools/tacclc/TuneOutcome.h).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Charts.h"
#include "tools/tacclc/TuneOutcome.h"

#include "format/Collective.h"
#include "format/Dialect.h"
#include "format/Loader.h"
#include "shim/AlgoRegistry.h"
#include "support/Sizes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <map>

using namespace tacclc;
namespace json = llvm::json;

namespace {
double busbw(const TunePlan &P, const TuneOutcome &O, std::uint64_t Bytes,
             double Us) {
  return double(Bytes) / (Us * 1e3) *
         tacclrt::busBandwidthFactor(O.Kind, P.Ranks);
}

/// The range of \p O that holds size \p I of the sweep.
const tune::ServedRange *rangeAt(const TuneOutcome &O, unsigned I,
                                 size_t *Index = nullptr) {
  for (size_t K = 0; K < O.Ranges.size(); ++K)
    if (O.Ranges[K].FirstSize <= I && I <= O.Ranges[K].LastSize) {
      if (Index)
        *Index = K;
      return &O.Ranges[K];
    }
  return nullptr;
}

std::string winnerName(const TuneOutcome &O, const tune::SizeWinner &W) {
  if (W.Program < 0)
    return "nothing";
  std::string N = O.Programs[W.Program].name();
  return W.Forward ? N + " (forwarded)" : N;
}

std::string usText(std::optional<double> T) {
  return T ? fmt::format("{:.2f}", *T) : "-";
}
} // namespace

std::optional<std::string>
tacclc::verifyFolder(const TunePlan &P,
                     const std::vector<TuneOutcome> &Outcomes,
                     const std::string &Dir, const std::string &Tacclc) {
  const auto D =
      P.Request.Legacy ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
  for (const TuneOutcome &O : Outcomes) {
    // Every file proved, and loaded as the runtime loads it.
    std::vector<std::pair<std::string, tacclrt::Algo>> Loaded;
    for (const std::string &Name : O.RangeFiles) {
      if (Name.empty())
        continue;
      std::string Path = Dir + "/" + Name;
      std::vector<llvm::StringRef> Args{Tacclc, "check", Path};
      if (P.Request.Legacy)
        Args.push_back("--dialect=msccl-legacy");
      std::string Log = Path + ".check.log";
      llvm::Optional<llvm::StringRef> Redirects[] = {
          llvm::StringRef(""), llvm::StringRef(Log), llvm::StringRef(Log)};
      int Rc =
          llvm::sys::ExecuteAndWait(Tacclc, Args, llvm::None, Redirects, 3600);
      auto Buf = llvm::MemoryBuffer::getFile(Log);
      std::string Text = Buf ? (*Buf)->getBuffer().trim().str() : "";
      llvm::sys::fs::remove(Log);
      if (Rc != 0)
        return fmt::format("{} fails tacclc check: {}", Name, Text);
      tacclrt::LoadOptions LO;
      LO.D = D;
      tacclrt::Report Rep;
      auto A = tacclrt::loadPlanFile(Path, LO, Rep);
      if (!A)
        return Name + " does not load";
      Loaded.push_back({Name, std::move(*A)});
    }
    // Each size of the sweep and both ends of each range: exactly the
    // chosen file selects it, or none where NCCL serves it.
    auto Expect = [&](std::uint64_t Bytes,
                      const std::string &Want) -> std::optional<std::string> {
      std::vector<std::string> Got;
      for (const auto &[Name, A] : Loaded)
        if (selectsSize(A, Bytes, D))
          Got.push_back(Name);
      if (Want.empty() ? Got.empty() : Got.size() == 1 && Got[0] == Want)
        return std::nullopt;
      return fmt::format("{} at {} B: the files select {}, not {}", O.Coll,
                         Bytes, Got.empty() ? "none" : llvm::join(Got, ", "),
                         Want.empty() ? "none (forwarded to NCCL)" : Want);
    };
    for (size_t K = 0; K < O.Ranges.size(); ++K)
      for (std::uint64_t B : {O.Ranges[K].MinBytes, O.Ranges[K].MaxBytes})
        if (auto Why = Expect(B, O.RangeFiles[K]))
          return Why;
    for (unsigned I = 0; I < P.Request.Sizes.size(); ++I) {
      size_t K = 0;
      if (rangeAt(O, I, &K))
        if (auto Why = Expect(P.Request.Sizes[I], O.RangeFiles[K]))
          return Why;
    }
  }
  if (P.Request.Legacy)
    return std::nullopt;
  // libtaccl-nccl's own loader and selection, on float32 sum calls.
  tacclrt::shim::AlgoRegistry Reg;
  Reg.loadDirectory(Dir);
  Reg.finish();
  if (!Reg.failures().empty())
    return fmt::format("libtaccl-nccl rejects {}: {}",
                       Reg.failures().front().Path, Reg.failures().front().Why);
  for (const TuneOutcome &O : Outcomes)
    for (unsigned I = 0; I < P.Request.Sizes.size(); ++I) {
      size_t K = 0;
      if (!rangeAt(O, I, &K))
        continue;
      const std::uint64_t Bytes = P.Request.Sizes[I];
      const std::uint64_t Unit = 4 * tacclrt::sizeMultiplier(O.Kind, P.Ranks);
      if (Bytes % Unit)
        continue;
      tacclrt::shim::CallShape C;
      C.Coll = O.Kind;
      C.NRanks = P.Ranks;
      C.Count = Bytes / Unit;
      C.Type = tacclrt::DataType::Float32;
      C.Op = tacclrt::ReduceOp::Sum;
      const tacclrt::shim::LoadedAlgo *L = Reg.select(C);
      std::string Got =
          L ? llvm::sys::path::filename(L->Path).str() : std::string();
      if (Got != O.RangeFiles[K])
        return fmt::format("{} at {} B: libtaccl-nccl would run {}, not {}",
                           O.Coll, Bytes, Got.empty() ? "NCCL" : Got,
                           O.RangeFiles[K].empty() ? "NCCL" : O.RangeFiles[K]);
    }
  return std::nullopt;
}

std::string tacclc::reportJson(const TunePlan &P,
                               const std::vector<TuneOutcome> &Outcomes) {
  json::Array Colls;
  for (const TuneOutcome &O : Outcomes) {
    json::Array Files, Sizes, Jobs;
    for (size_t K = 0; K < O.Ranges.size(); ++K) {
      const tune::ServedRange &R = O.Ranges[K];
      json::Object F{{"min_bytes", int64_t(R.MinBytes)},
                     {"max_bytes", int64_t(R.MaxBytes)}};
      if (R.Program >= 0) {
        const TuneEntry &E = O.Programs[R.Program];
        F["file"] = O.RangeFiles[K];
        F["program"] = E.Job->Job.Label;
        F["family"] = E.Job->Job.Family;
        F["protocol"] = E.Prog->Protocol;
      } else {
        F["file"] = nullptr;
        F["forwarded"] = R.Forward;
      }
      Files.push_back(std::move(F));
    }
    for (unsigned I = 0; I < O.Winners.size(); ++I) {
      const tune::SizeWinner &W = O.Winners[I];
      json::Object S{{"bytes", int64_t(W.Bytes)},
                     {"winner", winnerName(O, W)},
                     {"forwarded", W.Forward}};
      if (W.Program >= 0) {
        S["family"] = O.Programs[W.Program].Job->Job.Family;
        S["time_us"] = W.TimeUs;
        S["busbw_GBps"] = busbw(P, O, W.Bytes, W.TimeUs);
        if (O.BoundUs[I])
          S["share_of_bound"] = *O.BoundUs[I] / W.TimeUs;
      }
      if (O.BoundUs[I])
        S["bound_us"] = *O.BoundUs[I];
      // Each family's fastest program at this size, to compare against.
      std::map<std::string, double> Best;
      for (const TuneEntry &E : O.Programs)
        if (auto T = timeOf(E, I)) {
          auto [It, New] = Best.try_emplace(E.Job->Job.Family, *T);
          if (!New && *T < It->second)
            It->second = *T;
        }
      json::Object ByFamily;
      for (const auto &[Family, T] : Best)
        ByFamily[Family] = T;
      S["by_family_us"] = std::move(ByFamily);
      if (int B = O.BestNccl[I]; B >= 0) {
        double T = *timeOf(O.Programs[B], I);
        S["best_nccl"] = O.Programs[B].Job->Job.Label;
        S["best_nccl_us"] = T;
        if (W.Program >= 0)
          S["speedup_over_nccl"] = T / W.TimeUs;
      }
      Sizes.push_back(std::move(S));
    }
    for (const PlannedJob &J : P.Jobs) {
      if (J.Job.Collective != O.Coll)
        continue;
      json::Object Jo{
          {"label", J.Job.Label},
          {"family", J.Job.Family},
          {"kind", J.Job.What == TuneJob::Sketch ? "sketch" : "nccl"},
          {"key", J.Key}};
      if (!J.Job.Band.empty())
        Jo["band"] = J.Job.Band;
      if (J.Result) {
        Jo["status"] = J.Result->Status;
        Jo["seconds"] = J.Result->Seconds;
        if (!J.Result->Message.empty())
          Jo["message"] = J.Result->Message;
      } else {
        Jo["status"] = "not run";
        Jo["message"] = J.Missing;
      }
      Jobs.push_back(std::move(Jo));
    }
    Colls.push_back(json::Object{{"collective", O.Coll},
                                 {"files", std::move(Files)},
                                 {"sizes", std::move(Sizes)},
                                 {"jobs", std::move(Jobs)}});
  }
  json::Object Root{
      {"topology", P.Reference},
      {"ranks", int64_t(P.Ranks)},
      {"engine", P.Request.Engine},
      {"dialect", P.Request.Legacy ? "msccl-legacy" : "msccl-executor"},
      {"collectives", std::move(Colls)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", json::Value(std::move(Root))) << "\n";
  return OS.str();
}

std::string tacclc::reportMarkdown(const TunePlan &P,
                                   const std::vector<TuneOutcome> &Outcomes) {
  std::string S = fmt::format(
      "# tacclc tune: {} ({} GPUs)\n\nTimes from the {} simulation engine; "
      "bound from `tacclc bounds`; NCCL's algorithms (ring, tree, direct, "
      "hierarchical under Simple, LL128 and LL) written by `tacclc "
      "baseline` and timed the same way. A size NCCL wins gets no file: "
      "libtaccl-nccl forwards it.\n",
      P.Reference, P.Ranks, P.Request.Engine);
  for (const TuneOutcome &O : Outcomes) {
    S += fmt::format("\n## {}\n\n| size | winner | time (us) | busbw (GB/s) | "
                     "share of bound | best NCCL | NCCL (us) | speed-up |\n"
                     "|---|---|---:|---:|---:|---|---:|---:|\n",
                     O.Coll);
    for (unsigned I = 0; I < O.Winners.size(); ++I) {
      const tune::SizeWinner &W = O.Winners[I];
      int B = O.BestNccl[I];
      std::optional<double> Nccl =
          B >= 0 ? timeOf(O.Programs[B], I) : std::nullopt;
      std::string Share =
          W.Program >= 0 && O.BoundUs[I]
              ? fmt::format("{:.0f}%", 100 * *O.BoundUs[I] / W.TimeUs)
              : "-";
      S += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
          formatByteSize(W.Bytes), winnerName(O, W),
          W.Program >= 0 ? usText(W.TimeUs) : "-",
          W.Program >= 0 ? fmt::format("{:.2f}", busbw(P, O, W.Bytes, W.TimeUs))
                         : "-",
          Share, B >= 0 ? O.Programs[B].Job->Job.Label : "-", usText(Nccl),
          Nccl && W.Program >= 0 ? fmt::format("{:.2f}x", *Nccl / W.TimeUs)
                                 : "-");
    }
    S += "\nFiles:\n\n";
    for (size_t K = 0; K < O.Ranges.size(); ++K) {
      const tune::ServedRange &R = O.Ranges[K];
      std::string What =
          R.Program >= 0 ? fmt::format("`{}` ({})", O.RangeFiles[K],
                                       O.Programs[R.Program].Job->Job.Family)
          : R.Forward    ? "NCCL (forwarded, no file)"
                         : "nothing";
      S += fmt::format("- {} to {}: {}\n", formatByteSize(R.MinBytes),
                       formatByteSize(R.MaxBytes), What);
    }
    std::string Failed;
    for (const PlannedJob &J : P.Jobs)
      if (J.Job.Collective == O.Coll && (!J.Result || J.Result->Status != "ok"))
        Failed += fmt::format(
            "- {} ({}): {}\n", J.Job.Label, J.Job.Family,
            J.Result ? J.Result->Status + ": " + J.Result->Message : J.Missing);
    if (!Failed.empty())
      S +=
          "\nDid not compile (or not applicable to this machine):\n\n" + Failed;
  }
  return S;
}

std::string tacclc::envelopeChart(const TunePlan &P, const TuneOutcome &O) {
  std::vector<ChartSeries> Series;
  ChartSeries Env{"tune (envelope)", {}, false}, Bound{"bound", {}, true};
  for (unsigned I = 0; I < O.Winners.size(); ++I) {
    const tune::SizeWinner &W = O.Winners[I];
    double Bytes = double(W.Bytes);
    if (W.Program >= 0)
      Env.Points.push_back({Bytes, Bytes / (W.TimeUs * 1e3)});
    if (O.BoundUs[I])
      Bound.Points.push_back({Bytes, Bytes / (*O.BoundUs[I] * 1e3)});
  }
  Series.push_back(std::move(Env));
  for (const char *Algo : {"ring", "tree"}) {
    auto It = O.Nccl.find(Algo);
    if (It == O.Nccl.end())
      continue;
    ChartSeries S{std::string("NCCL ") + Algo, {}, false};
    for (unsigned I = 0; I < It->second.size(); ++I)
      if (It->second[I])
        S.Points.push_back(
            {double(P.Request.Sizes[I]),
             double(P.Request.Sizes[I]) / (*It->second[I] * 1e3)});
    Series.push_back(std::move(S));
  }
  Series.push_back(std::move(Bound));
  return bandwidthChart(fmt::format("{} on {} ({} engine)", O.Coll, P.Reference,
                                    P.Request.Engine),
                        Series);
}

void tacclc::printSummary(const TunePlan &P,
                          const std::vector<TuneOutcome> &Outcomes,
                          const std::string &OutDir, double Seconds) {
  for (const TuneOutcome &O : Outcomes) {
    unsigned Files = 0, Ours = 0;
    for (const std::string &F : O.RangeFiles)
      Files += !F.empty();
    for (const tune::SizeWinner &W : O.Winners)
      Ours += W.Program >= 0 && !W.Forward;
    llvm::outs() << fmt::format(
        "{}: {} file(s); tune's programs win {} of {} sizes, NCCL the "
        "rest\n",
        O.Coll, Files, Ours, O.Winners.size());
  }
  llvm::outs() << fmt::format("wrote {} (report.md, report.json) in {:.0f} "
                              "s\n",
                              OutDir, Seconds);
}
