//===- tools/taccl-profile/Writer.cpp - A measured machine as text --------===//
//
// writeSketch() and writeJson() (Profile.h). The sketch text is built with
// every GPU renumbered (MachineModel::Numbering), then put through the
// formatter, so the file is in the canonical layout; classes carry the
// median fit of their pairs (the network class the latency of the GPU next
// to its NIC), and the comments say how each class was measured and how
// well the model fits.
//
//===----------------------------------------------------------------------===//
#include "Profile.h"

#include "frontend/Format.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <map>
#include <set>

using namespace tacclc;
using namespace tacclc::profile;

namespace {

/// A cost with a few significant digits, e.g. `0.3 us`, `23.1 us/MB`.
std::string alphaText(double Us) { return fmt::format("{:.3g} us", Us); }
std::string betaText(double UsPerB) {
  return fmt::format("{:.4g} us/MB", UsPerB * 1e6);
}
std::string gbps(double UsPerB) {
  return UsPerB > 0 ? fmt::format("{:.3g} GB/s", 1e-3 / UsPerB) : "inf";
}

/// \p Text as `//` comment lines of at most 80 columns.
std::string comment(const std::string &Text) {
  std::string Out, Line = "//";
  size_t At = 0;
  while (At < Text.size()) {
    size_t End = Text.find(' ', At);
    if (End == std::string::npos)
      End = Text.size();
    std::string Word = Text.substr(At, End - At);
    At = End + 1;
    if (Word.empty())
      continue;
    if (Line.size() > 2 && Line.size() + 1 + Word.size() > 80) {
      Out += Line + "\n";
      Line = "//";
    }
    Line += " " + Word;
  }
  return Out + Line + "\n";
}

/// The leading comment: where and how \p M was measured, each class and
/// NIC as found, and the profile's notes.
std::string headerComment(const MachineModel &M) {
  const auto &N = M.Numbering;
  std::string S;
  S +=
      comment(fmt::format("{}.sketch: measured by taccl-profile on {}.", M.Name,
                          M.Date.empty() ? "an unknown date" : M.Date));
  S += comment(fmt::format("Machine: {}.", M.Source));
  S += comment("Every ordered GPU pair of a node, and each GPU to the same GPU "
               "of another node, timed with sequential (n (alpha + beta s)) "
               "and concurrent (alpha + n beta s) sends; alpha and beta fitted "
               "by least squares.");
  for (const MeasuredClass &C : M.Classes) {
    const char *Kind = C.Kind == MeasuredClass::Links    ? "links"
                       : C.Kind == MeasuredClass::Switch ? "a switch"
                       : C.Kind == MeasuredClass::Network
                           ? "the network, through the NICs"
                           : "a shared path, not links";
    S += comment(fmt::format("{}: {} ({} measured pairs), alpha {}, beta {} "
                             "({}), worst fit residual {:.1f}%.",
                             C.Name, Kind, C.Pairs, alphaText(C.AlphaUs),
                             betaText(C.BetaUsPerB), gbps(C.BetaUsPerB),
                             C.WorstResidual * 100));
    if (C.Kind == MeasuredClass::SharedPath)
      S += comment("Transfers of different GPU pairs on it slow each other "
                   "(PCIe through the host?), so it is left out of the "
                   "description.");
  }
  for (size_t K = 0; K < M.Nics.size(); ++K)
    if (M.Nics[K].size() > 1 && M.NicNear[K] != M.Nics[K].front())
      S += comment(fmt::format("NIC {} is next to GPU {} (the lowest network "
                               "latency of its GPUs).",
                               K, N[M.NicNear[K]]));
  if (M.Nodes < 2)
    S += comment("One node was measured: the network is not described (add a "
                 "class and `nic` for it).");
  for (const std::string &Note : M.Notes)
    S += comment(Note);
  return S;
}

/// One `switch` statement per switch class: every GPU of the class joined
/// through one switch.
std::string switchStatements(const MachineModel &M) {
  const auto &N = M.Numbering;
  std::string S;
  for (size_t K = 0; K < M.Classes.size(); ++K) {
    if (M.Classes[K].Kind != MeasuredClass::Switch)
      continue;
    std::set<unsigned> Gpus;
    for (const PairFit &F : M.Intra)
      if (F.Class == int(K))
        Gpus.insert(N[F.A]);
    std::string List;
    if (Gpus.size() == M.GpusPerNode)
      List = fmt::format("0 .. {}", M.GpusPerNode);
    else
      List = fmt::format("{}", fmt::join(Gpus, ", "));
    S += fmt::format("switch fabric{} {} [{}]\n", K, M.Classes[K].Name, List);
  }
  return S;
}

/// The `nic` statements: one for the whole node, or one per NIC with its
/// GPUs (renumbered and sorted); none without a network class.
std::string nicStatements(const MachineModel &M) {
  const auto &N = M.Numbering;
  std::string S;
  if (M.NetClass < 0)
    return S;
  const std::string &Net = M.Classes[size_t(M.NetClass)].Name;
  if (M.Nics.size() == 1)
    return fmt::format("nic {}\n", Net);
  std::vector<std::vector<unsigned>> Nics;
  for (const auto &Nic : M.Nics) {
    std::vector<unsigned> Gs;
    for (unsigned G : Nic)
      Gs.push_back(N[G]);
    std::sort(Gs.begin(), Gs.end());
    Nics.push_back(Gs);
  }
  std::sort(Nics.begin(), Nics.end());
  for (const auto &Gs : Nics)
    S += fmt::format("nic {} [{}]\n", Net, fmt::join(Gs, ", "));
  return S;
}

/// The point-to-point links of the link classes, in a loop over the nodes
/// (empty when there are none).
std::string linkLoop(const MachineModel &M) {
  const auto &N = M.Numbering;
  std::string Loop;
  for (size_t K = 0; K < M.Classes.size(); ++K) {
    if (M.Classes[K].Kind != MeasuredClass::Links)
      continue;
    std::set<std::pair<unsigned, unsigned>> Dir;
    for (const PairFit &F : M.Intra)
      if (F.Class == int(K))
        Dir.insert({N[F.A], N[F.B]});
    std::vector<std::string> Items;
    for (auto [A, B] : Dir) {
      bool Both = Dir.count({B, A});
      if (Both && B < A)
        continue;
      Items.push_back(fmt::format("n:{} {} n:{}", A, Both ? "<->" : "->", B));
    }
    if (!Items.empty())
      Loop += fmt::format("link {} {}\n", M.Classes[K].Name,
                          fmt::join(Items, ", "));
  }
  if (Loop.empty())
    return "";
  return "for n in 0..nodes {\n" + Loop + "}\n";
}

/// \p S (a sketch file named after \p Name) in the canonical layout, which
/// wraps the long link lists; empty, after printing the diagnostics, if it
/// does not parse.
std::string canonicalLayout(const std::string &S, const std::string &Name) {
  llvm::SourceMgr SM;
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(S, Name + ".sketch"), llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  std::optional<std::string> Formatted = formatSketch(SM, Id, Diags);
  if (!Formatted) {
    // A bug: what was written does not parse. Say so rather than write it.
    Diags.flush(llvm::errs());
    return "";
  }
  return *Formatted;
}

} // namespace

std::string tacclc::profile::writeSketch(const MachineModel &M) {
  std::string S = headerComment(M);
  S += fmt::format("\nmachine {}(nodes: int = 1) {{\n", M.Name);
  S += fmt::format("gpus per node = {}\n", M.GpusPerNode);
  for (const MeasuredClass &C : M.Classes)
    if (C.Kind != MeasuredClass::SharedPath)
      S += fmt::format("class {} {{ alpha = {}; beta = {} }}\n", C.Name,
                       alphaText(C.AlphaUs), betaText(C.BetaUsPerB));
  S += switchStatements(M);
  S += nicStatements(M);
  S += linkLoop(M);
  S += "}\n";
  return canonicalLayout(S, M.Name);
}

std::string tacclc::profile::writeJson(const MachineModel &M) {
  using llvm::json::Array;
  using llvm::json::Object;
  auto Pairs = [&](const std::vector<PairFit> &Fs) {
    Array Out;
    for (const PairFit &F : Fs) {
      Array Samples;
      for (const Sample &S : F.Samples)
        Samples.push_back(
            Object{{"mode", S.Concurrent ? "concurrent" : "sequential"},
                   {"n", int64_t(S.N)},
                   {"bytes", S.Bytes},
                   {"seconds", S.Seconds}});
      Out.push_back(Object{
          {"src", int64_t(F.A)},
          {"dst", int64_t(F.B)},
          {"alpha_us", F.Fit.AlphaUs},
          {"beta_us_per_MB", F.Fit.BetaUsPerB * 1e6},
          {"residual", F.Fit.Residual},
          {"class", F.Class >= 0
                        ? llvm::json::Value(M.Classes[size_t(F.Class)].Name)
                        : llvm::json::Value(nullptr)},
          {"samples", std::move(Samples)}});
    }
    return Out;
  };
  Array Classes;
  for (const MeasuredClass &C : M.Classes)
    Classes.push_back(
        Object{{"name", C.Name},
               {"kind", C.Kind == MeasuredClass::Links     ? "links"
                        : C.Kind == MeasuredClass::Switch  ? "switch"
                        : C.Kind == MeasuredClass::Network ? "network"
                                                           : "shared-path"},
               {"alpha_us", C.AlphaUs},
               {"beta_us_per_MB", C.BetaUsPerB * 1e6},
               {"pairs", int64_t(C.Pairs)},
               {"worst_residual", C.WorstResidual}});
  Array Nics;
  for (size_t K = 0; K < M.Nics.size(); ++K) {
    Array Gpus;
    for (unsigned G : M.Nics[K])
      Gpus.push_back(int64_t(G));
    Nics.push_back(
        Object{{"gpus", std::move(Gpus)}, {"near", int64_t(M.NicNear[K])}});
  }
  Array Numbering;
  for (unsigned G : M.Numbering)
    Numbering.push_back(int64_t(G));
  Object Root{{"machine", M.Name},
              {"source", M.Source},
              {"date", M.Date},
              {"gpus_per_node", int64_t(M.GpusPerNode)},
              {"nodes_measured", int64_t(M.Nodes)},
              {"classes", std::move(Classes)},
              {"nics", std::move(Nics)},
              {"numbering", std::move(Numbering)},
              {"intra_node", Pairs(M.Intra)},
              {"network", Pairs(M.Inter)}};
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
  return OS.str();
}
