//===- tools/taccl-bench/BenchReport.cpp - Sweep and table ----------------===//
//
// The nccl-tests sweep, the table and its closing lines, and the JSON object
// (BenchReport.h). Everything printed is a function of the measured rows, so
// the same rows print the same bytes.
//
//===----------------------------------------------------------------------===//
#include "tools/taccl-bench/BenchReport.h"

#include <fmt/format.h>

#include <set>

using namespace tacclbench;

std::optional<std::vector<std::uint64_t>>
tacclbench::ncclTestsSweep(std::uint64_t Min, std::uint64_t Max,
                           std::uint64_t Step, std::uint64_t Factor,
                           std::string &Why) {
  if (Min > Max) {
    Why = fmt::format("--minbytes {} is above --maxbytes {}", Min, Max);
    return std::nullopt;
  }
  if (Factor <= 1 && Step == 0) {
    Why = "--stepbytes 0 without a --stepfactor above 1 never advances";
    return std::nullopt;
  }
  std::vector<std::uint64_t> Sizes;
  for (std::uint64_t S = Min; S <= Max;) {
    if (Sizes.size() == MaxSweepSizes) {
      Why = fmt::format("the sweep has more than {} sizes; raise --stepbytes "
                        "or give a --stepfactor",
                        MaxSweepSizes);
      return std::nullopt;
    }
    Sizes.push_back(S);
    // Stop rather than wrap around past 2^64.
    if (Factor > 1 ? S > Max / Factor : Step > Max - S)
      break;
    S = Factor > 1 ? S * Factor : S + Step;
  }
  return Sizes;
}

Summary tacclbench::summarize(const std::vector<Row> &Rows, bool Check) {
  Summary Sum;
  unsigned Ran = 0;
  for (const Row &R : Rows)
    for (const Placement *P : {&R.OutOfPlace, &R.InPlace}) {
      if (P->S == Placement::State::Failed) {
        ++Sum.NotRun;
        Sum.Ok = false;
      }
      if (P->S != Placement::State::Ran)
        continue;
      ++Ran;
      Sum.AvgBusBw += P->BusBw;
      if (Check && P->Wrong != 0) {
        ++Sum.OutOfBounds;
        Sum.Ok = false;
      }
    }
  if (Ran)
    Sum.AvgBusBw /= Ran;
  return Sum;
}

namespace {

/// Column widths, as nccl-tests prints them.
constexpr unsigned SizeW = 12, CountW = 12, TypeW = 8, OpW = 6, RootW = 6,
                   TimeW = 7, BwW = 6, WrongW = 6;

/// \p V in at most \p Width characters: two decimals if they fit, else
/// one, else none, else in exponent notation.
std::string fitted(double V, unsigned Width) {
  for (int Decimals : {2, 1, 0}) {
    std::string S = fmt::format("{:>{}.{}f}", V, Width, Decimals);
    if (S.size() <= Width)
      return S;
  }
  return fmt::format("{:>{}.{}e}", V, Width, Width >= 7 ? 1 : 0);
}

/// Width of one placement's group of columns.
unsigned groupWidth(const Setup &S) {
  unsigned W = 2 + TimeW + 2 + BwW + 2 + BwW + 2 + WrongW;
  return S.Nccl ? W + 2 + TimeW + 2 + BwW : W;
}

/// \p Line without trailing blanks, and a newline.
void line(llvm::raw_ostream &OS, std::string Line) {
  Line.erase(Line.find_last_not_of(' ') + 1);
  OS << Line << "\n";
}

/// The names (or the units) of one placement's columns.
std::string groupHeader(const Setup &S, bool Units) {
  std::string Out = fmt::format(
      "  {:>{}}  {:>{}}  {:>{}}  {:>{}}", Units ? "(us)" : "time", TimeW,
      Units ? "(GB/s)" : "algbw", BwW, Units ? "(GB/s)" : "busbw", BwW,
      Units ? "" : "#wrong", WrongW);
  if (S.Nccl)
    Out += fmt::format("  {:>{}}  {:>{}}", Units ? "(us)" : "nccl", TimeW,
                       Units ? "(GB/s)" : "ncclbw", BwW);
  return Out;
}

/// One placement's cells.
std::string cells(const Setup &S, const Placement &P) {
  if (P.S != Placement::State::Ran) {
    const char *Why = P.S == Placement::State::Failed ? "-" : "N/A";
    std::string Out = fmt::format("  {:>{}}  {:>{}}  {:>{}}  {:>{}}", Why,
                                  TimeW, Why, BwW, Why, BwW, Why, WrongW);
    if (S.Nccl)
      Out += fmt::format("  {:>{}}  {:>{}}", Why, TimeW, Why, BwW);
    return Out;
  }
  std::string Out = fmt::format("  {}  {}  {}  {:>{}}", fitted(P.MeanUs, TimeW),
                                fitted(P.AlgBw, BwW), fitted(P.BusBw, BwW),
                                S.Check ? fmt::format("{:g}", double(P.Wrong))
                                        : std::string("N/A"),
                                WrongW);
  if (S.Nccl)
    Out += P.NcclUs ? fmt::format("  {}  {}", fitted(*P.NcclUs, TimeW),
                                  fitted(P.NcclBusBw, BwW))
                    : fmt::format("  {:>{}}  {:>{}}", "N/A", TimeW, "N/A", BwW);
  return Out;
}

} // namespace

void tacclbench::printHeader(llvm::raw_ostream &OS, const Setup &S) {
  line(OS, fmt::format("# taccl-bench {}: {} on {} ranks, dialect {}, "
                       "backend {}",
                       S.File, S.Collective, S.Ranks, S.Dialect, S.Backend));
  line(OS, fmt::format("# {} warmup iters: {} iters: {} validation: {}",
                       S.Sweep, S.Warmup, S.Iters, S.Check ? 1 : 0));
  line(OS, "#");
  const unsigned G = groupWidth(S);
  line(OS, fmt::format("# {:>10}  {:>{}}  {:>{}}  {:>{}}  {:>{}}{:^{}}{:^{}}",
                       "", "", CountW, "", TypeW, "", OpW, "", RootW,
                       "out-of-place", G, "in-place", G));
  line(OS, fmt::format("# {:>10}  {:>{}}  {:>{}}  {:>{}}  {:>{}}{}{}", "size",
                       "count", CountW, "type", TypeW, "redop", OpW, "root",
                       RootW, groupHeader(S, false), groupHeader(S, false)));
  line(OS, fmt::format("# {:>10}  {:>{}}  {:>{}}  {:>{}}  {:>{}}{}{}", "(B)",
                       "(elements)", CountW, "", TypeW, "", OpW, "", RootW,
                       groupHeader(S, true), groupHeader(S, true)));
}

void tacclbench::printRow(llvm::raw_ostream &OS, const Setup &S, const Row &R) {
  line(OS,
       fmt::format("{:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}{}{}", R.Bytes, SizeW,
                   R.Count, CountW, S.Type, TypeW, S.RedOp, OpW, S.Root, RootW,
                   cells(S, R.OutOfPlace), cells(S, R.InPlace)));
  if (R.OutOfPlace.S == Placement::State::Failed)
    line(OS, "# out-of-place not run: " + R.OutOfPlace.Error);
  if (R.InPlace.S == Placement::State::Failed)
    line(OS, "# in-place not run: " + R.InPlace.Error);
}

void tacclbench::printFooter(llvm::raw_ostream &OS, const Setup &S,
                             const std::vector<Row> &Rows, const Summary &Sum) {
  std::set<std::string> NcclWhy;
  for (const Row &R : Rows)
    for (const Placement *P : {&R.OutOfPlace, &R.InPlace})
      if (S.Nccl && P->S == Placement::State::Ran && !P->NcclUs)
        NcclWhy.insert(P->NcclWhy);
  for (const std::string &Why : NcclWhy)
    line(OS, "# nccl not run: " + Why);
  line(OS, fmt::format("# {:<20} : {} {}", "Out of bounds values",
                       Sum.OutOfBounds, Sum.OutOfBounds ? "FAILED" : "OK"));
  line(OS, fmt::format("# {:<20} : {:g}", "Avg bus bandwidth", Sum.AvgBusBw));
  if (Sum.NotRun)
    line(OS, fmt::format("# {:<20} : {} FAILED", "Calls not run", Sum.NotRun));
  line(OS, "#");
}

namespace {

std::string quote(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (static_cast<unsigned char>(C) < 0x20)
      Out += fmt::format("\\u{:04x}", C);
    else
      Out += C;
  }
  return Out + "\"";
}

/// One placement as JSON: null where the file does not serve it.
std::string placementJson(const Setup &S, const Placement &P) {
  if (P.S == Placement::State::NotDeclared)
    return "null";
  if (P.S == Placement::State::Failed)
    return "{\"error\": " + quote(P.Error) + "}";
  std::string Out = fmt::format(
      "{{\"time_us\": {:.3f}, \"algbw_GBps\": {:.6g}, \"busbw_GBps\": {:.6g}, "
      "\"wrong\": {}",
      P.MeanUs, P.AlgBw, P.BusBw,
      S.Check ? std::to_string(P.Wrong) : std::string("null"));
  if (S.Nccl)
    Out += P.NcclUs ? fmt::format(", \"nccl_time_us\": {:.3f}, "
                                  "\"nccl_busbw_GBps\": {:.6g}",
                                  *P.NcclUs, P.NcclBusBw)
                    : ", \"nccl_error\": " + quote(P.NcclWhy);
  return Out + "}";
}

} // namespace

void tacclbench::printJson(llvm::raw_ostream &OS, const Setup &S,
                           const std::vector<Row> &Rows, const Summary &Sum) {
  OS << "{\"file\": " << quote(S.File) << ", \"collective\": \"" << S.Collective
     << "\", \"ranks\": " << S.Ranks << ", \"backend\": \"" << S.Backend
     << "\", \"dialect\": \"" << S.Dialect << "\", \"dtype\": \"" << S.Type
     << "\", \"op\": \"" << S.RedOp << "\", \"root\": " << S.Root
     << ", \"check\": " << (S.Check ? "true" : "false")
     << ", \"warmup\": " << S.Warmup << ", \"iters\": " << S.Iters
     << ", \"rows\": [";
  for (std::size_t I = 0; I < Rows.size(); ++I) {
    const Row &R = Rows[I];
    OS << (I ? ", " : "")
       << fmt::format("{{\"bytes\": {}, \"count\": {}, \"type\": \"{}\", "
                      "\"redop\": \"{}\", \"root\": {}, \"out_of_place\": {}, "
                      "\"in_place\": {}}}",
                      R.Bytes, R.Count, S.Type, S.RedOp, S.Root,
                      placementJson(S, R.OutOfPlace),
                      placementJson(S, R.InPlace));
  }
  OS << fmt::format("], \"out_of_bounds\": {}, \"avg_busbw_GBps\": {:.6g}, "
                    "\"not_run\": {}, \"ok\": {}}}\n",
                    Sum.OutOfBounds, Sum.AvgBusBw, Sum.NotRun,
                    Sum.Ok ? "true" : "false");
}
