//===- frontend/Ast.cpp - AST dumper for --emit=ast -----------------------===//
//
// Prints the AST deterministically, one node per line, indented by depth,
// each with its `@line:col`, in the style of the MLIR Toy tutorial's dumper.
// Golden tests compare this text.
//
//===----------------------------------------------------------------------===//
#include "frontend/Ast.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/Path.h"

using namespace tacclc;
using namespace tacclc::ast;

namespace {
class Dumper {
public:
  Dumper(const llvm::SourceMgr &SM, llvm::raw_ostream &OS) : SM(SM), OS(OS) {}

  void dump(const Module &M) {
    llvm::StringRef Path =
        SM.getMemoryBuffer(M.BufferId)->getBufferIdentifier();
    OS << "Module " << llvm::sys::path::filename(Path) << "\n";
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

  void dumpDecl(const Decl &D) {
    indent(1);
    if (const auto *S = llvm::dyn_cast<SketchDecl>(&D))
      OS << "Sketch '" << S->Name << "' on '" << S->Topology << "'";
    else
      OS << "Topology '" << D.Name << "'";
    loc(D.getLoc());
    for (const auto &I : D.Items)
      dumpItem(*I);
  }

  void dumpItem(const Node &N) {
    indent(2);
    if (const auto *R = llvm::dyn_cast<RanksItem>(&N)) {
      OS << "Ranks " << R->Count.Spelling;
    } else if (const auto *L = llvm::dyn_cast<LinkItem>(&N)) {
      OS << "Link " << L->Src.Spelling << (L->Bidirectional ? " <-> " : " -> ")
         << L->Dst.Spelling;
      loc(N.getLoc());
      for (const LinkAttr &A : L->Attrs) {
        indent(3);
        OS << (A.Kind == LinkAttr::Alpha ? "alpha " : "beta ");
        quantity(A.Value);
        loc(A.KeywordRange.Start);
      }
      return;
    } else if (const auto *C = llvm::dyn_cast<CollectiveItem>(&N)) {
      OS << "Collective " << C->Name;
    } else if (const auto *K = llvm::dyn_cast<ChunksItem>(&N)) {
      OS << "Chunks " << K->Count.Spelling;
    } else if (const auto *Z = llvm::dyn_cast<SizeItem>(&N)) {
      OS << "Size ";
      quantity(Z->Size);
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
