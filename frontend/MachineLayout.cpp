//===- frontend/MachineLayout.cpp - NICs and switches of a machine --------===//
//
// Lays out a machine's shared hardware once its shape is known:
//   - NICs: each `nic CLASS [gpus]` is one NIC per node serving those local
//     GPUs (a GPU is served by at most one); a bare `nic CLASS` is one NIC
//     per node for all its GPUs and stands alone;
//   - switches: a list of local GPUs is one switch per node, a list of
//     node:gpu addresses one switch; every ordered pair of members gets a
//     link of the switch's class through it (clashing with a declared link
//     is an error).
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"

#include <algorithm>
#include <climits>

using namespace tacclc;

namespace {
/// The rank of \p G (a local GPU of \p Node, or an address).
std::optional<unsigned> refRank(const GpuRef &G, unsigned Node,
                                const ir::Topology &T,
                                llvm::StringRef MachineName,
                                DiagnosticEngine &Diags) {
  if (G.Node)
    Node = unsigned(std::clamp<int64_t>(*G.Node, 0, INT32_MAX));
  if (G.Node && (*G.Node < 0 || *G.Node >= int64_t(T.getNumNodes()))) {
    Diags.report(DiagId::NodeOutOfRange, G.Range, *G.Node, MachineName.str(),
                 T.getNumNodes() - 1);
    return std::nullopt;
  }
  if (G.Gpu < 0 || G.Gpu >= int64_t(T.getGpusPerNode())) {
    Diags.report(DiagId::GpuOutOfRange, G.Range, G.Gpu, MachineName.str(),
                 T.getGpusPerNode() - 1);
    return std::nullopt;
  }
  return Node * T.getGpusPerNode() + unsigned(G.Gpu);
}
} // namespace

bool tacclc::layOutNics(const std::vector<PendingNic> &Nics, ir::Topology &T,
                        llvm::StringRef MachineName, DiagnosticEngine &Diags) {
  if (Nics.empty())
    return true;
  const unsigned G = T.getGpusPerNode();
  for (size_t I = 0; I < Nics.size() && Nics.size() > 1; ++I)
    if (!Nics[I].Gpus) {
      Diagnostic &D = Diags.report(
          DiagId::WholeNodeNic, Nics[std::max<size_t>(I, 1)].Stmt->getRange(),
          Nics[I].Stmt->Class);
      Diags.note(D, DiagId::PreviousDecl, Nics[0].Stmt->getRange());
      return false;
    }
  // Which statement serves each local GPU.
  std::vector<const PendingNic *> Owner(G, nullptr);
  for (const PendingNic &N : Nics) {
    if (!N.Gpus) {
      for (unsigned Gpu = 0; Gpu < G; ++Gpu)
        Owner[Gpu] = &N;
      continue;
    }
    for (const GpuRef &R : *N.Gpus) {
      if (R.Node) {
        Diags.report(DiagId::NicGpusLocal, R.Range);
        return false;
      }
      if (!refRank(R, 0, T, MachineName, Diags))
        return false;
      if (Owner[R.Gpu]) {
        Diagnostic &D = Diags.report(DiagId::GpuInTwoNics, R.Range, R.Gpu);
        Diags.note(D, DiagId::PreviousDecl, Owner[R.Gpu]->Stmt->getRange());
        return false;
      }
      Owner[R.Gpu] = &N;
    }
  }
  for (unsigned Node = 0; Node < T.getNumNodes(); ++Node)
    for (const PendingNic &N : Nics) {
      ir::Nic Nic;
      Nic.Class = N.Class;
      for (unsigned Gpu = 0; Gpu < G; ++Gpu)
        if (Owner[Gpu] == &N)
          Nic.Ranks.push_back(ir::RankId(Node * G + Gpu));
      T.addNic(std::move(Nic));
    }
  return true;
}

bool tacclc::layOutSwitches(const std::vector<PendingSwitch> &Switches,
                            const std::vector<ir::LinkClass> &Classes,
                            ir::Topology &T, LinkDecls &Seen,
                            llvm::StringRef MachineName,
                            DiagnosticEngine &Diags) {
  for (const PendingSwitch &P : Switches) {
    if (P.Gpus.size() < 2) {
      Diags.report(DiagId::SwitchTooSmall, P.Stmt->NameRange, P.Stmt->Name,
                   P.Gpus.size());
      return false;
    }
    ir::Switch Sw;
    Sw.Name = P.Stmt->Name;
    Sw.Class = P.Class;
    bool Global = P.Gpus.front().Node.has_value();
    for (unsigned Node = 0; Node < (Global ? 1 : T.getNumNodes()); ++Node) {
      std::vector<ir::RankId> Group;
      for (const GpuRef &R : P.Gpus) {
        auto Rank = refRank(R, Node, T, MachineName, Diags);
        if (!Rank)
          return false;
        Group.push_back(ir::RankId(*Rank));
      }
      Sw.Groups.push_back(std::move(Group));
    }
    int Id = T.addSwitch(Sw);
    ir::CostPoint C = Classes[P.Class].costsAt(1e6);
    for (const auto &Group : Sw.Groups)
      for (ir::RankId A : Group)
        for (ir::RankId B : Group) {
          if (A == B)
            continue;
          auto [It, Inserted] = Seen.emplace(
              std::make_pair(A.index(), B.index()), P.Stmt->getRange());
          if (!Inserted) {
            Diagnostic &D =
                Diags.report(DiagId::DuplicateLink, P.Stmt->getRange(),
                             A.index(), B.index());
            Diags.note(D, DiagId::PreviousDecl, It->second);
            return false;
          }
          ir::Link L{A, B, C.AlphaUs, C.BetaUsPerB, P.Class};
          L.Switch = Id;
          T.addLink(L);
        }
  }
  return true;
}
