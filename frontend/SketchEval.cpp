//===- frontend/SketchEval.cpp - A sketch's logical topology --------------===//
//
// The logical topology is the part of the machine a sketch lets the
// synthesizer use:
//   1. `links CLASS, ...` keeps the physical links of those classes (default:
//      every physical link);
//   2. `relay a -> b` adds a link between two nodes with the machine's `nic`
//      class cost (TACCL's inter-node relay links);
//   3. `exclude a -> b` removes a link;
// relay and exclude run in source order, inside `for` loops if written so,
// with `nodes`, `gpus` (per node) and `ranks` predefined.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"

#include "llvm/Support/Casting.h"

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
                                     llvm::SMRange SketchLoc);
  bool ok() const { return Ok; }

private:
  void relay(const EndpointPair &Pair);
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
          Diags.report(DiagId::UnknownClassSuggest, Name.Range, M.Name,
                       Name.Text, Close);
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

void LogicalBuilder::relay(const EndpointPair &Pair) {
  if (M.IsFlat) {
    Diags.report(DiagId::RelayNeedsMachine, Pair.Range, M.Name);
    Ok = false;
    return;
  }
  if (M.NicClass < 0) {
    Diags.report(DiagId::NoNicClass, Pair.Range, M.Name);
    Ok = false;
    return;
  }
  auto Src = evalAddress(Pair.Src, S, P, M.Name, Diags);
  auto Dst = evalAddress(Pair.Dst, S, P, M.Name, Diags);
  if (!Src || !Dst) {
    Ok = false;
    return;
  }
  const ir::LinkClass &Nic = P.classes()[M.NicClass];
  auto Add = [&](unsigned A, unsigned B) {
    if (P.nodeOf(ir::RankId(A)) == P.nodeOf(ir::RankId(B))) {
      Diags.report(DiagId::RelayWithinNode, Pair.Range, A, B,
                   P.nodeOf(ir::RankId(A)));
      Ok = false;
      return;
    }
    auto It = Index.find({A, B});
    if (It != Index.end() && !Removed[It->second]) {
      Diags.report(DiagId::DuplicateLink, Pair.Range, A, B);
      Ok = false;
      return;
    }
    Index[{A, B}] = Links.size();
    Links.push_back({ir::RankId(A), ir::RankId(B), Nic.AlphaUs, Nic.BetaUsPerB,
                     M.NicClass});
    Removed.push_back(false);
  };
  Add(*Src, *Dst);
  if (Pair.Bidirectional)
    Add(*Dst, *Src);
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
      N.getKind() == Node::K_RelayItem ? relay(Pair) : exclude(Pair);
    return;
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
                                                   llvm::SMRange SketchLoc) {
  if (!Ok)
    return std::nullopt;
  ir::Topology T =
      M.IsFlat ? ir::Topology(M.Name, P.getNumRanks())
               : ir::Topology(M.Name, P.getNumNodes(), P.getGpusPerNode());
  for (const ir::LinkClass &C : P.classes())
    T.addClass(C);
  for (size_t I = 0; I < Links.size(); ++I)
    if (!Removed[I])
      T.addLink(Links[I]);
  if (T.links().empty()) {
    Diags.report(DiagId::NoLogicalLinks, SketchLoc, SketchName.str());
    return std::nullopt;
  }
  return T;
}

std::optional<ir::Topology>
tacclc::buildLogicalTopology(const Machine &M, const TopologyItems &Items,
                             llvm::StringRef SketchName,
                             llvm::SMRange SketchLoc, DiagnosticEngine &Diags) {
  LogicalBuilder B(M, Diags);
  if (!B.selectClasses(Items.Links))
    return std::nullopt;
  for (const Node *N : Items.RelayAndExclude)
    if (B.ok())
      B.exec(*N);
  return B.finish(SketchName, SketchLoc);
}
