//===- frontend/SketchMerge.cpp - Merge the items of a from chain ---------===//
//
// Step 3 of Sema (Sema.cpp), after the `from` chain has been followed: sorts
// the items of every sketch of the chain by how they merge (single items,
// switch policies, and the relay/exclude/sender items that shape the
// logical topology, taken as a group from the most derived sketch that has
// any), reports items repeated within one sketch, and picks the most derived
// of each single item.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"

using namespace tacclc;
using namespace tacclc::ast;

namespace {

/// How a single-valued sketch item is written, for diagnostics.
const char *itemName(Node::Kind K) {
  switch (K) {
  case Node::K_CollectiveItem:
    return "collective";
  case Node::K_ChunksItem:
    return "chunks";
  case Node::K_SizeItem:
    return "size";
  case Node::K_LinksItem:
    return "links";
  case Node::K_ProtocolItem:
    return "protocol";
  case Node::K_PhasesItem:
    return "phases";
  case Node::K_SymmetryItem:
    return "symmetry";
  case Node::K_GapItem:
    return "gap";
  case Node::K_TimeLimitItem:
    return "time limit";
  case Node::K_InstancesItem:
    return "instances";
  case Node::K_ContiguousItem:
    return "contiguous";
  case Node::K_SenderFirstItem:
    return "sender first";
  case Node::K_IdenticalItem:
    return "identical results";
  default:
    return "item";
  }
}

/// Whether \p I is one of the items that shape the logical topology as a
/// group (relay, exclude, sender, relay forms, and loops of them).
bool isTopologyPart(const Node *I) {
  return llvm::isa<PairsItem>(I) || llvm::isa<ForStmt>(I) ||
         llvm::isa<SenderItem>(I) || I->getKind() == Node::K_RelayFormItem;
}

} // namespace

ChainItems tacclc::mergeChainItems(llvm::ArrayRef<const SketchDecl *> Chain) {
  ChainItems Out;
  bool HavePairs = false;
  for (const SketchDecl *D : Chain) {
    bool ThisHasPairs = false;
    for (const auto &I : D->Items) {
      if (isTopologyPart(I.get())) {
        ThisHasPairs = true;
        if (!HavePairs)
          Out.Topo.RelayAndExclude.push_back(I.get());
      } else if (I->getKind() == Node::K_LinksItem) {
        if (!Out.Topo.Links)
          Out.Topo.Links = llvm::cast<LinksItem>(I.get());
      } else if (const auto *P = llvm::dyn_cast<PolicyItem>(I.get())) {
        Out.Policies.push_back(P);
      } else {
        Out.Singles.push_back(I.get());
      }
    }
    HavePairs |= ThisHasPairs;
  }
  return Out;
}

void tacclc::checkDuplicateItems(llvm::ArrayRef<const SketchDecl *> Chain,
                                 DiagnosticEngine &Diags) {
  for (const SketchDecl *D : Chain) {
    const Node *First[Node::K_BinaryExpr + 1] = {};
    llvm::StringMap<const Node *> PolicyFor;
    for (const auto &I : D->Items) {
      if (isTopologyPart(I.get()))
        continue;
      if (const auto *P = llvm::dyn_cast<PolicyItem>(I.get())) {
        auto [It, New] = PolicyFor.try_emplace(P->Switch, P);
        if (!New) {
          Diagnostic &Err =
              Diags.report(DiagId::DuplicatePolicy, P->getRange(), P->Switch);
          Diags.note(Err, DiagId::PreviousDecl, It->second->getRange());
        }
        continue;
      }
      const Node *&Slot = First[I->getKind()];
      if (Slot)
        Diags.report(DiagId::DuplicateItem, I->getRange(),
                     itemName(I->getKind()));
      Slot = I.get();
    }
  }
}

std::vector<const Node *>
tacclc::effectiveItems(const std::vector<const Node *> &Singles) {
  std::vector<const Node *> Effective;
  std::vector<bool> Taken(Node::K_BinaryExpr + 1, false);
  for (const Node *I : Singles)
    if (!Taken[I->getKind()]) {
      Taken[I->getKind()] = true;
      Effective.push_back(I);
    }
  return Effective;
}
