//===- frontend/SymbolIndex.cpp - Names and what they refer to ------------===//
//
// buildSymbolIndex() (SymbolIndex.h) in two walks over every module's AST:
// first the declarations (with the classes and switches inside machines,
// loops included), then the references, resolved with the same rules as
// Sema::lookup. A hover's detail is the comment lines right above a
// declaration, then what it is and its numbers as written.
//
//===----------------------------------------------------------------------===//
#include "frontend/SymbolIndex.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>

using namespace tacclc;
using namespace tacclc::ast;

namespace {

bool covers(llvm::SMRange R, llvm::SMLoc L) {
  return R.isValid() && L.isValid() && R.Start.getPointer() <= L.getPointer() &&
         L.getPointer() <= R.End.getPointer();
}

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

/// The `//` lines right above the line of \p Loc, without the slashes.
std::string commentAbove(const llvm::SourceMgr &SM, llvm::SMLoc Loc) {
  unsigned Buf = SM.FindBufferContainingLoc(Loc);
  if (!Buf)
    return "";
  llvm::StringRef Text = SM.getMemoryBuffer(Buf)->getBuffer();
  size_t LineStart = Text.rfind('\n', Loc.getPointer() - Text.data());
  std::vector<llvm::StringRef> Lines;
  while (LineStart != std::string::npos && LineStart > 0) {
    size_t Prev = Text.rfind('\n', LineStart - 1);
    size_t From = Prev == std::string::npos ? 0 : Prev + 1;
    llvm::StringRef Line = Text.slice(From, LineStart).trim();
    if (!Line.startswith("//"))
      break;
    Lines.push_back(Line.drop_front(2).trim());
    if (Prev == std::string::npos)
      break;
    LineStart = Prev;
  }
  std::string Out;
  for (auto It = Lines.rbegin(); It != Lines.rend(); ++It)
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
    std::string Doc = commentAbove(SM, D.getLoc());
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
    if (llvm::isa<MachineDecl>(&D))
      for (const auto &St : D.Items)
        declareMember(M, Index, *St);
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
    } else if (const auto *F = llvm::dyn_cast<ForStmt>(&N)) {
      for (const auto &B : F->Body)
        declareMember(M, Machine, *B);
      return;
    } else {
      return;
    }
    std::string Doc = commentAbove(SM, N.getLoc());
    if (!Doc.empty())
      S.Detail += "\n\n" + Doc;
    std::string Name = S.Name;
    const bool IsClass = S.Kind == SymbolDecl::Class;
    unsigned Index = add(std::move(S));
    (IsClass ? Classes : Switches)[Machine].try_emplace(Name, Index);
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

  /// The machine sketch \p Sk runs on, following `from`; -1 if none.
  int machineOf(unsigned M, const SketchDecl &Sk) {
    std::set<const SketchDecl *> Seen;
    const SketchDecl *Cur = &Sk;
    unsigned CurModule = M;
    while (Cur && Seen.insert(Cur).second) {
      const QualifiedName *Q = Cur->Target ? &*Cur->Target
                               : Cur->Base ? &*Cur->Base
                                           : nullptr;
      int D = Q ? lookup(CurModule, *Q) : -1;
      if (D < 0)
        return -1;
      if (Cur->Target)
        return Ix.Decls[unsigned(D)].Kind == SymbolDecl::Machine ? D : -1;
      Cur = unsigned(D) < NodeOf.size()
                ? llvm::dyn_cast_or_null<SketchDecl>(NodeOf[unsigned(D)])
                : nullptr;
      CurModule = Ix.Decls[unsigned(D)].Module;
    }
    return -1;
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

int SymbolIndex::declAt(llvm::SMLoc Loc) const {
  for (const SymbolRef &R : Refs)
    if (covers(R.Range, Loc))
      return int(R.Decl);
  for (size_t I = 0; I < Decls.size(); ++I)
    if (covers(Decls[I].NameRange, Loc))
      return int(I);
  return -1;
}

int SymbolIndex::importAt(llvm::SMLoc Loc) const {
  for (const ImportRef &I : Imports)
    if (covers(I.Range, Loc))
      return int(I.Module);
  return -1;
}

SymbolIndex tacclc::buildSymbolIndex(const ModuleSet &Set,
                                     const llvm::SourceMgr &SM) {
  return Indexer(Set, SM).run();
}
