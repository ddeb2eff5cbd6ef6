//===- frontend/Sema.cpp - AST to resolved sketch -------------------------===//
//
// Semantic analysis of one file:
//   1. collect topologies and sketches by name (redefinitions are errors);
//   2. pick the sketch to compile (by name, or the only one);
//   3. resolve its topology (unknown names get a did-you-mean note);
//   4. check the topology: rank count, link endpoints, duplicates, and convert
//      alpha/beta to microseconds and microseconds per byte;
//   5. check the sketch items (collective, chunks, size) and apply defaults
//      (chunks 1, size 1 MB; see docs/language.md).
// Every error points at the offending token. Analysis goes on after an error
// where it can, so one run reports as much as possible.
//
//===----------------------------------------------------------------------===//
#include "frontend/Frontend.h"
#include "frontend/Units.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"

#include <cmath>
#include <map>

using namespace tacclc;
using namespace tacclc::ast;

namespace {
constexpr unsigned MaxRanks = 1024; // MSCCL's tb/peer encodings
constexpr unsigned MaxChunksPerRank = 64;

class Sema {
public:
  explicit Sema(DiagnosticEngine &Diags) : Diags(Diags) {}

  std::optional<ir::Sketch> run(const Module &M, llvm::StringRef Wanted);

private:
  void collect(const Module &M);
  const SketchDecl *pickSketch(const Module &M, llvm::StringRef Wanted);
  const TopologyDecl *resolveTopology(const SketchDecl &S);
  std::optional<ir::Topology> checkTopology(const TopologyDecl &T);
  bool checkLink(const LinkItem &L, const TopologyDecl &T, unsigned NumRanks,
                 ir::Link &Out);
  bool checkSketchItems(const SketchDecl &S, ir::Sketch &Out);
  std::optional<double> checkTime(const Quantity &Q, llvm::StringRef What);
  std::optional<double> checkBeta(const Quantity &Q);
  std::optional<unsigned> checkRank(const IntLit &L, const TopologyDecl &T,
                                    unsigned NumRanks);
  void suggest(Diagnostic &D, llvm::StringRef Name,
               const llvm::StringMap<const Decl *> &Candidates);

  DiagnosticEngine &Diags;
  llvm::StringMap<const Decl *> Topologies;
  llvm::StringMap<const Decl *> Sketches;
  std::vector<const SketchDecl *> SketchOrder;
};
} // namespace

void Sema::collect(const Module &M) {
  for (const auto &D : M.Decls) {
    bool IsSketch = llvm::isa<SketchDecl>(D.get());
    auto &Table = IsSketch ? Sketches : Topologies;
    auto [It, Inserted] = Table.try_emplace(D->Name, D.get());
    if (!Inserted) {
      Diagnostic &Err = Diags.report(DiagId::DuplicateDecl, D->NameRange,
                                     IsSketch ? "sketch" : "topology", D->Name);
      Diags.note(Err, DiagId::PreviousDecl, It->second->NameRange);
      continue;
    }
    if (IsSketch)
      SketchOrder.push_back(llvm::cast<SketchDecl>(D.get()));
  }
}

void Sema::suggest(Diagnostic &D, llvm::StringRef Name,
                   const llvm::StringMap<const Decl *> &Candidates) {
  // The closest name within edit distance 2; ties go to the smaller name.
  const Decl *Best = nullptr;
  unsigned BestDist = 3;
  for (const auto &Entry : Candidates) {
    unsigned Dist = Name.edit_distance(Entry.getKey(), true, BestDist);
    if (Dist < BestDist ||
        (Dist == BestDist && Best && Entry.getKey() < Best->Name)) {
      BestDist = Dist;
      Best = Entry.second;
    }
  }
  if (Best && BestDist < 3)
    Diags.note(D, DiagId::DidYouMean, Best->NameRange, Best->Name);
}

const SketchDecl *Sema::pickSketch(const Module &M, llvm::StringRef Wanted) {
  if (!Wanted.empty()) {
    auto It = Sketches.find(Wanted);
    if (It == Sketches.end()) {
      Diagnostic &D =
          Diags.report(DiagId::UnknownSketch, llvm::SMRange(), Wanted.str());
      suggest(D, Wanted, Sketches);
      return nullptr;
    }
    return llvm::cast<SketchDecl>(It->second);
  }
  if (SketchOrder.empty()) {
    Diags.report(DiagId::NoSketch, llvm::SMRange(),
                 Diags.getSourceMgr()
                     .getMemoryBuffer(M.BufferId)
                     ->getBufferIdentifier()
                     .str());
    return nullptr;
  }
  if (SketchOrder.size() > 1) {
    Diags.report(DiagId::AmbiguousSketch, SketchOrder[1]->NameRange,
                 Diags.getSourceMgr()
                     .getMemoryBuffer(M.BufferId)
                     ->getBufferIdentifier()
                     .str(),
                 SketchOrder.size());
    return nullptr;
  }
  return SketchOrder.front();
}

const TopologyDecl *Sema::resolveTopology(const SketchDecl &S) {
  auto It = Topologies.find(S.Topology);
  if (It != Topologies.end())
    return llvm::cast<TopologyDecl>(It->second);
  Diagnostic &D =
      Diags.report(DiagId::UnknownTopology, S.TopologyRange, S.Topology);
  suggest(D, S.Topology, Topologies);
  return nullptr;
}

std::optional<double> Sema::checkTime(const Quantity &Q, llvm::StringRef What) {
  if (Q.Unit.empty()) {
    Diags.report(DiagId::MissingUnit, Q.NumberRange, What.str(), "0.7 us");
    return std::nullopt;
  }
  auto Scale = timeUnitInUs(Q.Unit);
  if (!Scale) {
    Diags.report(DiagId::WrongUnit, Q.UnitRange, Q.Unit, "time", TimeUnits);
    return std::nullopt;
  }
  if (!(Q.Value >= 0) || !std::isfinite(Q.Value)) {
    Diags.report(DiagId::OutOfRange, Q.NumberRange, What.str(),
                 "zero or positive", Q.Spelling);
    return std::nullopt;
  }
  return Q.Value * *Scale;
}

std::optional<double> Sema::checkBeta(const Quantity &Q) {
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
  return *V;
}

std::optional<unsigned> Sema::checkRank(const IntLit &L, const TopologyDecl &T,
                                        unsigned NumRanks) {
  if (L.Overflow || L.Value >= NumRanks) {
    Diags.report(DiagId::UnknownRank, L.Range, L.Spelling, T.Name,
                 NumRanks - 1);
    return std::nullopt;
  }
  return static_cast<unsigned>(L.Value);
}

bool Sema::checkLink(const LinkItem &L, const TopologyDecl &T,
                     unsigned NumRanks, ir::Link &Out) {
  bool Ok = true;
  auto Src = checkRank(L.Src, T, NumRanks);
  auto Dst = checkRank(L.Dst, T, NumRanks);
  if (Src && Dst && *Src == *Dst) {
    Diags.report(DiagId::SelfLink, L.getRange(), *Src);
    Ok = false;
  }
  std::optional<double> Alpha, Beta;
  const LinkAttr *Seen[2] = {nullptr, nullptr};
  for (const LinkAttr &A : L.Attrs) {
    const char *Name = A.Kind == LinkAttr::Alpha ? "alpha" : "beta";
    if (Seen[A.Kind]) {
      Diags.report(DiagId::DuplicateItem, A.KeywordRange, Name);
      Ok = false;
      continue;
    }
    Seen[A.Kind] = &A;
    if (A.Kind == LinkAttr::Alpha)
      Alpha = checkTime(A.Value, "alpha");
    else
      Beta = checkBeta(A.Value);
    if (!(A.Kind == LinkAttr::Alpha ? Alpha : Beta))
      Ok = false;
  }
  std::string LinkName =
      L.Src.Spelling + (L.Bidirectional ? " <-> " : " -> ") + L.Dst.Spelling;
  for (int K = 0; K < 2; ++K)
    if (!Seen[K]) {
      Diags.report(DiagId::MissingItem, L.getRange(), "link", LinkName,
                   K == 0 ? "alpha" : "beta");
      Ok = false;
    }
  if (!Ok || !Src || !Dst)
    return false;
  Out.Src = ir::RankId(*Src);
  Out.Dst = ir::RankId(*Dst);
  Out.AlphaUs = *Alpha;
  Out.BetaUsPerB = *Beta;
  return true;
}

std::optional<ir::Topology> Sema::checkTopology(const TopologyDecl &T) {
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
  ir::Topology Topo(T.Name, NumRanks);
  bool Ok = true;
  std::map<std::pair<unsigned, unsigned>, const LinkItem *> Seen;
  for (const auto &I : T.Items) {
    const auto *L = llvm::dyn_cast<LinkItem>(I.get());
    if (!L)
      continue;
    ir::Link Link;
    if (!checkLink(*L, T, NumRanks, Link)) {
      Ok = false;
      continue;
    }
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
      Topo.addLink(Dir);
    };
    Add(Link);
    if (L->Bidirectional) {
      std::swap(Link.Src, Link.Dst);
      Add(Link);
    }
  }
  if (!Ok)
    return std::nullopt;
  if (Topo.links().empty()) {
    Diags.report(DiagId::NoLinks, T.NameRange, T.Name);
    return std::nullopt;
  }
  return Topo;
}

bool Sema::checkSketchItems(const SketchDecl &S, ir::Sketch &Out) {
  const CollectiveItem *Coll = nullptr;
  const ChunksItem *Chunks = nullptr;
  const SizeItem *Size = nullptr;
  bool Ok = true;
  auto Once = [&](auto *&Slot, auto *Item, const char *Name) {
    if (Slot) {
      Diags.report(DiagId::DuplicateItem, Item->getRange(), Name);
      Ok = false;
      return;
    }
    Slot = Item;
  };
  for (const auto &I : S.Items) {
    if (auto *C = llvm::dyn_cast<CollectiveItem>(I.get()))
      Once(Coll, C, "collective");
    else if (auto *K = llvm::dyn_cast<ChunksItem>(I.get()))
      Once(Chunks, K, "chunks");
    else if (auto *Z = llvm::dyn_cast<SizeItem>(I.get()))
      Once(Size, Z, "size");
  }
  if (!Coll) {
    Diags.report(DiagId::MissingItem, S.NameRange, "sketch", S.Name,
                 "collective");
    return false;
  }
  auto Kind = ir::parseCollectiveName(Coll->Name);
  if (!Kind) {
    static const char *Later[] = {"alltoall",  "allreduce", "reducescatter",
                                  "broadcast", "reduce",    "gather",
                                  "scatter"};
    bool Known = false;
    for (const char *L : Later)
      Known |= Coll->Name == L;
    Diags.report(Known ? DiagId::UnsupportedCollective
                       : DiagId::UnknownCollective,
                 Coll->NameRange, Coll->Name);
    return false;
  }
  Out.CollectiveLoc = Coll->getRange();

  unsigned PerRank = 1;
  if (Chunks) {
    const IntLit &K = Chunks->Count;
    if (K.Overflow || K.Value < 1 || K.Value > MaxChunksPerRank) {
      Diags.report(DiagId::OutOfRange, K.Range, "chunks",
                   fmt::format("between 1 and {}", MaxChunksPerRank),
                   K.Spelling);
      Ok = false;
    } else {
      PerRank = static_cast<unsigned>(K.Value);
    }
  }

  uint64_t Bytes = 1000000; // documented default: 1 MB
  if (Size) {
    const Quantity &Q = Size->Size;
    if (Q.Unit.empty()) {
      Diags.report(DiagId::MissingUnit, Q.NumberRange, "size", "1 MB");
      Ok = false;
    } else if (auto Scale = sizeUnitInBytes(Q.Unit)) {
      double B = Q.Value * *Scale;
      if (!(B >= 1) || B > 1e15) {
        Diags.report(DiagId::OutOfRange, Q.NumberRange, "size",
                     "between 1 B and 1 PB", Q.Spelling + " " + Q.Unit);
        Ok = false;
      } else if (B != std::floor(B)) {
        Diags.report(DiagId::NotAnInteger, Q.Range, "size in bytes",
                     Q.Spelling + " " + Q.Unit);
        Ok = false;
      } else {
        Bytes = static_cast<uint64_t>(B);
      }
    } else {
      Diags.report(DiagId::WrongUnit, Q.UnitRange, Q.Unit, "size", SizeUnits);
      Ok = false;
    }
  }
  if (!Ok)
    return false;
  Out.Coll = ir::Collective::allGather(Out.Topo.getNumRanks(), PerRank);
  Out.SizeBytes = Bytes;
  return true;
}

std::optional<ir::Sketch> Sema::run(const Module &M, llvm::StringRef Wanted) {
  collect(M);
  // Check every topology, so errors in unused ones are not hidden.
  std::map<const Decl *, std::optional<ir::Topology>> Checked;
  for (const auto &D : M.Decls)
    if (const auto *T = llvm::dyn_cast<TopologyDecl>(D.get()))
      if (Topologies.lookup(T->Name) == T)
        Checked[T] = checkTopology(*T);
  const SketchDecl *S = pickSketch(M, Wanted);
  if (!S || Diags.hasErrors())
    return std::nullopt;
  const TopologyDecl *T = resolveTopology(*S);
  if (!T || !Checked[T])
    return std::nullopt;
  ir::Sketch Out;
  Out.Name = S->Name;
  Out.Loc = S->NameRange;
  Out.Topo = *Checked[T];
  if (!checkSketchItems(*S, Out))
    return std::nullopt;
  return Out;
}

std::optional<ir::Sketch> tacclc::analyzeSketch(const Module &M,
                                                llvm::StringRef SketchName,
                                                DiagnosticEngine &Diags) {
  return Sema(Diags).run(M, SketchName);
}
