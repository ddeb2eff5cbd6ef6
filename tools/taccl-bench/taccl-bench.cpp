//===- tools/taccl-bench/taccl-bench.cpp - Time a TACCL-EF file -----------===//
//
// taccl-bench ALGO.xml [--backend cpu|cuda|cuda-virtual|nccl]
//                      [-b MIN] [-e MAX] [-i STEP | -f FACTOR] [--sizes S]
//                      [-d TYPE] [-o OP] [-n ITERS] [-w WARMUP] [-c 0|1]
//                      [--dialect=msccl-executor|msccl-legacy] [--nccl]
//                      [--json]
//
// The harness in the style of nccl-tests: the same sweep flags and
// defaults (-b/-e 32M, additive -i 1M steps unless -f gives a factor,
// -n 20 timed runs after -w 1), and for every size one row with the call's
// size, NCCL's count, the type, the reduction and the root, then time,
// algbw, busbw and the number of wrong elements of the out-of-place call
// and of the in-place call (N/A where the file does not serve that call),
// and nccl-tests' closing lines. Sizes use the project's grammar
// (support/Sizes.h): a lone K, M or G is binary as in nccl-tests, KB is
// 1000 bytes. The CPU backend is the reference executor
// (exec/CpuExecutor.cpp): its times measure the host's threads, not a
// GPU. The cuda backends run the CUDA interpreter (exec/device/): every
// rank on one GPU (cuda-virtual) or ranks spread over the GPUs (cuda), and
// time the kernels. With -c 1 (the default) every run is compared element
// by element with the collective's reference; -c 0 skips the comparison.
// Exit status: 0 when every call ran and (checked) every element was
// right, 1 when the file or a call failed, 2 on bad usage.
//
//===----------------------------------------------------------------------===//
#include "tools/taccl-bench/BenchReport.h"

#include "exec/CpuExecutor.h"
#include "exec/device/CudaExecutor.h"
#include "format/Collective.h"
#include "format/Dialect.h"
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
using namespace tacclbench;
using tacclc::ByteSize;

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
cl::opt<ByteSize> MinBytes("minbytes",
                           cl::desc("First size of the sweep (default 32M, "
                                    "as nccl-tests)"),
                           cl::init(ByteSize{32u << 20}), cl::cat(BenchCat));
cl::alias MinBytesB("b", cl::desc("Alias for --minbytes"),
                    cl::aliasopt(MinBytes), cl::NotHidden, cl::cat(BenchCat));
cl::opt<ByteSize> MaxBytes("maxbytes",
                           cl::desc("Last size of the sweep, inclusive "
                                    "(default 32M, as nccl-tests)"),
                           cl::init(ByteSize{32u << 20}), cl::cat(BenchCat));
cl::alias MaxBytesE("e", cl::desc("Alias for --maxbytes"),
                    cl::aliasopt(MaxBytes), cl::NotHidden, cl::cat(BenchCat));
cl::opt<ByteSize> StepBytes("stepbytes",
                            cl::desc("Add this much from one size to the "
                                     "next (default 1M; ignored when "
                                     "--stepfactor is above 1)"),
                            cl::init(ByteSize{1u << 20}), cl::cat(BenchCat));
cl::alias StepBytesI("i", cl::desc("Alias for --stepbytes"),
                     cl::aliasopt(StepBytes), cl::NotHidden, cl::cat(BenchCat));
cl::opt<unsigned> StepFactor("stepfactor",
                             cl::desc("Multiply by this from one size to "
                                      "the next (default 1: off, "
                                      "--stepbytes steps)"),
                             cl::init(1), cl::cat(BenchCat));
cl::alias StepFactorF("f", cl::desc("Alias for --stepfactor"),
                      cl::aliasopt(StepFactor), cl::NotHidden,
                      cl::cat(BenchCat));
cl::opt<std::string> Sizes("sizes",
                           cl::desc("Instead of -b/-e/-i/-f: LO:HI (doubling) "
                                    "or a list, e.g. 1KB:1MB or 4096,1MB"),
                           cl::cat(BenchCat));
cl::opt<std::string> Type("dtype",
                          cl::desc("Element type: int8, uint8, int32, uint32, "
                                   "int64, uint64, float16 (half), bfloat16, "
                                   "float32 (float, the default), float64 "
                                   "(double)"),
                          cl::init("float32"), cl::cat(BenchCat));
cl::alias TypeD("d", cl::desc("Alias for --dtype"), cl::aliasopt(Type),
                cl::NotHidden, cl::cat(BenchCat));
cl::alias TypeLong("datatype", cl::desc("Alias for --dtype"),
                   cl::aliasopt(Type), cl::NotHidden, cl::cat(BenchCat));
cl::opt<std::string> Op("op",
                        cl::desc("Reduction: sum (default), prod, min, max"),
                        cl::init("sum"), cl::cat(BenchCat));
cl::alias OpO("o", cl::desc("Alias for --op"), cl::aliasopt(Op), cl::NotHidden,
              cl::cat(BenchCat));
cl::opt<unsigned> Iters("iters", cl::desc("Timed runs per call (default 20)"),
                        cl::init(20), cl::cat(BenchCat));
cl::alias ItersN("n", cl::desc("Alias for --iters"), cl::aliasopt(Iters),
                 cl::NotHidden, cl::cat(BenchCat));
cl::opt<unsigned> Warmup("warmup_iters",
                         cl::desc("Untimed runs per call first (default 1)"),
                         cl::init(1), cl::cat(BenchCat));
cl::alias WarmupW("w", cl::desc("Alias for --warmup_iters"),
                  cl::aliasopt(Warmup), cl::NotHidden, cl::cat(BenchCat));
cl::alias WarmupOld("warmup", cl::desc("Alias for --warmup_iters"),
                    cl::aliasopt(Warmup), cl::cat(BenchCat));
cl::opt<unsigned> Check("check",
                        cl::desc("1 (default): compare every output element "
                                 "of every run with the reference; 0: do "
                                 "not (#wrong is N/A)"),
                        cl::init(1), cl::cat(BenchCat));
cl::alias CheckC("c", cl::desc("Alias for --check"), cl::aliasopt(Check),
                 cl::NotHidden, cl::cat(BenchCat));
cl::opt<tacclrt::Dialect> TargetDialect(
    "dialect", cl::desc("Read the file as this MSCCL runtime does"),
    cl::values(clEnumValN(tacclrt::Dialect::Executor, "msccl-executor",
                          "Azure msccl-executor-nccl / RCCL (default)"),
               clEnumValN(tacclrt::Dialect::Legacy, "msccl-legacy",
                          "the original microsoft/msccl runtime")),
    cl::init(tacclrt::Dialect::Executor), cl::cat(BenchCat));
cl::opt<bool> Nccl("nccl",
                   cl::desc("Also time NCCL's own implementation of the "
                            "collective (needs a GPU per rank)"),
                   cl::cat(BenchCat));
cl::opt<bool> Json("json", cl::desc("Print JSON instead of a table"),
                   cl::cat(BenchCat));
// Deprecated spellings: they still work, with a warning.
cl::opt<bool> Legacy("legacy", cl::desc("Deprecated: --dialect=msccl-legacy"),
                     cl::Hidden, cl::cat(BenchCat));
cl::opt<bool> InPlace("inplace",
                      cl::desc("Deprecated and ignored: every row has an "
                               "in-place column"),
                      cl::Hidden, cl::cat(BenchCat));

constexpr int ExitOk = 0, ExitFailed = 1, ExitUsage = 2;

bool isGpuBackend() { return Backend != "cpu"; }

/// \p Bytes rounded up to a call the program serves: a whole number of
/// elements per chunk of the loop and per rank.
std::uint64_t callBytes(const tacclrt::Algo &A, std::uint64_t Bytes,
                        std::size_t TypeSize) {
  std::uint64_t Unit =
      std::lcm<std::uint64_t>(A.NChunksPerLoop, A.NGpus) * TypeSize;
  return (Bytes + Unit - 1) / Unit * Unit;
}

/// Runs one call (\p RO, in place or not) warm-up + iters times.
Placement runPlacement(const tacclrt::Algo &A, const tacclrt::RunOptions &RO,
                       double BusFactor) {
  Placement P;
  tacclrt::RepeatOptions Rep;
  Rep.Warmup = Warmup;
  Rep.Iters = Iters;
  Rep.NcclBaseline = Nccl;
  // Not a wrong result but a refusal, a deadlock or an access error.
  auto Refused = [&](const tacclrt::RunResult &Run) {
    if (Run.Ok || Run.WrongElements != 0)
      return false;
    P.S = Placement::State::Failed;
    P.Error = Run.Issues.empty() ? Run.Summary : Run.Issues.begin()->Message;
    return true;
  };
  double Total = 0;
  if (Backend == "nccl") {
    // The rank processes repeat the call themselves (and time NCCL).
    tacclrt::RepeatedRun Run = tacclrt::runOnNcclRanks(A, RO, Rep, Input);
    P.Wrong = Run.Run.WrongElements;
    if (Refused(Run.Run))
      return P;
    Total = Run.Run.Seconds * Iters;
    if (Run.NcclSeconds)
      P.NcclUs = *Run.NcclSeconds * 1e6;
    P.NcclWhy = Run.NcclWhy;
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
      P.Wrong = std::max(P.Wrong, Run.WrongElements);
      if (Refused(Run))
        return P;
      if (K >= Warmup)
        Total += Run.Seconds;
    }
    if (Nccl) {
      std::optional<double> S =
          tacclrt::ncclBaselineSeconds(A, RO, Rep, P.NcclWhy);
      if (S)
        P.NcclUs = *S * 1e6;
    }
  }
  P.S = Placement::State::Ran;
  P.MeanUs = Total / Iters * 1e6;
  P.AlgBw = P.MeanUs > 0 ? double(RO.Bytes) / (P.MeanUs * 1e3) : 0;
  P.BusBw = P.AlgBw * BusFactor;
  if (P.NcclUs && *P.NcclUs > 0)
    P.NcclBusBw = double(RO.Bytes) / (*P.NcclUs * 1e3) * BusFactor;
  return P;
}

/// One size: the out-of-place call, then the in-place one, each where the
/// file serves it.
Row measure(const tacclrt::Algo &A, std::uint64_t Requested,
            tacclrt::RunOptions RO) {
  Row R;
  R.Bytes = RO.Bytes = callBytes(A, Requested, tacclrt::sizeOf(RO.Type));
  R.Count = R.Bytes / tacclrt::sizeOf(RO.Type) /
            tacclrt::sizeMultiplier(A.Coll, unsigned(A.NGpus));
  const double BusFactor =
      tacclrt::busBandwidthFactor(A.Coll, unsigned(A.NGpus));
  if (A.OutOfPlace) {
    RO.InPlace = false;
    R.OutOfPlace = runPlacement(A, RO, BusFactor);
  }
  if (A.InPlace) {
    RO.InPlace = true;
    R.InPlace = runPlacement(A, RO, BusFactor);
  }
  return R;
}

/// The sizes to run and how they were given, or a usage error on stderr.
std::optional<std::vector<std::uint64_t>> sweep(std::string &Described) {
  bool Stepped = MinBytes.getNumOccurrences() || MaxBytes.getNumOccurrences() ||
                 StepBytes.getNumOccurrences() ||
                 StepFactor.getNumOccurrences();
  std::string Why;
  if (Sizes.getNumOccurrences()) {
    if (Stepped) {
      errs() << "taccl-bench: error: give the sweep either as --sizes or as "
                "-b/-e/-i/-f, not both\n";
      return std::nullopt;
    }
    Described = "sizes " + Sizes;
    if (auto List = tacclc::parseSizeList(Sizes))
      return List;
    errs() << "taccl-bench: error: bad --sizes '" << Sizes << "': expected "
           << "LO:HI or a comma list of " << tacclc::SizeSyntax << "\n";
    return std::nullopt;
  }
  if (StepFactor > 1 && StepBytes.getNumOccurrences())
    errs() << "taccl-bench: warning: --stepbytes is ignored: --stepfactor "
           << StepFactor << " steps by a factor\n";
  Described = fmt::format("minBytes {} maxBytes {} step: {}({})",
                          std::uint64_t(MinBytes), std::uint64_t(MaxBytes),
                          StepFactor > 1 ? std::uint64_t(StepFactor)
                                         : std::uint64_t(StepBytes),
                          StepFactor > 1 ? "factor" : "bytes");
  auto List = ncclTestsSweep(MinBytes, MaxBytes, StepBytes, StepFactor, Why);
  if (!List)
    errs() << "taccl-bench: error: " << Why << "\n";
  return List;
}

/// The runtime the file is read as: --dialect, or the deprecated --legacy
/// (with a warning). Nothing, after an error, when the two disagree.
std::optional<tacclrt::Dialect> dialect() {
  if (!Legacy)
    return TargetDialect.getValue();
  if (TargetDialect.getNumOccurrences() &&
      TargetDialect != tacclrt::Dialect::Legacy) {
    errs() << "taccl-bench: error: --legacy (deprecated) contradicts "
              "--dialect=msccl-executor\n";
    return std::nullopt;
  }
  errs() << "taccl-bench: warning: --legacy is deprecated; use "
            "--dialect=msccl-legacy\n";
  return tacclrt::Dialect::Legacy;
}

/// Checks the options that the parser cannot; prints why not on stderr.
bool usageOk() {
  if (Backend != "cpu" && Backend != "cuda" && Backend != "cuda-virtual" &&
      Backend != "nccl") {
    errs() << "taccl-bench: error: unknown backend '" << Backend
           << "' (cpu; cuda: ranks spread over the GPUs; cuda-virtual: every "
              "rank on one GPU; nccl: a process per rank and GPU)\n";
    return false;
  }
  if ((isGpuBackend() || Nccl) && !tacclrt::cudaInterpreterBuilt()) {
    errs() << "taccl-bench: error: "
           << (Nccl ? std::string("--nccl") : "backend '" + Backend + "'")
           << " is not available: this build has no CUDA interpreter\n";
    return false;
  }
  if (Iters == 0) {
    errs() << "taccl-bench: error: --iters must be at least 1\n";
    return false;
  }
  if (InPlace)
    errs() << "taccl-bench: warning: --inplace is deprecated and ignored: "
              "every row has an out-of-place and an in-place column\n";
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  cl::HideUnrelatedOptions(BenchCat);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "taccl-bench: run a TACCL-EF (MSCCL XML) algorithm over a sweep of "
          "sizes, as nccl-tests does, and report time, algbw, busbw and wrong "
          "elements of its out-of-place and in-place calls\n\n"
          "  taccl-bench ALGO.xml -b 8 -e 128M -f 2    doubling, 8 B to 128 "
          "MiB\n"
          "  taccl-bench ALGO.xml -b 1M -e 8M -i 1M    1 MiB steps\n"
          "  taccl-bench ALGO.xml                      32 MiB only "
          "(nccl-tests' "
          "default)\n\n"
          "Sizes: " +
              std::string(tacclc::SizeSyntax) +
              ". Exit status: 0 every call ran and was right, 1 the file or "
              "a call failed, 2 bad usage.\n",
          &errs()))
    return ExitUsage;
  if (!usageOk())
    return ExitUsage;
  auto T = tacclrt::parseDataType(Type);
  auto O = tacclrt::parseReduceOp(Op);
  if (!T || !O) {
    errs() << "taccl-bench: error: "
           << (!T ? "unknown --dtype '" + Type + "'"
                  : "unknown --op '" + Op + "' (sum, prod, min, max)")
           << "\n";
    return ExitUsage;
  }
  std::string Described;
  auto List = sweep(Described);
  std::optional<tacclrt::Dialect> D = dialect();
  if (!List || !D)
    return ExitUsage;
  tacclrt::LoadOptions LO;
  LO.D = *D;
  tacclrt::Report Rep;
  auto A = tacclrt::loadPlanFile(Input, LO, Rep);
  for (const tacclrt::Issue &I : Rep)
    errs() << tacclrt::format(I) << "\n";
  if (!A || Rep.hasErrors())
    return ExitFailed;

  tacclrt::RunOptions RO;
  RO.Type = *T;
  RO.Op = *O;
  RO.LegacySizeRange = *D == tacclrt::Dialect::Legacy;
  RO.Verify = Check != 0;
  Setup S;
  S.File = Input;
  S.Collective = std::string(tacclrt::nameOf(A->Coll));
  S.Backend = Backend;
  S.Dialect =
      *D == tacclrt::Dialect::Legacy ? "msccl-legacy" : "msccl-executor";
  S.Type = std::string(tacclrt::nameOf(*T));
  S.RedOp =
      tacclrt::isReduction(A->Coll) ? std::string(tacclrt::nameOf(*O)) : "none";
  S.Sweep = Described;
  S.Ranks = unsigned(A->NGpus);
  S.Root = tacclrt::isRooted(A->Coll) ? std::max(A->Root, 0) : -1;
  S.Check = Check != 0;
  S.Nccl = Nccl;
  S.Warmup = Warmup;
  S.Iters = Iters;
  if (!Json)
    printHeader(outs(), S);
  std::vector<Row> Rows;
  for (std::uint64_t Bytes : *List) {
    Rows.push_back(measure(*A, Bytes, RO));
    if (!Json) {
      printRow(outs(), S, Rows.back());
      outs().flush(); // a row as soon as it is measured, as nccl-tests
    }
  }
  Summary Sum = summarize(Rows, S.Check);
  if (Json)
    printJson(outs(), S, Rows, Sum);
  else
    printFooter(outs(), S, Rows, Sum);
  return Sum.Ok ? ExitOk : ExitFailed;
}
