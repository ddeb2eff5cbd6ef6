//===- tools/tacclc/Simulate.cpp - The sim command ------------------------===//
//
// `tacclc sim ALGO.xml --topology REF` predicts the time of a TACCL-EF file
// on a modelled machine over a sweep of sizes and prints a table in the
// style of nccl-tests (or JSON). REF names a machine as a sketch would
// (`ndv2(nodes: 2)`, resolved in the standard library's topologies/, or
// `FILE.sketch:NAME(args)`); the machine is instantiated through the front
// end with every GPU pair between nodes joined over the NICs (`relay all`),
// and turned into the runtime's SimMachine: links with their costs at the
// call's chunk size, NIC sides and switch ports as shared ports.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"

#include "frontend/Frontend.h"
#include "tacclrt/Collective.h"
#include "tacclrt/Loader.h"
#include "tacclrt/Simulator.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <cmath>

using namespace tacclc;

namespace {

/// Instantiates the machine \p Ref; with \p AllPairs, joins every GPU pair
/// between nodes (over the NICs).
std::optional<ir::Topology> instantiate(const std::string &Ref,
                                        const std::vector<std::string> &Dirs,
                                        bool AllPairs) {
  std::string Import, Machine = Ref;
  size_t Colon = Ref.find(':');
  size_t Paren = Ref.find('(');
  if (Colon != std::string::npos &&
      (Paren == std::string::npos || Colon < Paren)) {
    Import = Ref.substr(0, Colon);
    Machine = Ref.substr(Colon + 1);
  } else {
    Import = "topologies/" + Ref.substr(0, Paren);
  }
  std::string Text = fmt::format(
      "import \"{}\"\nsketch tacclc_sim on {} {{ collective allgather {}}}\n",
      Import, Machine, AllPairs ? "relay all " : "");
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "<--topology " + Ref + ">"),
      llvm::SMLoc());
  FrontendOptions FO;
  FO.IncludeDirs = Dirs;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  std::optional<ir::Sketch> S;
  if (auto Modules = loadModules(SM, Id, FO, Diags))
    S = analyzeSketch(*Modules, "", Diags);
  if (!S) {
    Diags.flush(llvm::errs());
    return std::nullopt;
  }
  return std::move(S->Topo);
}

/// The runtime's view of \p T, with class costs at \p ChunkBytes.
tacclrt::SimMachine toSimMachine(ir::Topology T, double ChunkBytes) {
  T.applyCostsAt(ChunkBytes);
  tacclrt::SimMachine M;
  M.Name = T.getName().str();
  M.NRanks = static_cast<int>(T.getNumRanks());
  std::vector<std::vector<int>> PortsOf(T.links().size());
  for (const ir::Resource &R : T.resources()) {
    if (R.Links.empty())
      continue;
    int Port = static_cast<int>(M.Ports.size());
    M.Ports.push_back({R.Name, T.link(R.Links.front()).BetaUsPerB});
    for (ir::LinkId L : R.Links)
      PortsOf[L.index()].push_back(Port);
  }
  for (size_t I = 0; I < T.links().size(); ++I) {
    const ir::Link &L = T.links()[I];
    M.Links.push_back({static_cast<int>(L.Src.index()),
                       static_cast<int>(L.Dst.index()), L.AlphaUs, L.BetaUsPerB,
                       L.Multiplicity, PortsOf[I]});
  }
  return M;
}

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
  auto Topo = instantiate(Opts.Topology, Opts.IncludeDirs, false);
  if (Topo && Topo->getNumNodes() > 1)
    Topo = instantiate(Opts.Topology, Opts.IncludeDirs, true);
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
