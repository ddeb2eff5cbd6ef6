//===- frontend/TopologySema.cpp - Costs, addresses and flat topologies ---===//
//
// Shared checks of physical descriptions: alpha/beta quantities with their
// units, exactly-once cost attributes, GPU addresses (`node:gpu` or a flat
// rank) against a machine's shape, bounded `for` loops, sizes, per-size
// cost profiles, GPU lists (`[0, 2 .. 4]`), and the flat `topology` form
// with numbered ranks and explicit links; and two reports with their fix:
// an unknown link class (the closest name suggested) and a link repeated by
// a loop whose variable it does not use.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"
#include "frontend/Units.h"
#include "support/Suggest.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace tacclc;
using namespace tacclc::ast;

/// The largest alpha accepted, in microseconds (about 11.6 days).
static constexpr double MaxTimeUs = 1e12;

std::optional<double> tacclc::checkTime(const Quantity &Q, llvm::StringRef What,
                                        DiagnosticEngine &Diags) {
  if (Q.Unit.empty()) {
    Diags.report(DiagId::MissingUnit, Q.NumberRange, What.str(), "0.7 us");
    return std::nullopt;
  }
  auto Scale = timeUnitInUs(Q.Unit);
  if (!Scale) {
    Diags.report(DiagId::WrongUnit, Q.UnitRange, Q.Unit, "time", TimeUnits);
    return std::nullopt;
  }
  double Us = Q.Value * *Scale;
  if (!(Q.Value >= 0) || !std::isfinite(Q.Value)) {
    Diags.report(DiagId::OutOfRange, Q.NumberRange, What.str(),
                 "zero or positive", Q.Spelling);
    return std::nullopt;
  }
  if (!(Us <= MaxTimeUs)) {
    Diags.report(DiagId::OutOfRange, Q.Range, What.str(), "at most 10^12 us",
                 Q.Spelling + " " + Q.Unit);
    return std::nullopt;
  }
  return Us;
}

std::optional<double> tacclc::checkBeta(const Quantity &Q,
                                        DiagnosticEngine &Diags) {
  if (Q.Unit.empty()) {
    Diags.report(DiagId::MissingUnit, Q.NumberRange, "beta", "46 us/MB");
    return std::nullopt;
  }
  if (!(Q.Value > 0) || !std::isfinite(Q.Value)) {
    Diags.report(DiagId::OutOfRange, Q.NumberRange, "beta", "positive",
                 Q.Spelling);
    return std::nullopt;
  }
  auto V = toUsPerByte(Q.Value, Q.Unit);
  if (!V) {
    Diags.report(DiagId::WrongUnit, Q.UnitRange, Q.Unit,
                 "inverse bandwidth or bandwidth", BetaUnits);
    return std::nullopt;
  }
  // Keep costs in a range where sums and the solver's arithmetic stay exact
  // enough: between 1 us/TB (10^6 TB/s) and 1 s/B.
  if (!(*V >= 1e-12 && *V <= 1e6)) {
    Diags.report(DiagId::OutOfRange, Q.Range, "beta",
                 "between 1 us/TB and 1 s/B", Q.Spelling + " " + Q.Unit);
    return std::nullopt;
  }
  return *V;
}

bool tacclc::checkCosts(const std::vector<LinkAttr> &Attrs, llvm::SMRange Owner,
                        llvm::StringRef Kind, llvm::StringRef What,
                        DiagnosticEngine &Diags, double &AlphaUs,
                        double &BetaUsPerB) {
  bool Ok = true;
  std::optional<double> Alpha, Beta;
  const LinkAttr *Seen[2] = {nullptr, nullptr};
  for (const LinkAttr &A : Attrs) {
    const char *Name = A.Kind == LinkAttr::Alpha ? "alpha" : "beta";
    if (Seen[A.Kind]) {
      Diags.report(DiagId::DuplicateItem, A.KeywordRange, Name);
      Ok = false;
      continue;
    }
    Seen[A.Kind] = &A;
    if (A.Kind == LinkAttr::Alpha)
      Alpha = checkTime(A.Value, "alpha", Diags);
    else
      Beta = checkBeta(A.Value, Diags);
    if (!(A.Kind == LinkAttr::Alpha ? Alpha : Beta))
      Ok = false;
  }
  for (int K = 0; K < 2; ++K)
    if (!Seen[K]) {
      Diags.report(DiagId::MissingItem, Owner, Kind.str(), What.str(),
                   K == 0 ? "alpha" : "beta");
      Ok = false;
    }
  if (!Ok)
    return false;
  AlphaUs = *Alpha;
  BetaUsPerB = *Beta;
  return true;
}

void tacclc::reportUnknownClass(llvm::StringRef MachineName,
                                llvm::StringRef Name, llvm::SMRange Range,
                                llvm::ArrayRef<ir::LinkClass> Classes,
                                DiagnosticEngine &Diags) {
  std::vector<llvm::StringRef> Names;
  for (const ir::LinkClass &LC : Classes)
    Names.push_back(LC.Name);
  std::string Close = closestName(Name, Names);
  if (Close.empty())
    Diags.report(DiagId::UnknownClass, Range, MachineName.str(), Name.str());
  else
    Diags.fixIt(Diags.report(DiagId::UnknownClassSuggest, Range,
                             MachineName.str(), Name.str(), Close),
                Range, Close);
}

const ForStmt *tacclc::loopNotUsedBy(llvm::ArrayRef<const ForStmt *> Loops,
                                     const EndpointPair &P) {
  for (auto It = Loops.rbegin(); It != Loops.rend(); ++It)
    if (!mentionsName(P.Src, (*It)->Var) && !mentionsName(P.Dst, (*It)->Var))
      return *It;
  return nullptr;
}

void tacclc::reportLinkRepeatedByLoop(const ForStmt &F, const EndpointPair &P,
                                      unsigned Src, unsigned Dst,
                                      DiagnosticEngine &Diags) {
  Diagnostic &D =
      Diags.report(DiagId::LinkIgnoresLoop, P.Range, F.Var, Src, Dst);
  // A loop over the nodes is meant to give each node the link: the same
  // GPUs, on node VAR.
  auto OnNode = [&](const Address &A) {
    return F.Var + ":" + printExpr(*A.Gpu);
  };
  if (mentionsName(*F.Hi, "nodes"))
    Diags.note(D, DiagId::DidYouMean, P.Range,
               OnNode(P.Src) + (P.Bidirectional ? " <-> " : " -> ") +
                   OnNode(P.Dst));
  else
    Diags.note(D, DiagId::UseLoopVariable, F.VarRange, F.Var);
}

std::optional<unsigned> tacclc::evalAddress(const Address &A, const Scope &S,
                                            const ir::Topology &T,
                                            llvm::StringRef MachineName,
                                            DiagnosticEngine &Diags) {
  auto Gpu = evalExpr(*A.Gpu, S, Diags);
  if (!A.NodeIndex) {
    if (!Gpu)
      return std::nullopt;
    if (*Gpu < 0 || *Gpu >= int64_t(T.getNumRanks())) {
      Diags.report(DiagId::RankOutOfRange, A.Gpu->getRange(), *Gpu,
                   MachineName.str(), T.getNumRanks() - 1);
      return std::nullopt;
    }
    return static_cast<unsigned>(*Gpu);
  }
  auto Node = evalExpr(*A.NodeIndex, S, Diags);
  if (!Node || !Gpu)
    return std::nullopt;
  bool Ok = true;
  if (*Node < 0 || *Node >= int64_t(T.getNumNodes())) {
    Diags.report(DiagId::NodeOutOfRange, A.NodeIndex->getRange(), *Node,
                 MachineName.str(), T.getNumNodes() - 1);
    Ok = false;
  }
  if (*Gpu < 0 || *Gpu >= int64_t(T.getGpusPerNode())) {
    Diags.report(DiagId::GpuOutOfRange, A.Gpu->getRange(), *Gpu,
                 MachineName.str(), T.getGpusPerNode() - 1);
    Ok = false;
  }
  if (!Ok)
    return std::nullopt;
  return static_cast<unsigned>(*Node * T.getGpusPerNode() + *Gpu);
}

std::optional<Machine> tacclc::checkFlatTopology(const TopologyDecl &T,
                                                 DiagnosticEngine &Diags) {
  const RanksItem *Ranks = nullptr;
  for (const auto &I : T.Items)
    if (const auto *R = llvm::dyn_cast<RanksItem>(I.get())) {
      if (Ranks) {
        Diags.report(DiagId::DuplicateItem, R->getRange(), "ranks");
        return std::nullopt;
      }
      Ranks = R;
    }
  if (!Ranks) {
    Diags.report(DiagId::MissingItem, T.NameRange, "topology", T.Name, "ranks");
    return std::nullopt;
  }
  if (Ranks->Count.Value < 2) {
    Diags.report(DiagId::RankCountTooSmall, Ranks->Count.Range,
                 Ranks->Count.Spelling);
    return std::nullopt;
  }
  if (Ranks->Count.Overflow || Ranks->Count.Value > MaxRanks) {
    Diags.report(DiagId::RankCountTooLarge, Ranks->Count.Range,
                 Ranks->Count.Spelling, MaxRanks);
    return std::nullopt;
  }
  unsigned NumRanks = static_cast<unsigned>(Ranks->Count.Value);
  Machine M;
  M.Name = T.Name;
  M.NameRange = T.NameRange;
  M.IsFlat = true;
  M.Physical = ir::Topology(T.Name, NumRanks);
  bool Ok = true;
  std::map<std::pair<unsigned, unsigned>, const LinkItem *> Seen;
  for (const auto &I : T.Items) {
    const auto *L = llvm::dyn_cast<LinkItem>(I.get());
    if (!L)
      continue;
    std::optional<unsigned> Ends[2];
    const IntLit *Lits[2] = {&L->Src, &L->Dst};
    for (int E = 0; E < 2; ++E) {
      if (Lits[E]->Overflow || Lits[E]->Value >= NumRanks)
        Diags.report(DiagId::UnknownRank, Lits[E]->Range, Lits[E]->Spelling,
                     T.Name, NumRanks - 1);
      else
        Ends[E] = static_cast<unsigned>(Lits[E]->Value);
    }
    bool LinkOk = Ends[0] && Ends[1];
    if (LinkOk && *Ends[0] == *Ends[1]) {
      Diags.report(DiagId::SelfLink, L->getRange(), *Ends[0]);
      LinkOk = false;
    }
    std::string Name = L->Src.Spelling + (L->Bidirectional ? " <-> " : " -> ") +
                       L->Dst.Spelling;
    ir::Link Link;
    if (!checkCosts(L->Attrs, L->getRange(), "link", Name, Diags, Link.AlphaUs,
                    Link.BetaUsPerB) ||
        !LinkOk) {
      Ok = false;
      continue;
    }
    Link.Src = ir::RankId(*Ends[0]);
    Link.Dst = ir::RankId(*Ends[1]);
    auto Add = [&](ir::Link Dir) {
      auto Key = std::make_pair(Dir.Src.index(), Dir.Dst.index());
      auto [It, Inserted] = Seen.emplace(Key, L);
      if (!Inserted) {
        Diagnostic &D = Diags.report(DiagId::DuplicateLink, L->getRange(),
                                     Key.first, Key.second);
        Diags.note(D, DiagId::PreviousDecl, It->second->getRange());
        Ok = false;
        return;
      }
      M.Physical.addLink(Dir);
    };
    Add(Link);
    if (L->Bidirectional) {
      std::swap(Link.Src, Link.Dst);
      Add(Link);
    }
  }
  if (!Ok)
    return std::nullopt;
  return M;
}

bool tacclc::runLoop(const ForStmt &F, Scope &S, uint64_t &Iterations,
                     DiagnosticEngine &Diags,
                     llvm::function_ref<bool(const Node &)> Body) {
  auto Lo = evalExpr(*F.Lo, S, Diags), Hi = evalExpr(*F.Hi, S, Diags);
  if (!Lo || !Hi)
    return false;
  // A range longer than what is left of the budget is refused before its
  // first iteration (the difference of two int64 values fits in uint64).
  if (*Hi > *Lo && Iterations <= MaxLoopIterations &&
      uint64_t(*Hi) - uint64_t(*Lo) > MaxLoopIterations - Iterations) {
    Diags.report(DiagId::TooManyIterations, F.getRange(), MaxLoopIterations);
    return false;
  }
  for (int64_t I = *Lo; I < *Hi; ++I) {
    if (++Iterations > MaxLoopIterations || S.work() > MaxEvalWork) {
      Diags.report(DiagId::TooManyIterations, F.getRange(), MaxLoopIterations);
      return false;
    }
    S.push();
    bool Ok = S.define(F.Var, I, F.VarRange);
    if (!Ok)
      Diags.report(DiagId::Redefinition, F.VarRange, F.Var);
    for (const auto &B : F.Body)
      if (Ok)
        Ok = Body(*B);
    S.pop();
    if (!Ok)
      return false;
  }
  return true;
}

std::optional<uint64_t> tacclc::checkSizeBytes(const Quantity &Q,
                                               llvm::StringRef What,
                                               DiagnosticEngine &Diags) {
  if (Q.Unit.empty()) {
    Diags.report(DiagId::MissingUnit, Q.NumberRange, What.str(), "1 MB");
    return std::nullopt;
  }
  auto Scale = sizeUnitInBytes(Q.Unit);
  if (!Scale) {
    if (bitUnitInBytes(Q.Unit))
      Diags.report(DiagId::SizeInBits, Q.UnitRange, Q.Unit, What.str(),
                   byteUnitFor(Q.Unit));
    else
      Diags.report(DiagId::WrongUnit, Q.UnitRange, Q.Unit, What.str(),
                   llvm::join(sizeUnitNames(), ", "));
    return std::nullopt;
  }
  double B = Q.Value * *Scale;
  if (!(B >= 1) || B > 1e15) {
    Diags.report(DiagId::OutOfRange, Q.NumberRange, What.str(),
                 "between 1 B and 1 PB", Q.Spelling + " " + Q.Unit);
    return std::nullopt;
  }
  if (B != std::floor(B)) {
    Diags.report(DiagId::NotAnInteger, Q.Range, What.str() + " in bytes",
                 Q.Spelling + " " + Q.Unit);
    return std::nullopt;
  }
  return static_cast<uint64_t>(B);
}

bool tacclc::checkProfile(const ClassStmt &Stmt, ir::LinkClass &C,
                          DiagnosticEngine &Diags) {
  if (Stmt.Profile.empty())
    return true;
  if (!Stmt.Attrs.empty()) {
    Diags.report(DiagId::ProfileAndCosts, Stmt.Attrs.front().KeywordRange,
                 Stmt.Name);
    return false;
  }
  bool Ok = true;
  std::vector<std::pair<ir::CostPoint, const ProfilePoint *>> Points;
  for (const ProfilePoint &P : Stmt.Profile) {
    auto Bytes = checkSizeBytes(P.Size, "a measurement size", Diags);
    ir::CostPoint Pt;
    if (!Bytes || !checkCosts(P.Attrs, P.Range, "measurement of class",
                              Stmt.Name, Diags, Pt.AlphaUs, Pt.BetaUsPerB)) {
      Ok = false;
      continue;
    }
    Pt.Bytes = double(*Bytes);
    for (const auto &[Prev, Where] : Points)
      if (Prev.Bytes == Pt.Bytes) {
        Diagnostic &D = Diags.report(DiagId::DuplicateProfileSize, P.Size.Range,
                                     Stmt.Name, *Bytes);
        Diags.note(D, DiagId::PreviousDecl, Where->Size.Range);
        Ok = false;
      }
    Points.push_back({Pt, &P});
  }
  if (!Ok)
    return false;
  std::stable_sort(Points.begin(), Points.end(),
                   [](const auto &A, const auto &B) {
                     return A.first.Bytes < B.first.Bytes;
                   });
  for (const auto &P : Points)
    C.Profile.push_back(P.first);
  ir::CostPoint At1MB = C.costsAt(1e6);
  C.AlphaUs = At1MB.AlphaUs;
  C.BetaUsPerB = At1MB.BetaUsPerB;
  return true;
}

std::optional<std::vector<GpuRef>>
tacclc::evalGpuList(const GpuList &L, const Scope &S, DiagnosticEngine &Diags) {
  std::vector<GpuRef> Out;
  std::set<std::pair<int64_t, int64_t>> Seen;
  std::optional<bool> Addressed;
  for (const GpuListElem &E : L) {
    bool HasNode = E.First.NodeIndex != nullptr;
    if (Addressed && *Addressed != HasNode) {
      Diags.report(DiagId::MixedGpuList, E.Range);
      return std::nullopt;
    }
    Addressed = HasNode;
    if (E.Last && HasNode) {
      Diags.report(DiagId::RangeNeedsLocal, E.Range);
      return std::nullopt;
    }
    auto Gpu = evalExpr(*E.First.Gpu, S, Diags);
    std::optional<int64_t> Node;
    if (HasNode && !(Node = evalExpr(*E.First.NodeIndex, S, Diags)))
      return std::nullopt;
    if (!Gpu)
      return std::nullopt;
    // The number of GPUs, not the end: `*Gpu + 1` and `*Last - *Gpu` can
    // overflow int64_t. Last > Gpu makes the unsigned difference exact.
    uint64_t Count = 1;
    if (E.Last) {
      auto Last = evalExpr(*E.Last, S, Diags);
      if (!Last)
        return std::nullopt;
      if (*Last <= *Gpu) {
        Diags.report(DiagId::EmptyGpuList, E.Range, *Gpu, *Last);
        return std::nullopt;
      }
      Count = uint64_t(*Last) - uint64_t(*Gpu);
      if (Count > MaxRanks) {
        Diags.report(DiagId::OutOfRange, E.Range, "a GPU range",
                     fmt::format("at most {} GPUs long", MaxRanks),
                     fmt::format("{}..{}", *Gpu, *Last));
        return std::nullopt;
      }
    }
    for (uint64_t I = 0; I < Count; ++I) {
      int64_t G = *Gpu + int64_t(I);
      if (!Seen.insert({Node.value_or(-1), G}).second) {
        Diags.report(DiagId::DuplicateGpu, E.Range,
                     Node ? fmt::format("{}:{}", *Node, G) : std::to_string(G));
        return std::nullopt;
      }
      Out.push_back({Node, G, E.Range});
    }
  }
  return Out;
}
