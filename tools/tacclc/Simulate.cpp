//===- tools/tacclc/Simulate.cpp - The sim command ------------------------===//
//
// `tacclc sim ALGO.xml --topology REF` predicts the time of a TACCL-EF file
// on a modelled machine (Machine.h) over a sweep of sizes and prints a table
// in the style of nccl-tests (or JSON).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"

#include "tacclrt/Collective.h"
#include "tacclrt/Loader.h"
#include "tacclrt/Simulator.h"
#include "tools/tacclc/Machine.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <cmath>

using namespace tacclc;

namespace {

/// nccl-tests' bus bandwidth factor.
double busFactor(tacclrt::CollKind C, double N) {
  switch (C) {
  case tacclrt::CollKind::AllReduce:
    return 2 * (N - 1) / N;
  case tacclrt::CollKind::Broadcast:
  case tacclrt::CollKind::Reduce:
    return 1;
  default:
    return (N - 1) / N;
  }
}
} // namespace

std::optional<std::vector<uint64_t>> tacclc::parseSizes(llvm::StringRef Spec) {
  auto One = [](llvm::StringRef S) -> std::optional<uint64_t> {
    S = S.trim();
    uint64_t Mul = 1;
    for (auto [Suffix, M] :
         {std::pair("KB", uint64_t(1) << 10),
          std::pair("MB", uint64_t(1) << 20),
          std::pair("GB", uint64_t(1) << 30), std::pair("K", uint64_t(1) << 10),
          std::pair("M", uint64_t(1) << 20), std::pair("G", uint64_t(1) << 30),
          std::pair("B", uint64_t(1))})
      if (S.consume_back_insensitive(Suffix)) {
        Mul = M;
        break;
      }
    uint64_t V;
    if (S.trim().getAsInteger(10, V) || V == 0 || V > (uint64_t(1) << 50) / Mul)
      return std::nullopt;
    return V * Mul;
  };
  std::vector<uint64_t> Out;
  if (auto [Lo, Hi] = Spec.split(':'); !Hi.empty()) {
    auto L = One(Lo), H = One(Hi);
    if (!L || !H || *L > *H)
      return std::nullopt;
    for (uint64_t S = *L; S <= *H; S *= 2)
      Out.push_back(S);
    return Out;
  }
  llvm::SmallVector<llvm::StringRef> Parts;
  Spec.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    auto V = One(P);
    if (!V)
      return std::nullopt;
    Out.push_back(*V);
  }
  return Out;
}

int tacclc::runSim(const SimOptions &Opts) {
  tacclrt::LoadOptions LO;
  LO.D = Opts.LegacyDialect ? tacclrt::Dialect::Legacy
                            : tacclrt::Dialect::Executor;
  tacclrt::Report Rep;
  auto A = tacclrt::loadPlanFile(Opts.Input, LO, Rep);
  for (const tacclrt::Issue &I : Rep)
    llvm::errs() << tacclrt::format(I) << "\n";
  if (!A || Rep.hasErrors())
    return ExitUserError;
  auto Topo = instantiateMachine(Opts.Topology, Opts.IncludeDirs);
  if (!Topo)
    return ExitUserError;
  auto Sizes = parseSizes(Opts.Sizes);
  if (!Sizes || Sizes->empty()) {
    llvm::errs() << "tacclc: error: bad --sizes '" << Opts.Sizes
                 << "' (examples: 1KB:1GB, 4096,1MB)\n";
    return ExitInternal;
  }
  const double N = A->NGpus;
  std::string Json = "[";
  std::string Table =
      fmt::format("# {} on {} ({} ranks), {}\n", Opts.Input, Opts.Topology,
                  A->NGpus, tacclrt::nameOf(A->Coll));
  Table += fmt::format("{:>14} {:>12} {:>12} {:>12}\n", "size (B)", "time (us)",
                       "algbw (GB/s)", "busbw (GB/s)");
  bool Ok = true;
  for (uint64_t Bytes : *Sizes) {
    // The size nccl-tests reports and the runtime selects by agree except
    // for gather and scatter, where --sizes names one rank's part.
    tacclrt::SimOptions SO;
    SO.Bytes = Bytes;
    double Chunk = double(Bytes) / A->NChunksPerLoop;
    tacclrt::SimResult R =
        tacclrt::simulate(*A, toSimMachine(*Topo, Chunk), SO, Opts.Input);
    for (const tacclrt::Issue &I : R.Issues)
      llvm::errs() << tacclrt::format(I) << "\n";
    if (!R.Ok) {
      Ok = false;
      break;
    }
    double AlgBw = double(Bytes) / (R.TimeUs * 1e3);
    double BusBw = AlgBw * busFactor(A->Coll, N);
    Table += fmt::format("{:>14} {:>12.2f} {:>12.2f} {:>12.2f}\n", Bytes,
                         R.TimeUs, AlgBw, BusBw);
    Json += fmt::format("{}\n  {{\"bytes\": {}, \"time_us\": {:.6g}, "
                        "\"algbw_GBps\": {:.6g}, \"busbw_GBps\": {:.6g}, "
                        "\"iterations\": {}}}",
                        Json.size() > 1 ? "," : "", Bytes, R.TimeUs, AlgBw,
                        BusBw, R.Iterations);
  }
  Json += "\n]\n";
  if (!Ok)
    return ExitUserError;
  llvm::outs() << (Opts.Json ? Json : Table);
  return ExitSuccess;
}
