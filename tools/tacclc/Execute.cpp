//===- tools/tacclc/Execute.cpp - The check and run commands --------------===//
//
// `tacclc check` loads a TACCL-EF file with the runtime's strict loader and
// proves its postcondition by symbolic execution; `tacclc run` executes it
// on the CPU reference executor with real data and compares every output
// element with an independently computed reference. Both print the
// runtime's issues as `file:line:col: error: rank R tb T step S: ...`.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/Provenance.h"

#include "checker/Checker.h"
#include "exec/CpuExecutor.h"
#include "exec/device/CudaExecutor.h"
#include "format/Loader.h"

#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

using namespace tacclc;

namespace {
void printReport(const tacclrt::Report &Rep) {
  for (const tacclrt::Issue &I : Rep)
    llvm::errs() << tacclrt::format(I) << "\n";
  llvm::errs().flush();
}

std::optional<tacclrt::Algo> load(const std::string &Path, bool Legacy,
                                  tacclrt::Report &Rep) {
  tacclrt::LoadOptions LO;
  LO.D = Legacy ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
  auto A = tacclrt::loadPlanFile(Path, LO, Rep);
  if (Rep.hasErrors())
    return std::nullopt;
  return A;
}

unsigned totalSteps(const tacclrt::Algo &A) {
  unsigned N = 0;
  for (const auto &G : A.Gpus)
    for (const auto &Tb : G.Tbs)
      N += Tb.Steps.size();
  return N;
}

/// About 1 MiB of float32 (as many elements of \p T) whose element count
/// every chunk split divides.
uint64_t defaultBytes(const tacclrt::Algo &A, tacclrt::DataType T) {
  uint64_t Unit = std::lcm<uint64_t>(A.NChunksPerLoop, A.NGpus);
  uint64_t Elems = ((262144 + Unit - 1) / Unit) * Unit;
  return Elems * tacclrt::sizeOf(T);
}
} // namespace

int tacclc::runCheck(const CheckOptions &Opts) {
  if (!expectProgram(Opts.Input))
    return ExitInternal;
  tacclrt::Report Rep;
  auto A = load(Opts.Input, Opts.LegacyDialect, Rep);
  if (A) {
    tacclrt::CheckOptions CO;
    CO.FifoCapacity = std::max(1u, Opts.FifoCapacity);
    CO.Root = Opts.Root;
    CO.IdenticalOrder = Opts.IdenticalOrder;
    Rep.append(tacclrt::checkPlan(*A, Opts.Input, CO));
  }
  printReport(Rep);
  if (!A || Rep.hasErrors())
    return ExitUserError;
  llvm::outs() << fmt::format(
      "{}: OK: {} on {} ranks, {} threadblocks, {} steps; the postcondition "
      "holds and no threadblock can deadlock\n",
      Opts.Input, tacclrt::collName(A->Coll, tacclrt::Dialect::Executor),
      A->NGpus,
      std::accumulate(A->Gpus.begin(), A->Gpus.end(), size_t(0),
                      [](size_t S, const auto &G) { return S + G.Tbs.size(); }),
      totalSteps(*A));
  // The file may serve the other runtime too: its loader decides.
  tacclrt::Report Other;
  bool OtherLegacy = !Opts.LegacyDialect;
  const char *Names[2] = {"msccl-executor", "msccl-legacy"};
  if (load(Opts.Input, OtherLegacy, Other))
    llvm::outs() << fmt::format("{}: valid for {} and {}\n", Opts.Input,
                                Names[Opts.LegacyDialect], Names[OtherLegacy]);
  else
    llvm::outs() << fmt::format(
        "{}: valid for {}; not for {}: {}\n", Opts.Input,
        Names[Opts.LegacyDialect], Names[OtherLegacy],
        Other.empty() ? std::string("rejected") : Other.begin()->Message);
  return ExitSuccess;
}

int tacclc::runRun(const RunOptions &Opts) {
  const bool Gpu = Opts.Backend == "cuda" || Opts.Backend == "cuda-virtual" ||
                   Opts.Backend == "nccl";
  if (Opts.Backend != "cpu" && !Gpu) {
    llvm::errs() << "tacclc: error: unknown backend '" << Opts.Backend
                 << "' (cpu; cuda: ranks spread over this process's GPUs; "
                    "cuda-virtual: every rank on one GPU; nccl: a process "
                    "per rank and GPU)\n";
    return ExitInternal;
  }
  if (Gpu && !tacclrt::cudaInterpreterBuilt()) {
    llvm::errs() << "tacclc: error: backend '" << Opts.Backend
                 << "' is not available: this build has no CUDA interpreter "
                    "(nvcc and NCCL were not found when it was configured)\n";
    return ExitInternal;
  }
  auto Type = tacclrt::parseDataType(Opts.Type);
  auto Op = tacclrt::parseReduceOp(Opts.Op);
  if (!Type || !Op) {
    llvm::errs() << "tacclc: error: unknown "
                 << (Type ? "reduction '" + Opts.Op + "' (sum, prod, min, max)"
                          : "data type '" + Opts.Type +
                                "' (int8, uint8, int32, uint32, int64, "
                                "uint64, float16, bfloat16, float32, float64)")
                 << "\n";
    return ExitInternal;
  }
  if (!expectProgram(Opts.Input))
    return ExitInternal;
  tacclrt::Report Rep;
  auto A = load(Opts.Input, Opts.LegacyDialect, Rep);
  if (!A) {
    printReport(Rep);
    return ExitUserError;
  }
  tacclrt::RunOptions RO;
  RO.Type = *Type;
  RO.Op = *Op;
  RO.Bytes = Opts.Bytes ? Opts.Bytes : defaultBytes(*A, *Type);
  // An algorithm that serves only in-place calls runs in place by default.
  RO.InPlace = Opts.InPlace || (!A->OutOfPlace && A->InPlace);
  RO.WatchdogSeconds = Opts.WatchdogSeconds;
  RO.Root = Opts.Root;
  RO.LegacySizeRange = Opts.LegacyDialect;
  tacclrt::RunResult R;
  if (Opts.Backend == "nccl")
    R = tacclrt::runOnNcclRanks(*A, RO, tacclrt::RepeatOptions(), Opts.Input)
            .Run;
  else if (Gpu)
    R = tacclrt::runOnCuda(*A, RO,
                           Opts.Backend == "cuda"
                               ? tacclrt::CudaMode::SpreadRanks
                               : tacclrt::CudaMode::VirtualRanks,
                           Opts.Input);
  else
    R = tacclrt::runOnCpu(*A, RO, Opts.Input);
  Rep.append(R.Issues);
  printReport(Rep);
  llvm::outs() << R.Summary << "\n";
  return R.Ok ? ExitSuccess : ExitUserError;
}
