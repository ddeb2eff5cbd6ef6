//===- frontend/SymbolIndex.cpp - Names and what they refer to ------------===//
//
// buildSymbolIndex() (SymbolIndex.h) in two walks over every module's AST:
// first the declarations (with the parameters, definitions, classes and
// switches of machines, loops included), then the references, resolved with
// the same rules as Sema::lookup. A hover's detail is the comment lines right
// above a declaration, then what it is and its numbers as written.
//
//===----------------------------------------------------------------------===//
#include "frontend/SymbolIndex.h"
#include "frontend/LineTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ast;

namespace {

std::string quantity(const Quantity &Q) {
  return Q.Spelling + (Q.Unit.empty() ? "" : " " + Q.Unit);
}

std::string costs(const std::vector<LinkAttr> &Attrs) {
  std::string Out;
  for (const LinkAttr &A : Attrs)
    Out += (Out.empty() ? "" : ", ") +
           std::string(A.Kind == LinkAttr::Alpha ? "alpha " : "beta ") +
           quantity(A.Value);
  return Out;
}

/// The `//` lines right above line \p Line of \p Lines, without the
/// slashes.
std::string commentAbove(const LineTable &Lines, size_t Line) {
  std::vector<llvm::StringRef> Found;
  for (; Line > 0; --Line) {
    const char *Start = Lines.lineStart(Line - 1);
    llvm::StringRef Text(Start, size_t(Lines.lineStart(Line) - 1 - Start));
    Text = Text.trim();
    if (!Text.startswith("//"))
      break;
    Found.push_back(Text.drop_front(2).trim());
  }
  std::string Out;
  for (auto It = Found.rbegin(); It != Found.rend(); ++It)
    Out += It->str() + "\n";
  return Out;
}

class Indexer {
public:
  Indexer(const ModuleSet &Set, const llvm::SourceMgr &SM)
      : Set(Set), SM(SM), TopLevel(Set.Modules.size()) {}

  SymbolIndex run() {
    for (unsigned M = 0; M < Set.Modules.size(); ++M)
      for (const auto &D : Set.Modules[M].Ast->Decls)
        declare(M, *D);
    for (unsigned M = 0; M < Set.Modules.size(); ++M) {
      const SourceModule &Mod = Set.Modules[M];
      for (size_t I = 0; I < Mod.Ast->Imports.size(); ++I)
        if (Mod.Imports.size() == Mod.Ast->Imports.size())
          Ix.Imports.push_back(
              {Mod.Ast->Imports[I]->PathRange, Mod.Imports[I]});
      for (const auto &D : Mod.Ast->Decls)
        refer(M, *D);
    }
    return std::move(Ix);
  }

private:
  const ModuleSet &Set;
  const llvm::SourceMgr &SM;
  SymbolIndex Ix;
  std::vector<llvm::StringMap<unsigned>> TopLevel;
  /// Per machine: its classes and its switches (two name spaces, as in
  /// Sema).
  std::map<unsigned, llvm::StringMap<unsigned>> Classes, Switches;
  std::map<const Decl *, unsigned> IndexOf;
  /// The top-level declaration behind each index (null for members).
  std::vector<const Decl *> NodeOf;
  /// The lines of each buffer, by buffer.
  std::map<unsigned, LineTable> Lines;
  /// commentAbove's answers, by the start of the line asked about.
  llvm::DenseMap<const char *, std::string> Comments;
  /// machineOf's answers.
  llvm::DenseMap<const SketchDecl *, int> MachineOfSketch;

  /// The comment right above the line of \p Loc, once per line (several
  /// declarations may share one).
  const std::string &comment(llvm::SMLoc Loc) {
    static const std::string None;
    unsigned Buf = SM.FindBufferContainingLoc(Loc);
    if (!Buf)
      return None;
    const LineTable &Table =
        Lines.try_emplace(Buf, SM.getMemoryBuffer(Buf)->getBuffer())
            .first->second;
    size_t Line = Table.lineOf(Loc.getPointer());
    auto [It, New] = Comments.try_emplace(Table.lineStart(Line));
    if (New)
      It->second = commentAbove(Table, Line);
    return It->second;
  }

  unsigned add(SymbolDecl D) {
    Ix.Decls.push_back(std::move(D));
    return unsigned(Ix.Decls.size() - 1);
  }

  void declare(unsigned M, const Decl &D) {
    SymbolDecl S;
    S.Name = D.Name;
    S.Module = M;
    S.NameRange = D.NameRange;
    S.Range = D.getRange();
    std::string Doc = comment(D.getLoc());
    if (const auto *Mc = llvm::dyn_cast<MachineDecl>(&D)) {
      S.Kind = SymbolDecl::Machine;
      std::string Head = "machine " + D.Name + "(";
      for (size_t I = 0; I < Mc->Params.size(); ++I) {
        const Param &P = Mc->Params[I];
        Head += (I ? ", " : "") + P.Name +
                (P.Type.empty() ? "" : ": " + P.Type) +
                (P.Default ? " = " + printExpr(*P.Default) : "");
      }
      S.Detail = Head + ")";
    } else if (llvm::isa<TopologyDecl>(&D)) {
      S.Kind = SymbolDecl::Topology;
      unsigned Ranks = 0, Links = 0;
      for (const auto &Item : D.Items) {
        if (const auto *R = llvm::dyn_cast<RanksItem>(Item.get()))
          Ranks = unsigned(R->Count.Value);
        if (const auto *L = llvm::dyn_cast<LinkItem>(Item.get()))
          Links += L->Bidirectional ? 2 : 1;
      }
      S.Detail = "topology " + D.Name + ": " + std::to_string(Ranks) +
                 " ranks, " + std::to_string(Links) + " links";
    } else if (const auto *Sk = llvm::dyn_cast<SketchDecl>(&D)) {
      S.Kind = SymbolDecl::Sketch;
      S.Detail = "sketch " + D.Name;
      if (Sk->Target) {
        S.Detail += " on " + Sk->Target->str();
        std::string Args;
        for (const Arg &A : Sk->Args)
          Args += (Args.empty() ? "" : ", ") +
                  (A.Name.empty() ? "" : A.Name + ": ") + printExpr(*A.Value);
        if (!Sk->Args.empty())
          S.Detail += "(" + Args + ")";
      } else if (Sk->Base) {
        S.Detail += " from " + Sk->Base->str();
      }
      for (const auto &Item : D.Items) {
        if (const auto *C = llvm::dyn_cast<CollectiveItem>(Item.get()))
          S.Detail += "\ncollective " + C->Name;
        if (const auto *Z = llvm::dyn_cast<SizeItem>(Item.get()))
          S.Detail += "\nsize " + quantity(Z->Size);
      }
    }
    if (!Doc.empty())
      S.Detail = S.Detail + "\n\n" + Doc;
    unsigned Index = add(std::move(S));
    IndexOf[&D] = Index;
    NodeOf.resize(Ix.Decls.size(), nullptr);
    NodeOf[Index] = &D;
    TopLevel[M].try_emplace(D.Name, Index);
    if (const auto *Mc = llvm::dyn_cast<MachineDecl>(&D)) {
      for (const Param &P : Mc->Params)
        declareParam(M, Index, P);
      for (const auto &St : D.Items)
        declareMember(M, Index, *St);
    }
  }

  void declareParam(unsigned M, unsigned Machine, const Param &P) {
    SymbolDecl S;
    S.Kind = SymbolDecl::Param;
    S.Name = P.Name;
    S.Module = M;
    S.Parent = int(Machine);
    S.NameRange = S.Range = P.NameRange;
    S.Detail = "parameter " + P.Name + (P.Type.empty() ? "" : ": " + P.Type) +
               (P.Default ? " = " + printExpr(*P.Default) : "") + " (machine " +
               Ix.Decls[Machine].Name + ")";
    add(std::move(S));
  }

  void declareMember(unsigned M, unsigned Machine, const Node &N) {
    SymbolDecl S;
    S.Module = M;
    S.Parent = int(Machine);
    S.Range = N.getRange();
    const std::string &Of = Ix.Decls[Machine].Name;
    if (const auto *C = llvm::dyn_cast<ClassStmt>(&N)) {
      S.Kind = SymbolDecl::Class;
      S.Name = C->Name;
      S.NameRange = C->NameRange;
      S.Detail =
          "class " + C->Name + " (machine " + Of + ")\n" + costs(C->Attrs);
      for (const ProfilePoint &P : C->Profile)
        S.Detail += "\nat " + quantity(P.Size) + ": " + costs(P.Attrs);
    } else if (const auto *Sw = llvm::dyn_cast<SwitchStmt>(&N)) {
      S.Kind = SymbolDecl::Switch;
      S.Name = Sw->Name;
      S.NameRange = Sw->NameRange;
      S.Detail = "switch " + Sw->Name + " of class " + Sw->Class +
                 " (machine " + Of + ")";
    } else if (const auto *L = llvm::dyn_cast<LetStmt>(&N)) {
      S.Kind = SymbolDecl::Let;
      S.Name = L->Name;
      S.NameRange = L->NameRange;
      S.Detail =
          L->Name + " = " + printExpr(*L->Value) + " (machine " + Of + ")";
    } else if (const auto *F = llvm::dyn_cast<ForStmt>(&N)) {
      for (const auto &B : F->Body)
        declareMember(M, Machine, *B);
      return;
    } else {
      return;
    }
    std::string Doc = comment(N.getLoc());
    if (!Doc.empty())
      S.Detail += "\n\n" + Doc;
    std::string Name = S.Name;
    const SymbolDecl::KindT Kind = S.Kind;
    unsigned Index = add(std::move(S));
    if (Kind != SymbolDecl::Let)
      (Kind == SymbolDecl::Class ? Classes : Switches)[Machine].try_emplace(
          Name, Index);
  }

  /// Sema's lookup: `module.name`, else the module, else one import.
  int lookup(unsigned From, const QualifiedName &Q) {
    const SourceModule &Mod = Set.Modules[From];
    if (!Q.Module.empty()) {
      // As Sema: the module itself, then its imports, the last match wins.
      int Target = Set.Modules[From].Name == Q.Module ? int(From) : -1;
      for (unsigned Imp : Mod.Imports)
        if (Set.Modules[Imp].Name == Q.Module)
          Target = int(Imp);
      if (Target < 0)
        return -1;
      auto It = TopLevel[unsigned(Target)].find(Q.Name);
      return It == TopLevel[unsigned(Target)].end() ? -1 : int(It->second);
    }
    if (auto It = TopLevel[From].find(Q.Name); It != TopLevel[From].end())
      return int(It->second);
    int Hit = -1;
    for (unsigned Imp : Mod.Imports)
      if (auto It = TopLevel[Imp].find(Q.Name); It != TopLevel[Imp].end()) {
        if (Hit >= 0)
          return -1; // ambiguous
        Hit = int(It->second);
      }
    return Hit;
  }

  void member(std::map<unsigned, llvm::StringMap<unsigned>> &Table, int Machine,
              const std::string &Name, llvm::SMRange Range) {
    if (Machine < 0)
      return;
    auto M = Table.find(unsigned(Machine));
    if (M == Table.end())
      return;
    auto It = M->second.find(Name);
    if (It != M->second.end())
      Ix.Refs.push_back({Range, It->second});
  }

  /// The machine sketch \p Sk of module \p M runs on, following `from`; -1
  /// if none. Every sketch on the way shares the answer, which is kept, so
  /// that long `from` chains are walked once.
  int machineOf(unsigned M, const SketchDecl &Sk) {
    std::vector<const SketchDecl *> Path;
    llvm::SmallPtrSet<const SketchDecl *, 8> OnPath;
    const SketchDecl *Cur = &Sk;
    unsigned CurModule = M;
    int Machine = -1;
    while (Cur) {
      if (auto It = MachineOfSketch.find(Cur); It != MachineOfSketch.end()) {
        Machine = It->second;
        break;
      }
      if (!OnPath.insert(Cur).second)
        break; // a cycle
      Path.push_back(Cur);
      const QualifiedName *Q = Cur->Target ? &*Cur->Target
                               : Cur->Base ? &*Cur->Base
                                           : nullptr;
      int D = Q ? lookup(CurModule, *Q) : -1;
      if (D < 0)
        break;
      if (Cur->Target) {
        if (Ix.Decls[unsigned(D)].Kind == SymbolDecl::Machine)
          Machine = D;
        break;
      }
      Cur = unsigned(D) < NodeOf.size()
                ? llvm::dyn_cast_or_null<SketchDecl>(NodeOf[unsigned(D)])
                : nullptr;
      CurModule = Ix.Decls[unsigned(D)].Module;
    }
    for (const SketchDecl *P : Path)
      MachineOfSketch[P] = Machine;
    return Machine;
  }

  void refer(unsigned M, const Decl &D) {
    if (llvm::isa<MachineDecl>(&D)) {
      int Self = int(IndexOf[&D]);
      for (const auto &St : D.Items)
        referInMachine(Self, *St);
      return;
    }
    const auto *Sk = llvm::dyn_cast<SketchDecl>(&D);
    if (!Sk)
      return;
    for (const std::optional<QualifiedName> *Q : {&Sk->Target, &Sk->Base})
      if (*Q)
        if (int T = lookup(M, **Q); T >= 0)
          Ix.Refs.push_back({(*Q)->Range, unsigned(T)});
    int Machine = machineOf(M, *Sk);
    Ix.Decls[IndexOf[&D]].On = Machine;
    for (const auto &Item : D.Items)
      referInSketch(Machine, *Item);
  }

  void referInMachine(int Machine, const Node &N) {
    if (const auto *L = llvm::dyn_cast<ClassLinkStmt>(&N))
      member(Classes, Machine, L->Class, L->ClassRange);
    else if (const auto *Nc = llvm::dyn_cast<NicStmt>(&N))
      member(Classes, Machine, Nc->Class, Nc->ClassRange);
    else if (const auto *Sw = llvm::dyn_cast<SwitchStmt>(&N))
      member(Classes, Machine, Sw->Class, Sw->ClassRange);
    else if (const auto *F = llvm::dyn_cast<ForStmt>(&N))
      for (const auto &B : F->Body)
        referInMachine(Machine, *B);
  }

  void referInSketch(int Machine, const Node &N) {
    if (const auto *L = llvm::dyn_cast<LinksItem>(&N))
      for (const LinksItem::Name &C : L->Classes)
        member(Classes, Machine, C.Text, C.Range);
    else if (const auto *P = llvm::dyn_cast<PolicyItem>(&N))
      member(Switches, Machine, P->Switch, P->SwitchRange);
    else if (const auto *F = llvm::dyn_cast<ForStmt>(&N))
      for (const auto &B : F->Body)
        referInSketch(Machine, *B);
  }
};

} // namespace

void RangeTable::add(llvm::SMRange R, unsigned Value) {
  if (R.isValid())
    Entries.push_back({uintptr_t(R.Start.getPointer()),
                       uintptr_t(R.End.getPointer()), unsigned(Entries.size()),
                       Value});
}

void RangeTable::sort() {
  llvm::sort(Entries, [](const Entry &A, const Entry &B) {
    return std::tie(A.Start, A.Order) < std::tie(B.Start, B.Order);
  });
  MaxEnd.resize(Entries.size());
  for (size_t I = 0; I < Entries.size(); ++I)
    MaxEnd[I] = std::max(Entries[I].End, I ? MaxEnd[I - 1] : 0);
}

int RangeTable::find(llvm::SMLoc Loc) const {
  if (!Loc.isValid())
    return -1;
  const uintptr_t At = uintptr_t(Loc.getPointer());
  // Entries starting at or before At, latest first, while any of them can
  // still reach At.
  size_t I = size_t(std::upper_bound(Entries.begin(), Entries.end(), At,
                                     [](uintptr_t L, const Entry &E) {
                                       return L < E.Start;
                                     }) -
                    Entries.begin());
  const Entry *Best = nullptr;
  for (; I > 0 && MaxEnd[I - 1] >= At; --I) {
    const Entry &E = Entries[I - 1];
    if (E.End >= At && (!Best || E.Order < Best->Order))
      Best = &E;
  }
  return Best ? int(Best->Value) : -1;
}

void SymbolIndex::finish() {
  Children.assign(Decls.size(), {});
  RefTable = NameTable = ImportTable = SketchTable = RangeTable();
  for (const SymbolRef &R : Refs)
    RefTable.add(R.Range, R.Decl);
  for (unsigned I = 0; I < Decls.size(); ++I) {
    const SymbolDecl &D = Decls[I];
    NameTable.add(D.NameRange, I);
    if (D.Parent >= 0 && unsigned(D.Parent) < Decls.size())
      Children[unsigned(D.Parent)].push_back(I);
    if (D.Kind == SymbolDecl::Sketch && D.Module == 0)
      SketchTable.add(D.Range, I);
  }
  for (const ImportRef &I : Imports)
    ImportTable.add(I.Range, I.Module);
  for (RangeTable *T : {&RefTable, &NameTable, &ImportTable, &SketchTable})
    T->sort();
}

int SymbolIndex::declAt(llvm::SMLoc Loc) const {
  int D = RefTable.find(Loc);
  return D >= 0 ? D : NameTable.find(Loc);
}

int SymbolIndex::importAt(llvm::SMLoc Loc) const {
  return ImportTable.find(Loc);
}

int SymbolIndex::sketchAt(llvm::SMLoc Loc) const {
  return SketchTable.find(Loc);
}

SymbolIndex tacclc::buildSymbolIndex(const ModuleSet &Set,
                                     const llvm::SourceMgr &SM) {
  SymbolIndex Ix = Indexer(Set, SM).run();
  Ix.finish();
  return Ix;
}
