//===- ir/Printer.cpp - IR printers ---------------------------------------===//
//
// Text forms of Sketch, Routes and Schedule. Numbers go through fmt with fixed
// precision so goldens are stable across platforms.
//
//===----------------------------------------------------------------------===//
#include "ir/Printer.h"

#include <fmt/format.h>

#include <algorithm>

using namespace tacclc::ir;

std::string tacclc::ir::formatUs(double Us) {
  return fmt::format("{:.3f} us", Us);
}

std::string tacclc::ir::formatBytes(uint64_t Bytes) {
  static const struct {
    uint64_t Scale;
    const char *Name;
  } Units[] = {{1ull << 30, "GiB"}, {1000000000ull, "GB"}, {1ull << 20, "MiB"},
               {1000000ull, "MB"},  {1ull << 10, "KiB"},   {1000ull, "KB"}};
  for (const auto &U : Units)
    if (Bytes >= U.Scale && Bytes % U.Scale == 0)
      return fmt::format("{} {}", Bytes / U.Scale, U.Name);
  return fmt::format("{} B", Bytes);
}

static std::string linkName(const Topology &T, LinkId Id) {
  const Link &L = T.link(Id);
  return fmt::format("{}->{}", L.Src.index(), L.Dst.index());
}

void tacclc::ir::printSketch(const Sketch &S, llvm::raw_ostream &OS) {
  const Topology &T = S.Topo;
  OS << fmt::format("sketch {} on {}\n", S.Name, T.getName().str());
  OS << fmt::format("  ranks {}\n", T.getNumRanks());
  for (size_t I = 0; I < T.links().size(); ++I) {
    const Link &L = T.links()[I];
    OS << fmt::format("  link #{} {} alpha {:.6g} us beta {:.6g} us/MB\n", I,
                      linkName(T, LinkId(I)), L.AlphaUs, L.BetaUsPerB * 1e6);
  }
  const Collective &C = S.Coll;
  OS << fmt::format("  collective {} chunks/rank {} size {} ({} bytes/chunk)\n",
                    collectiveName(C.getKind()).str(), C.getChunksPerRank(),
                    formatBytes(S.SizeBytes),
                    fmt::format("{:.6g}", S.chunkBytes()));
  OS << fmt::format("  buffers: input {} chunks, output {} chunks per rank\n",
                    C.getInputChunks(), C.getOutputChunks());
  for (unsigned I = 0; I < C.getNumChunks(); ++I) {
    const Chunk &Ch = C.chunk(ChunkId(I));
    OS << fmt::format("  chunk {}: rank {} i[{}] -> o[{}] post {{", I,
                      Ch.Source.index(), Ch.InputIndex, Ch.OutputIndex);
    for (size_t P = 0; P < Ch.Post.size(); ++P)
      OS << (P ? "," : "") << Ch.Post[P].index();
    OS << "}\n";
  }
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
    OS << fmt::format("    chunk {:<4} {:>12.3f} .. {:>12.3f} us\n",
                      T->Chunk.index(), T->StartUs, T->EndUs);
  }
}
