//===- frontend/MachineRef.cpp - Machines named on the command line -------===//
//
// A machine reference (`ndv2(nodes: 2)` or `FILE.sketch:NAME(args)`) is
// instantiated through the front end from a two-line sketch that imports
// its file and uses it; a machine of several nodes is instantiated again
// with `relay all`, so that every GPU pair between nodes is joined over the
// NICs, whose sides then appear as shared resources.
//
//===----------------------------------------------------------------------===//
#include "frontend/MachineRef.h"

#include "frontend/Frontend.h"
#include "support/Stdlib.h"

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
  FO.StdlibDir = stdlibDir();
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
