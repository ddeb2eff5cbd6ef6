//===- frontend/AstBuilder.cpp - Parse tree to AST ------------------------===//
//
// A direct walk over the generated contexts (labelled alternatives come back
// as the base context type, hence the dynamic_casts). Nothing here can fail:
// the parser already rejected malformed input, and meaning is checked by
// Sema. Numbers are converted here only as far as the syntax goes (overflow
// is recorded, not reported).
//
//===----------------------------------------------------------------------===//
#include "frontend/AstBuilder.h"

#include <cerrno>
#include <cstdlib>

using namespace tacclc;
using namespace tacclc::ast;
using P = tacclc_antlr::SketchParser;

namespace {
class Builder {
public:
  explicit Builder(const SourceMap &Map) : Map(Map) {}

  std::unique_ptr<Module> build(P::ModuleContext *Tree, unsigned BufferId) {
    auto M = std::make_unique<Module>();
    M->BufferId = BufferId;
    for (P::DeclContext *D : Tree->decl()) {
      if (auto *T = D->topologyDecl())
        M->Decls.push_back(buildTopology(T));
      else if (auto *S = D->sketchDecl())
        M->Decls.push_back(buildSketch(S));
    }
    return M;
  }

private:
  llvm::SMRange range(antlr4::ParserRuleContext *Ctx) const {
    return Map.range(Ctx->getStart()->getStartIndex(),
                     Ctx->getStop()->getStopIndex());
  }
  llvm::SMRange range(antlr4::Token *Tok) const {
    return Map.range(Tok->getStartIndex(), Tok->getStopIndex());
  }

  IntLit intLit(antlr4::Token *Tok) const {
    IntLit L;
    L.Spelling = Tok->getText();
    L.Range = range(Tok);
    errno = 0;
    L.Value = std::strtoull(L.Spelling.c_str(), nullptr, 10);
    L.Overflow = errno == ERANGE;
    return L;
  }

  Quantity quantity(P::QuantityContext *Ctx) const {
    Quantity Q;
    Q.Range = range(Ctx);
    Q.NumberRange = range(Ctx->number());
    Q.Spelling = Ctx->number()->getText();
    Q.IsInteger = Ctx->number()->INT() != nullptr;
    Q.Value = std::strtod(Q.Spelling.c_str(), nullptr);
    if (P::UnitContext *U = Ctx->unit()) {
      Q.Unit = U->num->getText();
      if (U->den)
        Q.Unit += "/" + U->den->getText();
      Q.UnitRange = range(U);
    }
    return Q;
  }

  std::unique_ptr<Decl> buildTopology(P::TopologyDeclContext *Ctx) {
    auto T = std::make_unique<TopologyDecl>(range(Ctx), Ctx->name->getText(),
                                            range(Ctx->name));
    for (P::TopologyItemContext *Item : Ctx->topologyItem()) {
      if (auto *R = dynamic_cast<P::RanksItemContext *>(Item)) {
        T->Items.push_back(
            std::make_unique<RanksItem>(range(R), intLit(R->count)));
      } else if (auto *L = dynamic_cast<P::LinkItemContext *>(Item)) {
        std::vector<LinkAttr> Attrs;
        for (P::LinkAttrContext *A : L->linkAttr()) {
          if (auto *Al = dynamic_cast<P::AlphaAttrContext *>(A))
            Attrs.push_back({LinkAttr::Alpha, range(Al->ALPHA()->getSymbol()),
                             quantity(Al->quantity())});
          else if (auto *Be = dynamic_cast<P::BetaAttrContext *>(A))
            Attrs.push_back({LinkAttr::Beta, range(Be->BETA()->getSymbol()),
                             quantity(Be->quantity())});
        }
        bool Both = L->arrow->getType() == P::BIARROW;
        T->Items.push_back(std::make_unique<LinkItem>(
            range(L), intLit(L->src), intLit(L->dst), Both, std::move(Attrs)));
      }
    }
    return T;
  }

  std::unique_ptr<Decl> buildSketch(P::SketchDeclContext *Ctx) {
    auto S = std::make_unique<SketchDecl>(
        range(Ctx), Ctx->name->getText(), range(Ctx->name),
        Ctx->topo->getText(), range(Ctx->topo));
    for (P::SketchItemContext *Item : Ctx->sketchItem()) {
      if (auto *C = dynamic_cast<P::CollectiveItemContext *>(Item))
        S->Items.push_back(std::make_unique<CollectiveItem>(
            range(C), C->kind->getText(), range(C->kind)));
      else if (auto *K = dynamic_cast<P::ChunksItemContext *>(Item))
        S->Items.push_back(
            std::make_unique<ChunksItem>(range(K), intLit(K->count)));
      else if (auto *Z = dynamic_cast<P::SizeItemContext *>(Item))
        S->Items.push_back(
            std::make_unique<SizeItem>(range(Z), quantity(Z->quantity())));
    }
    return S;
  }

  const SourceMap &Map;
};
} // namespace

std::unique_ptr<Module> tacclc::buildAst(P::ModuleContext *Tree,
                                         const SourceMap &Map,
                                         unsigned BufferId) {
  return Builder(Map).build(Tree, BufferId);
}
