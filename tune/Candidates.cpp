//===- tune/Candidates.cpp - Sketches tune tries on a machine -------------===//
//
// The families of tune/Candidates.h written out as sketch text, one file per
// candidate, in a fixed order so that a tune is deterministic.
//
//===----------------------------------------------------------------------===//
#include "tune/Candidates.h"
#include "support/Sizes.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

#include <algorithm>

using namespace tacclc;
using namespace tacclc::tune;

MachineFacts tune::describeMachine(const ir::Topology &T, std::string Import,
                                   std::string Call) {
  MachineFacts M;
  M.Import = std::move(Import);
  M.Call = std::move(Call);
  M.Nodes = T.getNumNodes();
  M.GpusPerNode = T.getGpusPerNode();
  for (const ir::Switch &S : T.switches())
    M.Switches.push_back(S.Name);
  for (const ir::Nic &N : T.nics()) {
    if (N.Ranks.empty() || T.nodeOf(N.Ranks.front()) != 0)
      continue;
    std::vector<unsigned> Local;
    for (ir::RankId R : N.Ranks)
      Local.push_back(R.index() % M.GpusPerNode);
    std::sort(Local.begin(), Local.end());
    M.NicGpus.push_back(std::move(Local));
    if (M.NicClass.empty() && N.Class >= 0)
      M.NicClass = T.classes()[N.Class].Name;
  }
  std::sort(M.NicGpus.begin(), M.NicGpus.end());
  return M;
}

std::vector<SizeBand> tune::sizeBands(std::uint64_t Lo, std::uint64_t Hi) {
  const std::uint64_t Small = 64 << 10, Large = 16 << 20;
  std::vector<SizeBand> Out;
  auto Add = [&](const char *Name, std::uint64_t A, std::uint64_t B) {
    A = std::max(A, Lo);
    B = std::min(B, Hi);
    if (A <= B)
      Out.push_back({Name, A, B});
  };
  Add("small", 0, Small - 1);
  Add("medium", Small, Large - 1);
  Add("large", Large, UINT64_MAX);
  return Out;
}

bool tune::tunableCollective(llvm::StringRef C) {
  return C == "allgather" || C == "alltoall" || C == "reducescatter" ||
         C == "allreduce";
}

namespace {
/// One family: its name in the report, its items, where it applies.
struct Family {
  std::string Name, Tag;
  std::vector<std::string> Items;
  bool Small = true, Medium = true, Large = true;
};

bool inBand(const Family &F, llvm::StringRef Band) {
  return Band == "small" ? F.Small : Band == "medium" ? F.Medium : F.Large;
}

/// The families between nodes.
std::vector<Family> multiNodeFamilies(const MachineFacts &M,
                                      llvm::StringRef Coll) {
  const bool Reducing = Coll != "allgather" && Coll != "alltoall";
  std::vector<Family> Out;
  Out.push_back({"relay direct", "direct", {"relay direct"}});
  Out.push_back({"relay direct, 2 chunks",
                 "direct_c2",
                 {"chunks 2", "relay direct"},
                 false});
  // Every GPU to every GPU: each chunk crosses the network once, which wins
  // where latency dominates; its routing model grows with the square of
  // the GPUs, so only the small band.
  Out.push_back({"relay all", "all", {"relay all"}, true, false, false});
  // Rails: GPU g sends only its own chunks to GPU g of the other nodes.
  std::vector<std::string> Rails{"relay direct"};
  for (unsigned G = 0; G < M.GpusPerNode; ++G)
    Rails.push_back(fmt::format("sender {} carries [{}]", G, G));
  Out.push_back({"rails", "rails", Rails, false});
  // GPUs sharing a NIC: one relay per NIC, from its first GPU to its
  // second one on the other nodes (TACCL's NDv2 sketch, `relay each 0 ->
  // 1`), so the receiving node's NVLinks spread the chunks from another
  // GPU than the one that sent them.
  if (!M.NicGpus.empty() && M.NicGpus.size() < M.GpusPerNode) {
    std::vector<std::string> Each;
    for (const auto &Gpus : M.NicGpus)
      Each.push_back(fmt::format("relay each {} -> {}", Gpus.front(),
                                 Gpus.size() > 1 ? Gpus[1] : Gpus.front()));
    Out.push_back({"relay each per NIC", "each", Each});
  }
  if (Coll != "alltoall")
    Out.push_back({"relay direct, phases across then within nodes",
                   "phases",
                   {"relay direct", "phases across nodes, within nodes"},
                   false});
  if (!M.NicClass.empty())
    Out.push_back({fmt::format("relay direct, contiguous {}", M.NicClass),
                   "contig",
                   {"relay direct", "contiguous " + M.NicClass},
                   true,
                   false,
                   false});
  if (!M.Switches.empty() && !Reducing)
    Out.push_back({"relay direct, uc-min",
                   "ucmin",
                   {"relay direct", "policy " + M.Switches.front() + " uc-min"},
                   false,
                   true,
                   false});
  return Out;
}

/// The families of one node.
std::vector<Family> oneNodeFamilies(const MachineFacts &M) {
  std::vector<Family> Out;
  Out.push_back({"one node", "plain", {}});
  Out.push_back({"2 chunks", "c2", {"chunks 2"}, false});
  for (const char *Policy : {"uc-min", "uc-max"})
    if (!M.Switches.empty())
      Out.push_back(
          {Policy,
           std::string(Policy == llvm::StringRef("uc-min") ? "ucmin" : "ucmax"),
           {"policy " + M.Switches.front() + " " + Policy},
           true,
           true,
           false});
  return Out;
}
} // namespace

std::vector<Candidate>
tune::generateCandidates(const MachineFacts &M, llvm::StringRef Coll,
                         llvm::ArrayRef<SizeBand> Bands) {
  std::vector<Family> Families =
      M.Nodes > 1 ? multiNodeFamilies(M, Coll) : oneNodeFamilies(M);
  std::vector<Candidate> Out;
  for (const SizeBand &B : Bands)
    for (const Family &F : Families) {
      if (!inBand(F, B.Name))
        continue;
      Candidate C;
      C.Name = fmt::format("{}_{}_{}", Coll.str(), B.Name, F.Tag);
      C.Collective = Coll.str();
      C.Band = B.Name;
      C.Family = F.Name;
      std::string Body;
      Body += fmt::format("  collective {}\n", Coll.str());
      Body += B.Lo == B.Hi
                  ? fmt::format("  size {}\n", formatByteSize(B.Lo))
                  : fmt::format("  size {} .. {}\n", formatByteSize(B.Lo),
                                formatByteSize(B.Hi));
      for (const std::string &I : F.Items)
        Body += "  " + I + "\n";
      Body += "  protocol auto\n  symmetry auto\n";
      C.Text = fmt::format("// Written by tacclc tune: {} ({} sizes).\n"
                           "import \"{}\"\n\nsketch {} on {} {{\n{}}}\n",
                           F.Name, B.Name, M.Import, C.Name, M.Call, Body);
      Out.push_back(std::move(C));
    }
  return Out;
}
