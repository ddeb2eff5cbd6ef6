//===- frontend/SketchEval.cpp - A sketch's logical topology --------------===//
//
// The logical topology is the part of the machine a sketch lets the
// synthesizer use:
//   1. `links CLASS, ...` keeps the physical links of those classes (default:
//      every physical link);
//   2. `relay a -> b` adds a link between two nodes, costed by the class of
//      the sender's NIC (TACCL's inter-node relay links); `relay each s -> d`
//      adds s -> d between every ordered pair of nodes (TACCL's
//      internode_conn map), `relay direct` adds g -> g and `relay all`
//      every g -> h (TACCL's direct-map and fully-connected);
//   3. `exclude a -> b` removes a link;
//   4. `sender s carries [g, ...]` restricts which GPUs' chunks local GPU s
//      may send to other nodes (TACCL's gpus_to_sender_rev_map);
// these run in source order, inside `for` loops if written so, with `nodes`,
// `gpus` (per node) and `ranks` predefined.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"

#include "llvm/Support/Casting.h"

#include <fmt/format.h>

#include <map>

using namespace tacclc;
using namespace tacclc::ast;

namespace {
class LogicalBuilder {
public:
  LogicalBuilder(const Machine &M, DiagnosticEngine &Diags)
      : M(M), P(M.Physical), Diags(Diags) {
    S.define("nodes", P.getNumNodes(), {});
    S.define("gpus", P.getGpusPerNode(), {});
    S.define("ranks", P.getNumRanks(), {});
  }

  bool selectClasses(const LinksItem *Links);
  void exec(const Node &N);
  std::optional<ir::Topology> finish(llvm::StringRef SketchName,
                                     llvm::SMRange SketchLoc,
                                     RelayRules &Rules);
  bool ok() const { return Ok; }

private:
  void relay(const EndpointPair &Pair);
  void relayEach(const EndpointPair &Pair);
  void relayForm(const FormItem &Item);
  void sender(const SenderItem &Item);
  void addRelay(unsigned A, unsigned B, llvm::SMRange Where);
  bool needNodes(llvm::SMRange Where, llvm::StringRef What);
  void exclude(const EndpointPair &Pair);

  const Machine &M;
  const ir::Topology &P;
  DiagnosticEngine &Diags;
  Scope S;
  bool Ok = true;
  uint64_t Iterations = 0;
  std::vector<ir::Link> Links;
  std::vector<bool> Removed;
  std::map<std::pair<unsigned, unsigned>, size_t> Index;
  std::vector<const SenderItem *> Senders; ///< Per local GPU, or null.
  std::vector<std::vector<bool>> Carries;
  const Node *FirstSender = nullptr;
};
} // namespace

bool LogicalBuilder::selectClasses(const LinksItem *Item) {
  std::vector<bool> Use(P.classes().size(), Item == nullptr);
  if (Item) {
    if (M.IsFlat) {
      Diags.report(DiagId::NoClassesInTopology, Item->getRange(), M.Name);
      return false;
    }
    for (const auto &Name : Item->Classes) {
      size_t C = 0;
      while (C < P.classes().size() && P.classes()[C].Name != Name.Text)
        ++C;
      if (C == P.classes().size()) {
        std::string Close;
        for (const ir::LinkClass &LC : P.classes())
          if (Close.empty() &&
              llvm::StringRef(Name.Text).edit_distance(LC.Name) <= 2)
            Close = LC.Name;
        if (Close.empty())
          Diags.report(DiagId::UnknownClass, Name.Range, M.Name, Name.Text);
        else
          Diags.fixIt(Diags.report(DiagId::UnknownClassSuggest, Name.Range,
                                   M.Name, Name.Text, Close),
                      Name.Range, Close);
        Ok = false;
        continue;
      }
      Use[C] = true;
    }
  }
  for (const ir::Link &L : P.links())
    if (L.Class < 0 || Use[L.Class]) {
      Index[{L.Src.index(), L.Dst.index()}] = Links.size();
      Links.push_back(L);
      Removed.push_back(false);
    }
  return Ok;
}

bool LogicalBuilder::needNodes(llvm::SMRange Where, llvm::StringRef What) {
  if (M.IsFlat) {
    Diags.report(DiagId::RelayNeedsMachine, Where, M.Name);
  } else if (P.nics().empty()) {
    Diags.report(DiagId::NoNicClass, Where, M.Name);
  } else if (P.getNumNodes() < 2) {
    Diags.report(DiagId::RelayNeedsNodes, Where, M.Name, What.str());
  } else {
    return true;
  }
  Ok = false;
  return false;
}

void LogicalBuilder::addRelay(unsigned A, unsigned B, llvm::SMRange Where) {
  ir::RankId RA(A), RB(B);
  if (P.nodeOf(RA) == P.nodeOf(RB)) {
    Diags.report(DiagId::RelayWithinNode, Where, A, B, P.nodeOf(RA));
    Ok = false;
    return;
  }
  for (unsigned R : {A, B})
    if (P.nicOf(ir::RankId(R)) < 0) {
      Diags.report(DiagId::NoNicForGpu, Where, R % P.getGpusPerNode(),
                   R / P.getGpusPerNode());
      Ok = false;
      return;
    }
  auto It = Index.find({A, B});
  if (It != Index.end() && !Removed[It->second]) {
    Diags.report(DiagId::DuplicateLink, Where, A, B);
    Ok = false;
    return;
  }
  int Class = P.nics()[P.nicOf(RA)].Class;
  const ir::LinkClass &C = P.classes()[Class];
  Index[{A, B}] = Links.size();
  Links.push_back({RA, RB, C.AlphaUs, C.BetaUsPerB, Class});
  Removed.push_back(false);
}

void LogicalBuilder::relay(const EndpointPair &Pair) {
  if (!needNodes(Pair.Range, "relay"))
    return;
  auto Src = evalAddress(Pair.Src, S, P, M.Name, Diags);
  auto Dst = evalAddress(Pair.Dst, S, P, M.Name, Diags);
  if (!Src || !Dst) {
    Ok = false;
    return;
  }
  addRelay(*Src, *Dst, Pair.Range);
  if (Pair.Bidirectional && Ok)
    addRelay(*Dst, *Src, Pair.Range);
}

void LogicalBuilder::relayEach(const EndpointPair &Pair) {
  if (!needNodes(Pair.Range, "relay each"))
    return;
  if (Pair.Src.NodeIndex || Pair.Dst.NodeIndex) {
    Diags.report(DiagId::RelayEachLocal, Pair.Range);
    Ok = false;
    return;
  }
  const unsigned G = P.getGpusPerNode(), N = P.getNumNodes();
  std::optional<int64_t> Ends[2] = {evalExpr(*Pair.Src.Gpu, S, Diags),
                                    evalExpr(*Pair.Dst.Gpu, S, Diags)};
  for (int I = 0; I < 2; ++I) {
    if (!Ends[I]) {
      Ok = false;
      return;
    }
    if (*Ends[I] < 0 || *Ends[I] >= int64_t(G)) {
      const Address &A = I == 0 ? Pair.Src : Pair.Dst;
      Diags.report(DiagId::GpuOutOfRange, A.Gpu->getRange(), *Ends[I], M.Name,
                   G - 1);
      Ok = false;
      return;
    }
  }
  for (unsigned From = 0; From < N && Ok; ++From)
    for (unsigned To = 0; To < N && Ok; ++To)
      if (From != To) {
        addRelay(From * G + unsigned(*Ends[0]), To *G + unsigned(*Ends[1]),
                 Pair.Range);
        if (Pair.Bidirectional && Ok)
          addRelay(To * G + unsigned(*Ends[1]), From *G + unsigned(*Ends[0]),
                   Pair.Range);
      }
}

void LogicalBuilder::relayForm(const FormItem &Item) {
  if (!needNodes(Item.getRange(), "relay " + Item.Form))
    return;
  const unsigned G = P.getGpusPerNode(), N = P.getNumNodes();
  bool All = Item.Form == "all";
  for (unsigned From = 0; From < N && Ok; ++From)
    for (unsigned To = 0; To < N && Ok; ++To)
      for (unsigned A = 0; A < G && Ok && From != To; ++A)
        for (unsigned B = All ? 0 : A; B < (All ? G : A + 1) && Ok; ++B)
          addRelay(From * G + A, To * G + B, Item.getRange());
}

void LogicalBuilder::sender(const SenderItem &Item) {
  if (!needNodes(Item.getRange(), "sender"))
    return;
  const unsigned G = P.getGpusPerNode();
  auto Gpu = evalExpr(*Item.Gpu, S, Diags);
  auto Carried = evalGpuList(Item.Carried, S, Diags);
  if (!Gpu || !Carried) {
    Ok = false;
    return;
  }
  if (*Gpu < 0 || *Gpu >= int64_t(G)) {
    Diags.report(DiagId::GpuOutOfRange, Item.Gpu->getRange(), *Gpu, M.Name,
                 G - 1);
    Ok = false;
    return;
  }
  if (Carries.empty()) {
    Carries.assign(G, std::vector<bool>(G, false));
    Senders.assign(G, nullptr);
    FirstSender = &Item;
  }
  if (const SenderItem *Prev = Senders[*Gpu]) {
    Diagnostic &D = Diags.report(DiagId::SenderTwice, Item.getRange(), *Gpu);
    Diags.note(D, DiagId::PreviousDecl, Prev->getRange());
    Ok = false;
    return;
  }
  Senders[*Gpu] = &Item;
  for (const GpuRef &R : *Carried) {
    if (R.Node) {
      Diags.report(DiagId::SenderGpusLocal, R.Range);
      Ok = false;
      return;
    }
    if (R.Gpu < 0 || R.Gpu >= int64_t(G)) {
      Diags.report(DiagId::GpuOutOfRange, R.Range, R.Gpu, M.Name, G - 1);
      Ok = false;
      return;
    }
    Carries[*Gpu][R.Gpu] = true;
  }
}

void LogicalBuilder::exclude(const EndpointPair &Pair) {
  auto Src = evalAddress(Pair.Src, S, P, M.Name, Diags);
  auto Dst = evalAddress(Pair.Dst, S, P, M.Name, Diags);
  if (!Src || !Dst) {
    Ok = false;
    return;
  }
  auto Remove = [&](unsigned A, unsigned B) {
    auto It = Index.find({A, B});
    if (It == Index.end() || Removed[It->second]) {
      Diags.report(DiagId::NoSuchLink, Pair.Range, A, B);
      Ok = false;
      return;
    }
    Removed[It->second] = true;
  };
  Remove(*Src, *Dst);
  if (Pair.Bidirectional)
    Remove(*Dst, *Src);
}

void LogicalBuilder::exec(const Node &N) {
  if (const auto *Pi = llvm::dyn_cast<PairsItem>(&N)) {
    for (const EndpointPair &Pair : Pi->Pairs)
      N.getKind() == Node::K_RelayItem       ? relay(Pair)
      : N.getKind() == Node::K_RelayEachItem ? relayEach(Pair)
                                             : exclude(Pair);
    return;
  }
  if (const auto *Fo = llvm::dyn_cast<FormItem>(&N)) {
    if (N.getKind() == Node::K_RelayFormItem)
      return relayForm(*Fo);
  } else if (const auto *Se = llvm::dyn_cast<SenderItem>(&N)) {
    return sender(*Se);
  }
  const auto *F = llvm::dyn_cast<ForStmt>(&N);
  if (!F) {
    Diags.report(DiagId::ItemInLoop, N.getRange());
    Ok = false;
    return;
  }
  Ok = runLoop(*F, S, Iterations, Diags, [&](const Node &B) {
    exec(B);
    return Ok;
  });
}

std::optional<ir::Topology> LogicalBuilder::finish(llvm::StringRef SketchName,
                                                   llvm::SMRange SketchLoc,
                                                   RelayRules &Rules) {
  if (!Ok)
    return std::nullopt;
  // Every sender needs a way off its node.
  const unsigned G = P.getGpusPerNode();
  std::vector<bool> Leaves(P.getNumRanks(), false);
  for (size_t I = 0; I < Links.size(); ++I)
    if (!Removed[I] && P.nodeOf(Links[I].Src) != P.nodeOf(Links[I].Dst))
      Leaves[Links[I].Src.index()] = true;
  for (unsigned Gpu = 0; Gpu < Senders.size(); ++Gpu) {
    if (!Senders[Gpu])
      continue;
    for (unsigned Node = 0; Node < P.getNumNodes(); ++Node) {
      if (!Leaves[Node * G + Gpu]) {
        Diags.report(DiagId::SenderWithoutLinks, Senders[Gpu]->getRange(),
                     fmt::format("{}:{}", Node, Gpu));
        return std::nullopt;
      }
    }
  }
  Rules.Carries = std::move(Carries);
  Rules.FirstSender = FirstSender;
  ir::Topology T =
      M.IsFlat ? ir::Topology(M.Name, P.getNumRanks())
               : ir::Topology(M.Name, P.getNumNodes(), P.getGpusPerNode());
  for (const ir::LinkClass &C : P.classes())
    T.addClass(C);
  for (const ir::Switch &Sw : P.switches())
    T.addSwitch(Sw);
  for (const ir::Nic &N : P.nics())
    T.addNic(N);
  for (size_t I = 0; I < Links.size(); ++I)
    if (!Removed[I])
      T.addLink(Links[I]);
  if (T.links().empty()) {
    Diags.report(DiagId::NoLogicalLinks, SketchLoc, SketchName.str());
    return std::nullopt;
  }
  return T;
}

std::optional<ir::Topology> tacclc::buildLogicalTopology(
    const Machine &M, const TopologyItems &Items, llvm::StringRef SketchName,
    llvm::SMRange SketchLoc, DiagnosticEngine &Diags, RelayRules &Rules) {
  LogicalBuilder B(M, Diags);
  if (!B.selectClasses(Items.Links))
    return std::nullopt;
  for (const Node *N : Items.RelayAndExclude)
    if (B.ok())
      B.exec(*N);
  return B.finish(SketchName, SketchLoc, Rules);
}
