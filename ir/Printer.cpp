//===- ir/Printer.cpp - IR printers ---------------------------------------===//
//
// Text forms of Sketch, Routes and Schedule. Numbers go through fmt with fixed
// precision so goldens are stable across platforms.
//
//===----------------------------------------------------------------------===//
#include "ir/Printer.h"

#include "support/Sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace tacclc::ir;

std::string tacclc::ir::formatUs(double Us) {
  return fmt::format("{:.3f} us", Us);
}

std::string tacclc::ir::formatBytes(uint64_t Bytes) {
  return formatByteSize(Bytes);
}

static std::string linkName(const Topology &T, LinkId Id) {
  const Link &L = T.link(Id);
  return fmt::format("{}->{}", L.Src.index(), L.Dst.index());
}

void tacclc::ir::printSketch(const Sketch &S, llvm::raw_ostream &OS) {
  const Topology &T = S.Topo;
  OS << fmt::format("sketch {} on {}\n", S.Name, T.getName().str());
  OS << fmt::format("  ranks {} ({} node(s) x {} GPUs)\n", T.getNumRanks(),
                    T.getNumNodes(), T.getGpusPerNode());
  for (const LinkClass &C : T.classes()) {
    if (C.Profile.empty()) {
      OS << fmt::format("  class {} alpha {:.6g} us beta {:.6g} us/MB\n",
                        C.Name, C.AlphaUs, C.BetaUsPerB * 1e6);
      continue;
    }
    CostPoint At = C.costsAt(S.chunkBytes());
    OS << fmt::format("  class {} at chunk size: alpha {:.6g} us beta {:.6g} "
                      "us/MB; measured:",
                      C.Name, At.AlphaUs, At.BetaUsPerB * 1e6);
    for (const CostPoint &P : C.Profile)
      OS << fmt::format(" {} ({:.6g} us, {:.6g} us/MB)",
                        formatBytes(uint64_t(P.Bytes)), P.AlphaUs,
                        P.BetaUsPerB * 1e6);
    OS << "\n";
  }
  for (const Switch &Sw : T.switches()) {
    OS << fmt::format("  switch {} class {} policy {}:", Sw.Name,
                      T.classes()[Sw.Class].Name,
                      switchPolicyName(Sw.Policy).str());
    for (const auto &Group : Sw.Groups) {
      OS << " [";
      for (size_t I = 0; I < Group.size(); ++I)
        OS << (I ? " " : "") << Group[I].index();
      OS << "]";
    }
    OS << "\n";
  }
  for (const Nic &N : T.nics()) {
    OS << fmt::format("  nic class {} ranks [", T.classes()[N.Class].Name);
    for (size_t I = 0; I < N.Ranks.size(); ++I)
      OS << (I ? " " : "") << N.Ranks[I].index();
    OS << "]\n";
  }
  for (size_t I = 0; I < T.links().size(); ++I) {
    const Link &L = T.links()[I];
    OS << fmt::format("  link #{} {}", I, linkName(T, LinkId(I)));
    if (L.Class >= 0)
      OS << fmt::format(" class {}", T.classes()[L.Class].Name);
    else
      OS << fmt::format(" alpha {:.6g} us beta {:.6g} us/MB", L.AlphaUs,
                        L.BetaUsPerB * 1e6);
    if (L.Multiplicity > 1)
      OS << fmt::format(" x{}", L.Multiplicity);
    if (L.Switch >= 0)
      OS << fmt::format(" via {}", T.switches()[L.Switch].Name);
    OS << "\n";
  }
  const Collective &C = S.Coll;
  OS << fmt::format("  collective {}", collectiveName(C.getKind()).str());
  if (isRooted(C.getKind()))
    OS << fmt::format(" root {}", C.getRoot().index());
  OS << fmt::format(" chunks/rank {} size {} ({} bytes/chunk)",
                    C.getChunksPerRank(), formatBytes(S.SizeBytes),
                    S.chunkBytes() == std::floor(S.chunkBytes())
                        ? fmt::format("{}", uint64_t(S.chunkBytes()))
                        : fmt::format("{:.6g}", S.chunkBytes()));
  if (S.MaxBytes)
    OS << fmt::format(" for sizes {} .. {}", formatBytes(S.MinBytes),
                      formatBytes(S.MaxBytes));
  OS << "\n";
  if (S.Instances > 1)
    OS << fmt::format("  instances {}\n", S.Instances);
  for (size_t I = 0; I < S.ContiguousClasses.size(); ++I)
    if (S.ContiguousClasses[I])
      OS << fmt::format("  contiguous sends on class {}\n",
                        T.classes()[I].Name);
  for (size_t Snd = 0; Snd < S.Carries.size(); ++Snd) {
    std::string List;
    for (size_t G = 0; G < S.Carries[Snd].size(); ++G)
      if (S.Carries[Snd][G])
        List += (List.empty() ? "" : " ") + std::to_string(G);
    if (!List.empty())
      OS << fmt::format("  sender {} carries [{}]\n", Snd, List);
  }
  if (S.SenderFirst)
    OS << "  senders send their own chunks first\n";
  if (S.IdenticalResults)
    OS << "  identical results on every rank\n";
  OS << fmt::format("  protocol {}", S.ProtocolAuto ? "auto" : S.Protocol);
  if (!S.ProtocolRanges.empty()) {
    std::vector<std::string> Parts;
    for (const ProtocolRange &R : S.ProtocolRanges)
      Parts.push_back(R.BelowBytes ? fmt::format("{} below {}", R.Protocol,
                                                 formatBytes(R.BelowBytes))
                                   : R.Protocol);
    OS << fmt::format(" at the design point ({})", fmt::join(Parts, ", "));
  }
  if (S.TimeLimitSeconds)
    OS << fmt::format(", time limit {:g} s", *S.TimeLimitSeconds);
  if (S.RelativeGap)
    OS << fmt::format(", gap {:g}", *S.RelativeGap);
  OS << "\n";
  if (!S.Phases.empty()) {
    std::vector<std::string> Names;
    for (const Phase &P : S.Phases)
      Names.push_back(P.Where == Phase::WithinNodes ? "within nodes"
                                                    : "across nodes");
    OS << fmt::format("  phases {}\n", fmt::join(Names, ", "));
  }
  for (const Symmetry &Sym : S.Symmetries) {
    OS << fmt::format("  symmetry {}: [", Sym.Description);
    for (size_t I = 0; I < Sym.Perm.size(); ++I)
      OS << (I ? " " : "") << Sym.Perm[I];
    OS << "]\n";
  }
  OS << fmt::format("  buffers: input {} chunks, output {} chunks per rank\n",
                    C.getInputChunks(), C.getOutputChunks());
  for (unsigned I = 0; I < C.getNumChunks(); ++I) {
    const Chunk &Ch = C.chunk(ChunkId(I));
    if (isCombining(C.getKind()))
      OS << fmt::format("  chunk {}: sum of all ranks' i[{}] -> o[{}] post {{",
                        I, Ch.InputIndex, Ch.OutputIndex);
    else
      OS << fmt::format("  chunk {}: rank {} i[{}] -> o[{}] post {{", I,
                        Ch.Source.index(), Ch.InputIndex, Ch.OutputIndex);
    for (size_t P = 0; P < Ch.Post.size(); ++P)
      OS << (P ? "," : "") << Ch.Post[P].index();
    OS << "}\n";
  }
}

/// The node all of \p Members belong to, or nothing if they span nodes.
static std::optional<unsigned> nodeOfGroup(const Topology &T,
                                           llvm::ArrayRef<RankId> Members) {
  for (RankId R : Members)
    if (T.nodeOf(R) != T.nodeOf(Members.front()))
      return std::nullopt;
  return T.nodeOf(Members.front());
}

void tacclc::ir::printDot(const Sketch &S, llvm::raw_ostream &OS) {
  static const char *Styles[] = {"color=\"#1f77b4\", penwidth=2",
                                 "color=\"#2ca02c\"",
                                 "color=\"#d62728\", style=dashed",
                                 "color=\"#9467bd\", style=dotted",
                                 "color=\"#8c564b\"",
                                 "color=\"#ff7f0e\", style=dashed"};
  const Topology &T = S.Topo;
  OS << fmt::format("digraph \"{}\" {{\n", S.Name);
  OS << "  node [shape=box, fontname=\"monospace\"];\n";
  OS << fmt::format("  label=\"sketch {} on {}\";\n", S.Name,
                    T.getName().str());
  unsigned G = T.getGpusPerNode();
  for (unsigned N = 0; N < T.getNumNodes(); ++N) {
    if (T.getNumNodes() > 1)
      OS << fmt::format(
          "  subgraph cluster_node{} {{\n    label=\"node {}\";\n", N, N);
    for (unsigned R = N * G; R < (N + 1) * G; ++R)
      OS << fmt::format("    r{} [label=\"{}\"];\n", R,
                        T.getNumNodes() > 1 ? fmt::format("{}:{}", N, R - N * G)
                                            : std::to_string(R));
    // Hubs of switch groups inside this node.
    for (size_t Sw = 0; Sw < T.switches().size(); ++Sw)
      for (size_t Grp = 0; Grp < T.switches()[Sw].Groups.size(); ++Grp) {
        const auto &Members = T.switches()[Sw].Groups[Grp];
        if (nodeOfGroup(T, Members) == std::optional<unsigned>(N))
          OS << fmt::format("    s{}_{} [shape=diamond, label=\"{}\"];\n", Sw,
                            Grp, T.switches()[Sw].Name);
      }
    if (T.getNumNodes() > 1)
      OS << "  }\n";
  }
  // A switch is drawn as one hub per group with an undirected edge to each
  // member, instead of its links between every pair of members.
  for (size_t Sw = 0; Sw < T.switches().size(); ++Sw) {
    const Switch &X = T.switches()[Sw];
    for (size_t Grp = 0; Grp < X.Groups.size(); ++Grp) {
      const auto &Members = X.Groups[Grp];
      if (!nodeOfGroup(T, Members))
        OS << fmt::format("  s{}_{} [shape=diamond, label=\"{}\"];\n", Sw, Grp,
                          X.Name);
      for (RankId R : Members)
        OS << fmt::format("  s{}_{} -> r{} [dir=none, label=\"{}\", {}];\n", Sw,
                          Grp, R.index(), T.classes()[X.Class].Name,
                          Styles[X.Class % 6]);
    }
  }
  for (const Link &L : T.links()) {
    if (L.Switch >= 0)
      continue;
    OS << fmt::format("  r{} -> r{}", L.Src.index(), L.Dst.index());
    if (L.Class >= 0)
      OS << fmt::format(" [label=\"{}{}\", {}]", T.classes()[L.Class].Name,
                        L.Multiplicity > 1 ? fmt::format(" x{}", L.Multiplicity)
                                           : std::string(),
                        Styles[L.Class % 6]);
    OS << ";\n";
  }
  OS << "}\n";
}

void tacclc::ir::printRoutes(const Sketch &S, const Routes &R,
                             llvm::raw_ostream &OS) {
  OS << fmt::format("routes of {} ({}, relaxed makespan {})\n", S.Name,
                    R.SolverStatus, formatUs(R.RelaxedMakespanUs));
  for (const ChunkRoute &CR : R.Chunks) {
    OS << fmt::format("  chunk {}:", CR.Chunk.index());
    for (LinkId L : CR.Links)
      OS << " " << linkName(S.Topo, L);
    OS << "\n";
  }
}

void tacclc::ir::printSchedule(const Sketch &S, const Schedule &Sch,
                               llvm::raw_ostream &OS) {
  OS << fmt::format("schedule of {}: makespan {}\n", S.Name,
                    formatUs(Sch.MakespanUs));
  std::vector<const Transfer *> Sorted;
  for (const Transfer &T : Sch.Transfers)
    Sorted.push_back(&T);
  std::stable_sort(
      Sorted.begin(), Sorted.end(),
      [](const Transfer *A, const Transfer *B) { return A->Link < B->Link; });
  LinkId Current;
  for (const Transfer *T : Sorted) {
    if (T->Link != Current) {
      Current = T->Link;
      OS << "  link " << linkName(S.Topo, Current) << "\n";
    }
    OS << fmt::format("    chunk {:<4} {:>12.3f} .. {:>12.3f} us{}\n",
                      T->Chunk.index(), T->StartUs, T->EndUs,
                      T->Reduce ? "  reduce" : "");
  }
}
