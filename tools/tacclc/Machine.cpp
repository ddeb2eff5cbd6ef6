//===- tools/tacclc/Machine.cpp - Machines named on the command line ------===//
//
// A machine reference (`ndv2(nodes: 2)` or `FILE.sketch:NAME(args)`) is
// instantiated through the front end from a two-line sketch that imports
// its file and uses it; a machine of several nodes is instantiated again
// with `relay all`, so that every GPU pair between nodes is joined over the
// NICs, whose sides then appear as shared resources.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Machine.h"

#include "frontend/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

using namespace tacclc;

namespace {
/// Instantiates the machine \p Ref; with \p AllPairs, joins every GPU pair
/// between nodes (over the NICs). Diagnostics go to \p Errs, or nowhere.
std::optional<ir::Topology> instantiate(const std::string &Ref,
                                        const std::vector<std::string> &Dirs,
                                        bool AllPairs,
                                        llvm::raw_ostream *Errs) {
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
      llvm::MemoryBuffer::getMemBufferCopy(
          Text, "<--topology " +
                    (Ref.size() <= 60 ? Ref : Ref.substr(0, 57) + "...") + ">"),
      llvm::SMLoc());
  FrontendOptions FO;
  FO.IncludeDirs = Dirs;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  std::optional<ir::Sketch> S;
  if (auto Modules = loadModules(SM, Id, FO, Diags))
    S = analyzeSketch(*Modules, "", Diags);
  if (!S) {
    llvm::raw_null_ostream Null;
    Diags.flush(Errs ? *Errs : Null);
    return std::nullopt;
  }
  return std::move(S->Topo);
}

} // namespace

std::optional<ir::Topology>
tacclc::instantiateMachine(const std::string &Ref,
                           const std::vector<std::string> &IncludeDirs,
                           llvm::raw_ostream &Errs) {
  // Several nodes: every pair joined (a machine of one GPU per node has no
  // other links). One node: `relay all` is an error, so without it, and
  // that attempt reports what is wrong with the reference.
  if (auto Topo = instantiate(Ref, IncludeDirs, true, nullptr))
    return Topo;
  return instantiate(Ref, IncludeDirs, false, &Errs);
}

tacclrt::SimMachine tacclc::toSimMachine(ir::Topology T, double ChunkBytes) {
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
    M.Links.push_back(
        {static_cast<int>(L.Src.index()), static_cast<int>(L.Dst.index()),
         L.AlphaUs, L.BetaUsPerB, L.Multiplicity, PortsOf[I],
         T.nodeOf(L.Src) == T.nodeOf(L.Dst) ? tacclrt::LinkKind::Intra
                                            : tacclrt::LinkKind::Net});
  }
  return M;
}
