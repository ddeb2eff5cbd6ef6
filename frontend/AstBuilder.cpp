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
      if (auto *I = D->importDecl()) {
        std::string Text = I->path->getText();
        M->Imports.push_back(std::make_unique<ImportDecl>(
            range(I), Text.substr(1, Text.size() - 2), range(I->path)));
      } else if (auto *T = D->topologyDecl()) {
        M->Decls.push_back(buildTopology(T));
      } else if (auto *Mc = D->machineDecl()) {
        M->Decls.push_back(buildMachine(Mc));
      } else if (auto *S = D->sketchDecl()) {
        M->Decls.push_back(buildSketch(S));
      }
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

  ExprPtr expr(P::ExprContext *Ctx) const {
    if (auto *I = dynamic_cast<P::IntExprContext *>(Ctx))
      return std::make_unique<IntExpr>(intLit(I->INT()->getSymbol()));
    if (auto *N = dynamic_cast<P::NameExprContext *>(Ctx))
      return std::make_unique<NameExpr>(range(N), N->getText());
    if (auto *Pa = dynamic_cast<P::ParenExprContext *>(Ctx))
      return expr(Pa->inner);
    if (auto *Ng = dynamic_cast<P::NegExprContext *>(Ctx))
      return std::make_unique<NegExpr>(range(Ng), expr(Ng->operand));
    if (auto *Mu = dynamic_cast<P::MulExprContext *>(Ctx))
      return std::make_unique<BinaryExpr>(range(Mu), Mu->op->getText()[0],
                                          range(Mu->op), expr(Mu->lhs),
                                          expr(Mu->rhs));
    auto *Ad = dynamic_cast<P::AddExprContext *>(Ctx);
    return std::make_unique<BinaryExpr>(range(Ad), Ad->op->getText()[0],
                                        range(Ad->op), expr(Ad->lhs),
                                        expr(Ad->rhs));
  }

  Address address(P::AddressContext *Ctx) const {
    Address A;
    A.Range = range(Ctx);
    if (auto *NG = dynamic_cast<P::NodeGpuAddressContext *>(Ctx)) {
      A.NodeIndex = expr(NG->node);
      A.Gpu = expr(NG->gpu);
    } else {
      A.Gpu = expr(dynamic_cast<P::RankAddressContext *>(Ctx)->rank);
    }
    return A;
  }

  std::vector<EndpointPair>
  pairs(const std::vector<P::EndpointPairContext *> &Ctxs) const {
    std::vector<EndpointPair> Out;
    for (P::EndpointPairContext *C : Ctxs) {
      EndpointPair E;
      E.Src = address(C->src);
      E.Dst = address(C->dst);
      E.Bidirectional = C->arrow->getType() == P::BIARROW;
      E.Range = range(C);
      Out.push_back(std::move(E));
    }
    return Out;
  }

  GpuList gpuList(P::GpuListContext *Ctx) const {
    GpuList Out;
    for (P::GpuListElemContext *E : Ctx->gpuListElem()) {
      GpuListElem El;
      El.First = address(E->first);
      if (E->last)
        El.Last = expr(E->last);
      El.Range = range(E);
      Out.push_back(std::move(El));
    }
    return Out;
  }

  std::vector<LinkAttr> attrs(const std::vector<P::LinkAttrContext *> &Ctxs) {
    std::vector<LinkAttr> Attrs;
    for (P::LinkAttrContext *A : Ctxs) {
      if (auto *Al = dynamic_cast<P::AlphaAttrContext *>(A))
        Attrs.push_back({LinkAttr::Alpha, range(Al->ALPHA()->getSymbol()),
                         quantity(Al->quantity())});
      else if (auto *Be = dynamic_cast<P::BetaAttrContext *>(A))
        Attrs.push_back({LinkAttr::Beta, range(Be->BETA()->getSymbol()),
                         quantity(Be->quantity())});
    }
    return Attrs;
  }

  QualifiedName qualifiedName(P::QualifiedNameContext *Ctx) const {
    QualifiedName Q;
    Q.Range = range(Ctx);
    if (Ctx->second) {
      Q.Module = Ctx->first->getText();
      Q.Name = Ctx->second->getText();
    } else {
      Q.Name = Ctx->first->getText();
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
        bool Both = L->arrow->getType() == P::BIARROW;
        T->Items.push_back(std::make_unique<LinkItem>(range(L), intLit(L->src),
                                                      intLit(L->dst), Both,
                                                      attrs(L->linkAttr())));
      }
    }
    return T;
  }

  std::unique_ptr<Node> machineStmt(P::MachineStmtContext *Ctx) {
    if (auto *G = dynamic_cast<P::GpusPerNodeStmtContext *>(Ctx))
      return std::make_unique<GpusPerNodeStmt>(range(G), expr(G->value));
    if (auto *L = dynamic_cast<P::LetStmtContext *>(Ctx))
      return std::make_unique<LetStmt>(range(L), L->name->getText(),
                                       range(L->name), expr(L->value));
    if (auto *C = dynamic_cast<P::ClassStmtContext *>(Ctx)) {
      std::vector<P::LinkAttrContext *> Direct;
      std::vector<ProfilePoint> Profile;
      for (P::ClassItemContext *I : C->classItem()) {
        if (auto *A = dynamic_cast<P::ClassAttrContext *>(I)) {
          Direct.push_back(A->linkAttr());
          continue;
        }
        auto *Pp = dynamic_cast<P::ProfilePointContext *>(I);
        Profile.push_back(
            {quantity(Pp->size), attrs(Pp->linkAttr()), range(Pp)});
      }
      auto Cls = std::make_unique<ClassStmt>(range(C), C->name->getText(),
                                             range(C->name), attrs(Direct));
      Cls->Profile = std::move(Profile);
      return Cls;
    }
    if (auto *CL = dynamic_cast<P::ClassLinkStmtContext *>(Ctx)) {
      std::vector<P::EndpointPairContext *> Ends;
      for (P::LinkPairContext *LP : CL->linkPair())
        Ends.push_back(LP->endpointPair());
      std::vector<EndpointPair> Pairs = pairs(Ends);
      for (size_t I = 0; I < Pairs.size(); ++I)
        if (antlr4::Token *Mult = CL->linkPair()[I]->mult) {
          Pairs[I].Multiplicity = Mult->getText();
          Pairs[I].MultiplicityRange = range(Mult);
        }
      return std::make_unique<ClassLinkStmt>(range(CL), CL->cls->getText(),
                                             range(CL->cls), std::move(Pairs));
    }
    if (auto *N = dynamic_cast<P::NicStmtContext *>(Ctx)) {
      auto Nic =
          std::make_unique<NicStmt>(range(N), N->cls->getText(), range(N->cls));
      if (N->gpuList())
        Nic->Gpus = gpuList(N->gpuList());
      return Nic;
    }
    if (auto *Sw = dynamic_cast<P::SwitchStmtContext *>(Ctx))
      return std::make_unique<SwitchStmt>(
          range(Sw), Sw->name->getText(), range(Sw->name), Sw->cls->getText(),
          range(Sw->cls), gpuList(Sw->gpuList()));
    auto *F = dynamic_cast<P::MachineForStmtContext *>(Ctx);
    auto Loop =
        std::make_unique<ForStmt>(range(F), F->var->getText(), range(F->var),
                                  expr(F->range()->lo), expr(F->range()->hi));
    for (P::MachineStmtContext *S : F->machineStmt())
      Loop->Body.push_back(machineStmt(S));
    return Loop;
  }

  std::unique_ptr<Decl> buildMachine(P::MachineDeclContext *Ctx) {
    auto M = std::make_unique<MachineDecl>(range(Ctx), Ctx->name->getText(),
                                           range(Ctx->name));
    for (P::ParamContext *Pc : Ctx->param()) {
      Param Pa;
      Pa.Name = Pc->name->getText();
      Pa.NameRange = range(Pc->name);
      if (Pc->value)
        Pa.Default = expr(Pc->value);
      if (Pc->type) {
        Pa.Type = Pc->type->getText();
        Pa.TypeRange = range(Pc->type);
      }
      M->Params.push_back(std::move(Pa));
    }
    for (P::MachineStmtContext *S : Ctx->machineStmt())
      M->Items.push_back(machineStmt(S));
    return M;
  }

  std::unique_ptr<Node> sketchItem(P::SketchItemContext *Item) {
    if (auto *C = dynamic_cast<P::CollectiveItemContext *>(Item)) {
      auto Co = std::make_unique<CollectiveItem>(range(C), C->kind->getText(),
                                                 range(C->kind));
      if (C->root)
        Co->Root = std::make_shared<Address>(address(C->root));
      return Co;
    }
    if (auto *K = dynamic_cast<P::ChunksItemContext *>(Item)) {
      if (K->count)
        return std::make_unique<ChunksItem>(range(K), intLit(K->count));
      auto Ch = std::make_unique<ChunksItem>(range(K), IntLit());
      Ch->Word = K->word->getText();
      Ch->WordRange = range(K->word);
      return Ch;
    }
    if (auto *Z = dynamic_cast<P::SizeItemContext *>(Item)) {
      auto Sz = std::make_unique<SizeItem>(range(Z), quantity(Z->lo));
      if (Z->hi)
        Sz->Hi = quantity(Z->hi);
      return Sz;
    }
    if (auto *RE = dynamic_cast<P::RelayEachItemContext *>(Item))
      return std::make_unique<PairsItem>(Node::K_RelayEachItem, range(RE),
                                         pairs(RE->endpointPair()));
    if (auto *RF = dynamic_cast<P::RelayFormItemContext *>(Item))
      return std::make_unique<FormItem>(Node::K_RelayFormItem, range(RF),
                                        RF->form->getText());
    if (auto *SF = dynamic_cast<P::SenderFirstItemContext *>(Item))
      return std::make_unique<FormItem>(Node::K_SenderFirstItem, range(SF),
                                        "first");
    if (auto *Id = dynamic_cast<P::IdenticalItemContext *>(Item))
      return std::make_unique<FormItem>(Node::K_IdenticalItem, range(Id),
                                        "identical");
    if (auto *Se = dynamic_cast<P::SenderItemContext *>(Item))
      return std::make_unique<SenderItem>(range(Se), expr(Se->gpu),
                                          gpuList(Se->gpuList()));
    if (auto *Po = dynamic_cast<P::PolicyItemContext *>(Item)) {
      std::string Value = Po->value->first->getText();
      if (Po->value->second)
        Value += "-" + Po->value->second->getText();
      return std::make_unique<PolicyItem>(
          range(Po), Po->sw->getText(), range(Po->sw), Value, range(Po->value));
    }
    if (auto *In = dynamic_cast<P::InstancesItemContext *>(Item))
      return std::make_unique<InstancesItem>(range(In), intLit(In->count));
    if (auto *Cg = dynamic_cast<P::ContiguousItemContext *>(Item)) {
      std::vector<LinksItem::Name> Names;
      for (antlr4::tree::TerminalNode *Id : Cg->IDENT())
        Names.push_back({Id->getText(), range(Id->getSymbol())});
      return std::make_unique<LinksItem>(range(Cg), std::move(Names),
                                         Node::K_ContiguousItem);
    }
    if (auto *L = dynamic_cast<P::LinksItemContext *>(Item)) {
      std::vector<LinksItem::Name> Names;
      for (antlr4::tree::TerminalNode *Id : L->IDENT())
        Names.push_back({Id->getText(), range(Id->getSymbol())});
      return std::make_unique<LinksItem>(range(L), std::move(Names));
    }
    if (auto *R = dynamic_cast<P::RelayItemContext *>(Item))
      return std::make_unique<PairsItem>(Node::K_RelayItem, range(R),
                                         pairs(R->endpointPair()));
    if (auto *E = dynamic_cast<P::ExcludeItemContext *>(Item))
      return std::make_unique<PairsItem>(Node::K_ExcludeItem, range(E),
                                         pairs(E->endpointPair()));
    if (auto *Pr = dynamic_cast<P::ProtocolItemContext *>(Item)) {
      std::vector<ProtocolChoiceAst> Choices;
      for (auto *C : Pr->protocolChoice()) {
        ProtocolChoiceAst Choice{C->name->getText(), range(C->name), {}};
        if (C->bound)
          Choice.Below = quantity(C->bound);
        Choices.push_back(std::move(Choice));
      }
      return std::make_unique<ProtocolItem>(range(Pr), std::move(Choices));
    }
    if (auto *Ph = dynamic_cast<P::PhasesItemContext *>(Item)) {
      std::vector<PhaseAst> Phases;
      for (auto *C : Ph->phaseScope())
        Phases.push_back({C->where->getType() == P::WITHIN, C->what->getText(),
                          range(C->what), range(C)});
      return std::make_unique<PhasesItem>(range(Ph), std::move(Phases));
    }
    if (auto *T = dynamic_cast<P::TimeLimitItemContext *>(Item))
      return std::make_unique<SolverItem>(Node::K_TimeLimitItem, range(T),
                                          quantity(T->quantity()));
    if (auto *G = dynamic_cast<P::GapItemContext *>(Item)) {
      Quantity Q;
      Q.Range = Q.NumberRange = range(G->number());
      Q.Spelling = G->number()->getText();
      Q.IsInteger = G->number()->INT() != nullptr;
      Q.Value = std::strtod(Q.Spelling.c_str(), nullptr);
      return std::make_unique<SolverItem>(Node::K_GapItem, range(G), Q);
    }
    if (auto *Sy = dynamic_cast<P::SymmetryItemContext *>(Item)) {
      std::vector<SymmetryForm> Forms;
      for (P::SymmetryContext *C : Sy->symmetry()) {
        SymmetryForm F;
        F.Range = range(C);
        if (auto *Ro = dynamic_cast<P::RotateSymmetryContext *>(C)) {
          F.What = Ro->what->getText();
          F.WhatRange = range(Ro->what);
          F.Kind = F.What == "nodes"  ? SymmetryForm::RotateNodes
                   : F.What == "gpus" ? SymmetryForm::RotateGpus
                                      : SymmetryForm::RotateRanks;
          F.Amount = expr(Ro->amount);
          if (Ro->group)
            F.Group = expr(Ro->group);
        } else if (auto *Na = dynamic_cast<P::NamedSymmetryContext *>(C)) {
          F.Kind = SymmetryForm::Named;
          F.What = Na->name->getText();
          F.WhatRange = range(Na->name);
        } else {
          F.Kind = SymmetryForm::Map;
          F.What = "map";
          for (P::ExprContext *E :
               dynamic_cast<P::MapSymmetryContext *>(C)->expr())
            F.Perm.push_back(expr(E));
        }
        Forms.push_back(std::move(F));
      }
      return std::make_unique<SymmetryItem>(range(Sy), std::move(Forms));
    }
    auto *F = dynamic_cast<P::SketchForItemContext *>(Item);
    auto Loop =
        std::make_unique<ForStmt>(range(F), F->var->getText(), range(F->var),
                                  expr(F->range()->lo), expr(F->range()->hi));
    for (P::SketchItemContext *S : F->sketchItem())
      Loop->Body.push_back(sketchItem(S));
    return Loop;
  }

  std::unique_ptr<Decl> buildSketch(P::SketchDeclContext *Ctx) {
    auto S = std::make_unique<SketchDecl>(range(Ctx), Ctx->name->getText(),
                                          range(Ctx->name));
    if (Ctx->target) {
      S->Target = qualifiedName(Ctx->target->name);
      for (P::ArgContext *A : Ctx->target->arg()) {
        Arg Ar;
        if (A->name) {
          Ar.Name = A->name->getText();
          Ar.NameRange = range(A->name);
        }
        Ar.Value = expr(A->value);
        S->Args.push_back(std::move(Ar));
      }
    } else {
      S->Base = qualifiedName(Ctx->base);
    }
    for (P::SketchItemContext *Item : Ctx->sketchItem())
      S->Items.push_back(sketchItem(Item));
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
