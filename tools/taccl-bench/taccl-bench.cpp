//===- tools/taccl-bench/taccl-bench.cpp - Time a TACCL-EF file -----------===//
//
// taccl-bench ALGO.xml [--backend cpu|cuda|cuda-virtual|nccl] [--sizes 1KB:1GB]
//                      [--dtype T] [--op O] [--iters N] [--warmup N] [--check]
//                      [--inplace] [--nccl] [--json]
//
// The harness in the style of nccl-tests: for every size of the sweep it
// runs the algorithm warm-up + iters times on the backend, and prints the
// size it ran (the requested one rounded up to what the program divides),
// the element count, the mean time of the timed runs, algbw (size / time),
// busbw (algbw x nccl-tests' bus factor) and the number of wrong output
// elements, then a summary line. The CPU backend is the reference executor
// (exec/CpuExecutor.cpp): its times measure the host's threads, not a
// GPU. The cuda backends run the CUDA interpreter (exec/device/): every
// rank on one GPU (cuda-virtual) or ranks spread over the GPUs (cuda), and
// time the kernels. Both check every
// element of every run, so --check only documents the intent. Exit status: 0
// when every size ran and every element was right, 1 when the file or a run
// failed, 2 on bad usage.
//
//===----------------------------------------------------------------------===//
#include "exec/CpuExecutor.h"
#include "exec/device/CudaExecutor.h"
#include "format/Collective.h"
#include "format/Loader.h"
#include "support/Sizes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <numeric>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;

namespace {

cl::OptionCategory BenchCat("Benchmark options");
cl::opt<std::string> Input(cl::Positional, cl::Required, cl::desc("<algo.xml>"),
                           cl::cat(BenchCat));
cl::opt<std::string> Backend("backend",
                             cl::desc("Where to run: cpu (the reference "
                                      "executor), cuda (ranks spread over "
                                      "the GPUs), cuda-virtual (every rank "
                                      "on one GPU) or nccl (a process per "
                                      "rank and GPU, through NCCL); the GPU "
                                      "ones need a CUDA build"),
                             cl::init("cpu"), cl::cat(BenchCat));
cl::opt<std::string> Sizes("sizes",
                           cl::desc("LO:HI (powers of two) or a list, e.g. "
                                    "1KB:1MB or 4096,1MB (default 1KB:1MB)"),
                           cl::init("1KB:1MB"), cl::cat(BenchCat));
cl::opt<std::string> Type("dtype",
                          cl::desc("Element type: int8, uint8, int32, uint32, "
                                   "int64, uint64, float16, bfloat16, float32 "
                                   "(default), float64"),
                          cl::init("float32"), cl::cat(BenchCat));
cl::opt<std::string> Op("op",
                        cl::desc("Reduction: sum (default), prod, min, max"),
                        cl::init("sum"), cl::cat(BenchCat));
cl::opt<unsigned> Iters("iters", cl::desc("Timed runs per size (default 5)"),
                        cl::init(5), cl::cat(BenchCat));
cl::opt<unsigned> Warmup("warmup",
                         cl::desc("Untimed runs per size first (default 1)"),
                         cl::init(1), cl::cat(BenchCat));
cl::opt<bool> Check("check",
                    cl::desc("Check every output element (the CPU backend "
                             "always does)"),
                    cl::cat(BenchCat));
cl::opt<bool> InPlace("inplace", cl::desc("Run in-place calls"),
                      cl::cat(BenchCat));
cl::opt<bool> Nccl("nccl",
                   cl::desc("Also time NCCL's own implementation of the "
                            "collective (needs a GPU per rank)"),
                   cl::cat(BenchCat));
cl::opt<bool> Json("json", cl::desc("Print JSON instead of a table"),
                   cl::cat(BenchCat));
cl::opt<bool> Legacy("legacy",
                     cl::desc("Read the file as the original msccl runtime "
                              "does"),
                     cl::cat(BenchCat));

constexpr int ExitOk = 0, ExitFailed = 1, ExitUsage = 2;

/// One row of the table.
struct Row {
  std::uint64_t Bytes = 0, Count = 0, Wrong = 0;
  double MeanUs = 0, AlgBw = 0, BusBw = 0;
  std::string Error; ///< Why the size did not run; empty if it did.
  /// NCCL's time and busbw for the same call (--nccl), else why not.
  std::optional<double> NcclUs;
  double NcclBusBw = 0;
  std::string NcclWhy;
};

bool isGpuBackend() { return Backend != "cpu"; }

/// \p Bytes rounded up to a call the program serves: a whole number of
/// elements per chunk of the loop and per rank.
std::uint64_t callBytes(const tacclrt::Algo &A, std::uint64_t Bytes,
                        std::size_t TypeSize) {
  std::uint64_t Unit =
      std::lcm<std::uint64_t>(A.NChunksPerLoop, A.NGpus) * TypeSize;
  return (Bytes + Unit - 1) / Unit * Unit;
}

Row measure(const tacclrt::Algo &A, std::uint64_t Requested,
            tacclrt::RunOptions RO) {
  Row R;
  R.Bytes = RO.Bytes = callBytes(A, Requested, tacclrt::sizeOf(RO.Type));
  R.Count = R.Bytes / tacclrt::sizeOf(RO.Type) /
            tacclrt::sizeMultiplier(A.Coll, unsigned(A.NGpus));
  const double BusFactor =
      tacclrt::busBandwidthFactor(A.Coll, unsigned(A.NGpus));
  tacclrt::RepeatOptions Rep;
  Rep.Warmup = Warmup;
  Rep.Iters = Iters;
  Rep.NcclBaseline = Nccl;
  // Not a wrong result but a refusal, a deadlock or an access error.
  auto Refused = [&](const tacclrt::RunResult &Run) {
    if (Run.Ok || Run.WrongElements != 0)
      return false;
    R.Error = Run.Issues.empty() ? Run.Summary : Run.Issues.begin()->Message;
    return true;
  };
  double Total = 0;
  if (Backend == "nccl") {
    // The rank processes repeat the call themselves (and time NCCL).
    tacclrt::RepeatedRun Run = tacclrt::runOnNcclRanks(A, RO, Rep, Input);
    R.Wrong = Run.Run.WrongElements;
    if (Refused(Run.Run))
      return R;
    Total = Run.Run.Seconds * Iters;
    if (Run.NcclSeconds)
      R.NcclUs = *Run.NcclSeconds * 1e6;
    R.NcclWhy = Run.NcclWhy;
  } else {
    for (unsigned K = 0; K < Warmup + Iters; ++K) {
      tacclrt::RunResult Run =
          Backend == "cpu"
              ? tacclrt::runOnCpu(A, RO, Input)
              : tacclrt::runOnCuda(A, RO,
                                   Backend == "cuda"
                                       ? tacclrt::CudaMode::SpreadRanks
                                       : tacclrt::CudaMode::VirtualRanks,
                                   Input);
      R.Wrong = std::max(R.Wrong, Run.WrongElements);
      if (Refused(Run))
        return R;
      if (K >= Warmup)
        Total += Run.Seconds;
    }
    if (Nccl) {
      std::optional<double> S =
          tacclrt::ncclBaselineSeconds(A, RO, Rep, R.NcclWhy);
      if (S)
        R.NcclUs = *S * 1e6;
    }
  }
  R.MeanUs = Total / Iters * 1e6;
  R.AlgBw = R.MeanUs > 0 ? double(R.Bytes) / (R.MeanUs * 1e3) : 0;
  R.BusBw = R.AlgBw * BusFactor;
  if (R.NcclUs && *R.NcclUs > 0)
    R.NcclBusBw = double(R.Bytes) / (*R.NcclUs * 1e3) * BusFactor;
  return R;
}

std::string quote(const std::string &S);

/// The NCCL fields of a JSON row (--nccl), with a leading comma.
std::string ncclJson(const Row &R) {
  if (!Nccl)
    return "";
  if (!R.NcclUs)
    return ", \"nccl_error\": " + quote(R.NcclWhy);
  return fmt::format(", \"nccl_time_us\": {:.3f}, \"nccl_busbw_GBps\": {:.6g}",
                     *R.NcclUs, R.NcclBusBw);
}

/// The NCCL columns of a table row (--nccl).
std::string ncclColumns(const Row &R) {
  if (!Nccl)
    return "";
  if (!R.NcclUs)
    return "  nccl: " + R.NcclWhy;
  return fmt::format(" {:>12.2f} {:>12.4f}", *R.NcclUs, R.NcclBusBw);
}

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

} // namespace

int main(int Argc, char **Argv) {
  cl::HideUnrelatedOptions(BenchCat);
  cl::ParseCommandLineOptions(
      Argc, Argv,
      "taccl-bench: run a TACCL-EF (MSCCL XML) algorithm over a sweep of "
      "sizes and report time, algbw, busbw and wrong elements\n");
  if (Backend != "cpu" && Backend != "cuda" && Backend != "cuda-virtual" &&
      Backend != "nccl") {
    errs() << "taccl-bench: error: unknown backend '" << Backend
           << "' (cpu; cuda: ranks spread over the GPUs; cuda-virtual: every "
              "rank on one GPU; nccl: a process per rank and GPU)\n";
    return ExitUsage;
  }
  if ((isGpuBackend() || Nccl) && !tacclrt::cudaInterpreterBuilt()) {
    errs() << "taccl-bench: error: "
           << (Nccl ? std::string("--nccl") : "backend '" + Backend + "'")
           << " is not available: this build has no CUDA interpreter\n";
    return ExitUsage;
  }
  auto T = tacclrt::parseDataType(Type);
  auto O = tacclrt::parseReduceOp(Op);
  auto List = tacclc::parseSizeList(Sizes);
  if (!T || !O || !List || Iters == 0) {
    errs() << "taccl-bench: error: "
           << (!T      ? "unknown --dtype '" + Type + "'"
               : !O    ? "unknown --op '" + Op + "' (sum, prod, min, max)"
               : !List ? "bad --sizes '" + Sizes + "'"
                       : std::string("--iters must be at least 1"))
           << "\n";
    return ExitUsage;
  }
  tacclrt::LoadOptions LO;
  LO.D = Legacy ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
  tacclrt::Report Rep;
  auto A = tacclrt::loadPlanFile(Input, LO, Rep);
  for (const tacclrt::Issue &I : Rep)
    errs() << tacclrt::format(I) << "\n";
  if (!A || Rep.hasErrors())
    return ExitFailed;

  tacclrt::RunOptions RO;
  RO.Type = *T;
  RO.Op = *O;
  RO.InPlace = InPlace || (!A->OutOfPlace && A->InPlace);
  RO.LegacySizeRange = Legacy;
  std::vector<Row> Rows;
  for (std::uint64_t Bytes : *List)
    Rows.push_back(measure(*A, Bytes, RO));

  bool Ok = true;
  std::uint64_t Wrong = 0;
  for (const Row &R : Rows) {
    Ok = Ok && R.Error.empty() && R.Wrong == 0;
    Wrong += R.Wrong;
  }
  const std::string Coll(tacclrt::nameOf(A->Coll));
  if (Json) {
    outs() << "{\"file\": " << quote(Input) << ", \"collective\": \"" << Coll
           << "\", \"ranks\": " << A->NGpus << ", \"backend\": \"" << Backend
           << "\", \"dtype\": \"" << tacclrt::nameOf(*T) << "\", \"op\": \""
           << tacclrt::nameOf(*O)
           << "\", \"inplace\": " << (RO.InPlace ? "true" : "false")
           << ", \"rows\": [";
    for (size_t I = 0; I < Rows.size(); ++I) {
      const Row &R = Rows[I];
      outs() << (I ? ", " : "")
             << fmt::format("{{\"bytes\": {}, \"count\": {}, ", R.Bytes,
                            R.Count);
      if (!R.Error.empty())
        outs() << "\"error\": " << quote(R.Error) << "}";
      else
        outs() << fmt::format("\"time_us\": {:.3f}, \"algbw_GBps\": {:.6g}, "
                              "\"busbw_GBps\": {:.6g}, \"wrong\": {}{}}}",
                              R.MeanUs, R.AlgBw, R.BusBw, R.Wrong, ncclJson(R));
    }
    outs() << "], \"ok\": " << (Ok ? "true" : "false") << "}\n";
    return Ok ? ExitOk : ExitFailed;
  }
  outs() << fmt::format(
      "# taccl-bench {}: {} on {} ranks, backend {}, {} {}, "
      "{}, {} timed run(s) after {} warm-up\n",
      Input, Coll, A->NGpus, Backend, tacclrt::nameOf(*T), tacclrt::nameOf(*O),
      RO.InPlace ? "in-place" : "out-of-place", Iters, Warmup);
  outs() << fmt::format(
      "{:>14} {:>12} {:>12} {:>12} {:>12} {:>8}{}\n", "size (B)", "count",
      "time (us)", "algbw (GB/s)", "busbw (GB/s)", "#wrong",
      Nccl ? fmt::format(" {:>12} {:>12}", "nccl (us)", "nccl busbw")
           : std::string());
  for (const Row &R : Rows) {
    if (!R.Error.empty()) {
      outs() << fmt::format("{:>14} {:>12}  not run: {}\n", R.Bytes, R.Count,
                            R.Error);
      continue;
    }
    outs() << fmt::format(
        "{:>14} {:>12} {:>12.2f} {:>12.4f} {:>12.4f} {:>8}{}\n", R.Bytes,
        R.Count, R.MeanUs, R.AlgBw, R.BusBw, R.Wrong, ncclColumns(R));
  }
  outs() << fmt::format("# {}: {} size(s), {} wrong element(s)\n",
                        Ok ? "ok" : "FAILED", Rows.size(), Wrong);
  return Ok ? ExitOk : ExitFailed;
}
