//===- frontend/Ast.cpp - AST dumper for --emit=ast -----------------------===//
//
// Prints the AST deterministically, one node per line, indented by depth,
// each with its `@line:col`, in the style of the MLIR Toy tutorial's dumper.
// Expressions print fully parenthesised so precedence is visible. Golden
// tests compare this text.
//
//===----------------------------------------------------------------------===//
#include "frontend/Ast.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/Path.h"

using namespace tacclc;
using namespace tacclc::ast;

std::string ast::printExpr(const Expr &E) {
  if (const auto *I = llvm::dyn_cast<IntExpr>(&E))
    return I->Value.Spelling;
  if (const auto *N = llvm::dyn_cast<NameExpr>(&E))
    return N->Name;
  if (const auto *Ng = llvm::dyn_cast<NegExpr>(&E))
    return "(-" + printExpr(*Ng->Operand) + ")";
  const auto &B = llvm::cast<BinaryExpr>(E);
  return "(" + printExpr(*B.Lhs) + " " + B.Op + " " + printExpr(*B.Rhs) + ")";
}

bool ast::mentionsName(const Expr &E, llvm::StringRef Name) {
  if (const auto *N = llvm::dyn_cast<NameExpr>(&E))
    return N->Name == Name;
  if (const auto *Ng = llvm::dyn_cast<NegExpr>(&E))
    return mentionsName(*Ng->Operand, Name);
  if (const auto *B = llvm::dyn_cast<BinaryExpr>(&E))
    return mentionsName(*B->Lhs, Name) || mentionsName(*B->Rhs, Name);
  return false;
}

bool ast::mentionsName(const Address &A, llvm::StringRef Name) {
  return (A.NodeIndex && mentionsName(*A.NodeIndex, Name)) ||
         mentionsName(*A.Gpu, Name);
}

namespace {
std::string printAddress(const Address &A) {
  if (!A.NodeIndex)
    return printExpr(*A.Gpu);
  return printExpr(*A.NodeIndex) + ":" + printExpr(*A.Gpu);
}

class Dumper {
public:
  Dumper(const llvm::SourceMgr &SM, llvm::raw_ostream &OS) : SM(SM), OS(OS) {}

  void dump(const Module &M) {
    llvm::StringRef Path =
        SM.getMemoryBuffer(M.BufferId)->getBufferIdentifier();
    OS << "Module " << llvm::sys::path::filename(Path) << "\n";
    for (const auto &I : M.Imports) {
      indent(1);
      OS << "Import \"" << I->Path << "\"";
      loc(I->getLoc());
    }
    for (const auto &D : M.Decls)
      dumpDecl(*D);
  }

private:
  void loc(llvm::SMLoc L) {
    auto LC = SM.getLineAndColumn(L);
    OS << " @" << LC.first << ":" << LC.second << "\n";
  }
  void indent(unsigned Depth) { OS.indent(2 * Depth); }
  void quantity(const Quantity &Q) {
    OS << Q.Spelling;
    if (!Q.Unit.empty())
      OS << " " << Q.Unit;
  }
  void attrs(const std::vector<LinkAttr> &Attrs, unsigned Depth) {
    for (const LinkAttr &A : Attrs) {
      indent(Depth);
      OS << (A.Kind == LinkAttr::Alpha ? "alpha " : "beta ");
      quantity(A.Value);
      loc(A.KeywordRange.Start);
    }
  }
  void pairs(const std::vector<EndpointPair> &Pairs, unsigned Depth) {
    for (const EndpointPair &P : Pairs) {
      indent(Depth);
      OS << printAddress(P.Src) << (P.Bidirectional ? " <-> " : " -> ")
         << printAddress(P.Dst);
      if (!P.Multiplicity.empty())
        OS << " " << P.Multiplicity;
      loc(P.Range.Start);
    }
  }
  void gpuList(const GpuList &L) {
    OS << "[";
    for (size_t I = 0; I < L.size(); ++I) {
      OS << (I ? ", " : "") << printAddress(L[I].First);
      if (L[I].Last)
        OS << ".." << printExpr(*L[I].Last);
    }
    OS << "]";
  }

  void dumpDecl(const Decl &D) {
    indent(1);
    if (const auto *S = llvm::dyn_cast<SketchDecl>(&D)) {
      OS << "Sketch '" << S->Name << "'";
      if (S->Target) {
        OS << " on '" << S->Target->str() << "'";
        if (!S->Args.empty()) {
          OS << "(";
          for (size_t I = 0; I < S->Args.size(); ++I)
            OS << (I ? ", " : "")
               << (S->Args[I].Name.empty() ? "" : S->Args[I].Name + ": ")
               << printExpr(*S->Args[I].Value);
          OS << ")";
        }
      } else {
        OS << " from '" << S->Base->str() << "'";
      }
    } else if (const auto *M = llvm::dyn_cast<MachineDecl>(&D)) {
      OS << "Machine '" << M->Name << "'(";
      for (size_t I = 0; I < M->Params.size(); ++I)
        OS << (I ? ", " : "") << M->Params[I].Name
           << (M->Params[I].Default ? " = " + printExpr(*M->Params[I].Default)
                                    : std::string());
      OS << ")";
    } else {
      OS << "Topology '" << D.Name << "'";
    }
    loc(D.getLoc());
    for (const auto &I : D.Items)
      dumpItem(*I, 2);
  }

  void dumpItem(const Node &N, unsigned Depth) {
    indent(Depth);
    if (const auto *R = llvm::dyn_cast<RanksItem>(&N)) {
      OS << "Ranks " << R->Count.Spelling;
    } else if (const auto *L = llvm::dyn_cast<LinkItem>(&N)) {
      OS << "Link " << L->Src.Spelling << (L->Bidirectional ? " <-> " : " -> ")
         << L->Dst.Spelling;
      loc(N.getLoc());
      attrs(L->Attrs, Depth + 1);
      return;
    } else if (const auto *G = llvm::dyn_cast<GpusPerNodeStmt>(&N)) {
      OS << "GpusPerNode " << printExpr(*G->Value);
    } else if (const auto *Le = llvm::dyn_cast<LetStmt>(&N)) {
      OS << "Let " << Le->Name << " = " << printExpr(*Le->Value);
    } else if (const auto *C = llvm::dyn_cast<ClassStmt>(&N)) {
      OS << "Class '" << C->Name << "'";
      loc(N.getLoc());
      attrs(C->Attrs, Depth + 1);
      for (const ProfilePoint &P : C->Profile) {
        indent(Depth + 1);
        OS << "At ";
        quantity(P.Size);
        loc(P.Range.Start);
        attrs(P.Attrs, Depth + 2);
      }
      return;
    } else if (const auto *CL = llvm::dyn_cast<ClassLinkStmt>(&N)) {
      OS << "Links of class '" << CL->Class << "'";
      loc(N.getLoc());
      pairs(CL->Pairs, Depth + 1);
      return;
    } else if (const auto *Ni = llvm::dyn_cast<NicStmt>(&N)) {
      OS << "Nic '" << Ni->Class << "'";
      if (Ni->Gpus) {
        OS << " ";
        gpuList(*Ni->Gpus);
      }
    } else if (const auto *Sw = llvm::dyn_cast<SwitchStmt>(&N)) {
      OS << "Switch '" << Sw->Name << "' of class '" << Sw->Class << "' ";
      gpuList(Sw->Gpus);
    } else if (const auto *F = llvm::dyn_cast<ForStmt>(&N)) {
      OS << "For " << F->Var << " in " << printExpr(*F->Lo) << ".."
         << printExpr(*F->Hi);
      loc(N.getLoc());
      for (const auto &B : F->Body)
        dumpItem(*B, Depth + 1);
      return;
    } else if (const auto *Co = llvm::dyn_cast<CollectiveItem>(&N)) {
      OS << "Collective " << Co->Name;
      if (Co->Root)
        OS << " root " << printAddress(*Co->Root);
    } else if (const auto *K = llvm::dyn_cast<ChunksItem>(&N)) {
      OS << "Chunks " << (K->Word.empty() ? K->Count.Spelling : K->Word);
    } else if (const auto *Z = llvm::dyn_cast<SizeItem>(&N)) {
      OS << "Size ";
      quantity(Z->Size);
      if (Z->Hi) {
        OS << " .. ";
        quantity(*Z->Hi);
      }
    } else if (const auto *Fo = llvm::dyn_cast<FormItem>(&N)) {
      OS << (N.getKind() == Node::K_SenderFirstItem ? "SenderFirst"
             : N.getKind() == Node::K_IdenticalItem ? "IdenticalResults"
                                                    : "Relay " + Fo->Form);
    } else if (const auto *Se = llvm::dyn_cast<SenderItem>(&N)) {
      OS << "Sender " << printExpr(*Se->Gpu) << " carries ";
      gpuList(Se->Carried);
    } else if (const auto *Po = llvm::dyn_cast<PolicyItem>(&N)) {
      OS << "Policy " << Po->Switch << " " << Po->Value;
    } else if (const auto *In = llvm::dyn_cast<InstancesItem>(&N)) {
      OS << "Instances " << In->Count.Spelling;
    } else if (const auto *Li = llvm::dyn_cast<LinksItem>(&N)) {
      OS << (N.getKind() == Node::K_ContiguousItem ? "Contiguous" : "Links");
      for (const auto &Name : Li->Classes)
        OS << " " << Name.Text;
    } else if (const auto *Pr = llvm::dyn_cast<ProtocolItem>(&N)) {
      OS << "Protocol";
      for (const ProtocolChoiceAst &C : Pr->Choices) {
        OS << (&C == &Pr->Choices.front() ? " " : ", ") << C.Name;
        if (C.Below) {
          OS << " below ";
          quantity(*C.Below);
        }
      }
    } else if (const auto *Ph = llvm::dyn_cast<PhasesItem>(&N)) {
      OS << "Phases";
      for (const PhaseAst &P : Ph->Phases)
        OS << (&P == &Ph->Phases.front() ? " " : ", ")
           << (P.Within ? "within " : "across ") << P.What;
    } else if (const auto *So = llvm::dyn_cast<SolverItem>(&N)) {
      OS << (N.getKind() == Node::K_GapItem ? "Gap " : "TimeLimit ");
      quantity(So->Value);
    } else if (const auto *Sy = llvm::dyn_cast<SymmetryItem>(&N)) {
      OS << "Symmetry";
      loc(N.getLoc());
      for (const SymmetryForm &F : Sy->Forms) {
        indent(Depth + 1);
        if (F.Kind == SymmetryForm::Map) {
          OS << "map [";
          for (size_t I = 0; I < F.Perm.size(); ++I)
            OS << (I ? ", " : "") << printExpr(*F.Perm[I]);
          OS << "]";
        } else if (F.Kind == SymmetryForm::Named) {
          OS << F.What;
        } else {
          OS << "rotate " << F.What << " by " << printExpr(*F.Amount);
          if (F.Group)
            OS << " within " << printExpr(*F.Group);
        }
        loc(F.Range.Start);
      }
      return;
    } else if (const auto *P = llvm::dyn_cast<PairsItem>(&N)) {
      OS << (N.getKind() == Node::K_RelayItem       ? "Relay"
             : N.getKind() == Node::K_RelayEachItem ? "RelayEach"
                                                    : "Exclude");
      loc(N.getLoc());
      pairs(P->Pairs, Depth + 1);
      return;
    }
    loc(N.getLoc());
  }

  const llvm::SourceMgr &SM;
  llvm::raw_ostream &OS;
};
} // namespace

void ast::dumpAst(const Module &M, const llvm::SourceMgr &SM,
                  llvm::raw_ostream &OS) {
  Dumper(SM, OS).dump(M);
}
