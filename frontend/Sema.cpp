//===- frontend/Sema.cpp - Names, sketches and their items ----------------===//
//
// Semantic analysis of a set of modules:
//   1. collect each module's declarations (redefinitions are errors, and so is
//      a name that clashes with one from a directly imported module);
//   2. pick the sketch to compile (by name, or the only one of the main file);
//   3. follow its `from` chain (cycles are errors) and merge items: the most
//      derived sketch wins for each single item, for each switch's policy,
//      and for relay/exclude/sender items as a group (SketchMerge.cpp);
//   4. resolve the target (`on NAME(args)`, possibly `module.NAME`) to a flat
//      topology or a machine template and instantiate it (MachineEval.cpp);
//   5. build the logical topology (SketchEval.cpp), apply switch policies
//      and check the collective, chunks, size and the other single items
//      (SketchItems.cpp, SketchOptions.cpp), applying defaults (chunks 1,
//      size 1 MB).
// Unknown names get a did-you-mean note; every error points at its token.
// analyzeSketch runs all five steps; a SketchAnalyzer (Frontend.h) runs step
// 1 once and steps 3 to 5 for each sketch it is given, so that analysing
// every sketch of a file is linear in its size.
//
//===----------------------------------------------------------------------===//
#include "frontend/Frontend.h"
#include "frontend/SemaInternal.h"
#include "frontend/Units.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"

#include <cmath>
#include <map>
#include <utility>

using namespace tacclc;
using namespace tacclc::ast;

namespace {
struct ModuleView {
  const Module *Ast;
  std::string Name;
  std::vector<unsigned> Imports;
};

/// A declaration and the module it belongs to.
struct Found {
  const Decl *D = nullptr;
  unsigned Module = 0;
};

const char *kindName(const Decl &D) {
  if (llvm::isa<SketchDecl>(D))
    return "sketch";
  if (llvm::isa<MachineDecl>(D))
    return "machine";
  return "topology";
}

class Sema {
public:
  Sema(std::vector<ModuleView> Views, DiagnosticEngine &Diags)
      : Views(std::move(Views)), Diags(&Diags), Tables(this->Views.size()) {}

  /// All five steps for the sketch named \p Wanted.
  std::optional<ir::Sketch> run(llvm::StringRef Wanted);
  /// Step 1; false after errors.
  bool collect();
  /// Steps 3 to 5 for \p S, reported to \p To (collect() first).
  std::optional<ir::Sketch> analyse(const SketchDecl &S, DiagnosticEngine &To) {
    Diags = &To;
    return analyse(S);
  }

private:
  /// Steps 3 to 5 for \p S: the list of the steps below.
  std::optional<ir::Sketch> analyse(const SketchDecl &S);
  /// Step 3a: the `from` chain of \p S, most derived first; none after an
  /// unknown base, a base that is not a sketch, or a cycle.
  std::optional<std::vector<const SketchDecl *>>
  followChain(const SketchDecl &S);
  /// Step 4: the flat topology or instantiated machine \p Root is on.
  std::optional<Machine> resolveTarget(const SketchDecl &Root);
  /// Step 5: the logical topology, switch policies and single items of
  /// \p S on \p M, from the merged \p Items of its chain.
  std::optional<ir::Sketch> buildSketch(const SketchDecl &S, const Machine &M,
                                        const ChainItems &Items);
  Found lookup(unsigned From, const QualifiedName &Name);
  const SketchDecl *pickSketch(llvm::StringRef Wanted);

  std::vector<ModuleView> Views;
  DiagnosticEngine *Diags;
  std::vector<llvm::StringMap<const Decl *>> Tables;
  llvm::DenseMap<const Decl *, unsigned> ModuleOf;
  /// The did-you-mean of an unknown name, by the module it is used in.
  std::map<std::pair<unsigned, std::string>, const Decl *> Suggestions;
};
} // namespace

bool Sema::collect() {
  const unsigned Before = Diags->errorCount();
  for (unsigned M = 0; M < Views.size(); ++M)
    for (const auto &D : Views[M].Ast->Decls) {
      ModuleOf[D.get()] = M;
      auto [It, Inserted] = Tables[M].try_emplace(D->Name, D.get());
      if (!Inserted) {
        Diagnostic &Err = Diags->report(DiagId::DuplicateDecl, D->NameRange,
                                        kindName(*D), D->Name);
        Diags->note(Err, DiagId::PreviousDecl, It->second->NameRange);
      }
    }
  for (unsigned M = 0; M < Views.size(); ++M)
    for (const auto &D : Views[M].Ast->Decls)
      for (unsigned Imp : Views[M].Imports) {
        auto It = Tables[Imp].find(D->Name);
        if (It == Tables[Imp].end())
          continue;
        Diagnostic &Err =
            Diags->report(DiagId::ImportClash, D->NameRange, D->Name);
        Diags->note(Err, DiagId::DefinedHere, It->second->NameRange, D->Name);
      }
  return Diags->errorCount() == Before;
}

Found Sema::lookup(unsigned From, const QualifiedName &Name) {
  if (!Name.Module.empty()) {
    unsigned Target = Views.size();
    if (Name.Module == Views[From].Name)
      Target = From;
    for (unsigned Imp : Views[From].Imports)
      if (Views[Imp].Name == Name.Module)
        Target = Imp;
    if (Target == Views.size()) {
      Diags->report(DiagId::UnknownModule, Name.Range, Name.Module);
      return {};
    }
    if (const Decl *D = Tables[Target].lookup(Name.Name))
      return {D, Target};
  } else {
    if (const Decl *D = Tables[From].lookup(Name.Name))
      return {D, From};
    std::vector<Found> Hits;
    for (unsigned Imp : Views[From].Imports)
      if (const Decl *D = Tables[Imp].lookup(Name.Name))
        Hits.push_back({D, Imp});
    if (Hits.size() == 1)
      return Hits.front();
    if (Hits.size() > 1) {
      Diagnostic &Err = Diags->report(DiagId::AmbiguousName, Name.Range,
                                      Name.Name, Hits.size());
      for (const Found &F : Hits)
        Diags->note(Err, DiagId::DefinedHere, F.D->NameRange,
                    Views[F.Module].Name + "." + Name.Name);
      return {};
    }
  }
  // Unknown: suggest the closest visible name, found once per module and
  // name (many sketches of one file may name the same unknown machine).
  Diagnostic &Err =
      Diags->report(DiagId::UnknownTopology, Name.Range, Name.str());
  auto [Known, New] = Suggestions.try_emplace({From, Name.Name}, nullptr);
  if (!New) {
    if (const Decl *Best = Known->second)
      Diags->suggest(Err, Name.Range, Best->Name, Best->NameRange);
    return {};
  }
  const Decl *Best = nullptr;
  unsigned BestDist = 3;
  auto Consider = [&](unsigned M) {
    for (const auto &E : Tables[M]) {
      unsigned Dist =
          llvm::StringRef(Name.Name).edit_distance(E.getKey(), true, BestDist);
      if (Dist < BestDist ||
          (Dist == BestDist && Best && E.getKey() < Best->Name)) {
        BestDist = Dist;
        Best = E.second;
      }
    }
  };
  Consider(From);
  for (unsigned Imp : Views[From].Imports)
    Consider(Imp);
  if (Best && BestDist < 3) {
    Known->second = Best;
    Diags->suggest(Err, Name.Range, Best->Name, Best->NameRange);
  }
  return {};
}

const SketchDecl *Sema::pickSketch(llvm::StringRef Wanted) {
  std::vector<const SketchDecl *> Own;
  for (const auto &D : Views[0].Ast->Decls)
    if (const auto *S = llvm::dyn_cast<SketchDecl>(D.get()))
      Own.push_back(S);
  llvm::StringRef File = Diags->getSourceMgr()
                             .getMemoryBuffer(Views[0].Ast->BufferId)
                             ->getBufferIdentifier();
  if (!Wanted.empty()) {
    auto [Module, Name] = Wanted.rsplit('.');
    QualifiedName Q;
    Q.Module = Name.empty() ? "" : Module.str();
    Q.Name = Name.empty() ? Module.str() : Name.str();
    for (const SketchDecl *S : Own)
      if (Q.Module.empty() && S->Name == Q.Name)
        return S;
    for (unsigned Imp : Views[0].Imports)
      if (Q.Module.empty() || Views[Imp].Name == Q.Module)
        if (const auto *S =
                llvm::dyn_cast_or_null<SketchDecl>(Tables[Imp].lookup(Q.Name)))
          return S;
    Diags->report(DiagId::UnknownSketch, llvm::SMRange(), Wanted.str());
    return nullptr;
  }
  if (Own.empty()) {
    Diags->report(DiagId::NoSketch, llvm::SMRange(), File.str());
    return nullptr;
  }
  if (Own.size() > 1) {
    Diags->report(DiagId::AmbiguousSketch, Own[1]->NameRange, File.str(),
                  Own.size());
    return nullptr;
  }
  return Own.front();
}

std::optional<ir::Sketch> Sema::run(llvm::StringRef Wanted) {
  collect();
  if (Diags->hasErrors())
    return std::nullopt;
  const SketchDecl *S = pickSketch(Wanted);
  if (!S)
    return std::nullopt;
  return analyse(*S);
}

std::optional<ir::Sketch> Sema::analyse(const SketchDecl &S) {
  std::optional<std::vector<const SketchDecl *>> Chain = followChain(S);
  if (!Chain)
    return std::nullopt;
  ChainItems Items = mergeChainItems(*Chain);
  checkDuplicateItems(*Chain, *Diags);
  if (Diags->hasErrors())
    return std::nullopt;
  std::optional<Machine> M = resolveTarget(*Chain->back());
  if (!M)
    return std::nullopt;
  return buildSketch(S, *M, Items);
}

std::optional<std::vector<const SketchDecl *>>
Sema::followChain(const SketchDecl &S) {
  std::vector<const SketchDecl *> Chain = {&S};
  llvm::SmallPtrSet<const SketchDecl *, 4> Seen = {&S};
  while (Chain.back()->Base) {
    const SketchDecl *Cur = Chain.back();
    Found F = lookup(ModuleOf[Cur], *Cur->Base);
    if (!F.D)
      return std::nullopt;
    const auto *Base = llvm::dyn_cast<SketchDecl>(F.D);
    if (!Base) {
      Diags->report(DiagId::NotASketch, Cur->Base->Range, Cur->Base->str(),
                    kindName(*F.D));
      return std::nullopt;
    }
    if (!Seen.insert(Base).second) {
      Diags->report(DiagId::SketchCycle, Cur->Base->Range, Base->Name);
      return std::nullopt;
    }
    Chain.push_back(Base);
  }
  return Chain;
}

std::optional<Machine> Sema::resolveTarget(const SketchDecl &Root) {
  Found T = lookup(ModuleOf[&Root], *Root.Target);
  if (!T.D)
    return std::nullopt;
  if (const auto *Topo = llvm::dyn_cast<TopologyDecl>(T.D)) {
    if (!Root.Args.empty()) {
      Diags->report(DiagId::TopologyTakesNoArgs, Root.Args[0].Value->getRange(),
                    Topo->Name);
      return std::nullopt;
    }
    return checkFlatTopology(*Topo, *Diags);
  }
  if (const auto *Mach = llvm::dyn_cast<MachineDecl>(T.D))
    return instantiateMachine(*Mach, Root.Args, Root.Target->Range, *Diags);
  Diags->report(DiagId::NotAMachine, Root.Target->Range, Root.Target->str(),
                kindName(*T.D));
  return std::nullopt;
}

std::optional<ir::Sketch> Sema::buildSketch(const SketchDecl &S,
                                            const Machine &M,
                                            const ChainItems &Items) {
  ir::Sketch Out;
  Out.Name = S.Name;
  Out.Loc = S.NameRange;
  Out.On = {M.Name, M.Args, M.NameRange};
  RelayRules Rules;
  auto Logical =
      buildLogicalTopology(M, Items.Topo, S.Name, S.NameRange, *Diags, Rules);
  if (!Logical)
    return std::nullopt;
  Out.Topo = std::move(*Logical);
  Out.Carries = std::move(Rules.Carries);
  const std::vector<const Node *> &Relays = Items.Topo.RelayAndExclude;
  if (!Relays.empty())
    Out.RelayLoc = llvm::SMRange(Relays.front()->getRange().Start,
                                 Relays.back()->getRange().End);
  if (!applyPolicies(Items.Policies, Out.Topo, M.Name, *Diags))
    return std::nullopt;
  std::vector<const Node *> Effective = effectiveItems(Items.Singles);
  if (!checkSketchItems(Effective, S.NameRange, S.Name, M.Name, Rules, Out,
                        *Diags) ||
      !checkSketchOptions(Effective, Out, *Diags))
    return std::nullopt;
  return Out;
}

std::optional<ir::Sketch> tacclc::analyzeSketch(const ModuleSet &Modules,
                                                llvm::StringRef SketchName,
                                                DiagnosticEngine &Diags) {
  std::vector<ModuleView> Views;
  for (const SourceModule &M : Modules.Modules)
    Views.push_back({M.Ast.get(), M.Name, M.Imports});
  return Sema(std::move(Views), Diags).run(SketchName);
}

std::optional<ir::Sketch> tacclc::analyzeSketch(const Module &M,
                                                llvm::StringRef SketchName,
                                                DiagnosticEngine &Diags) {
  for (const auto &Imp : M.Imports) {
    Diags.report(DiagId::ImportNotFound, Imp->PathRange, Imp->Path,
                 "imports are not loaded for a single buffer");
    return std::nullopt;
  }
  return Sema({{&M, "main", {}}}, Diags).run(SketchName);
}

struct SketchAnalyzer::Impl {
  Sema S;
  bool Clean;
};

SketchAnalyzer::SketchAnalyzer(const ModuleSet &Modules,
                               DiagnosticEngine &Diags) {
  std::vector<ModuleView> Views;
  for (const SourceModule &M : Modules.Modules)
    Views.push_back({M.Ast.get(), M.Name, M.Imports});
  P.reset(new Impl{Sema(std::move(Views), Diags), false});
  P->Clean = P->S.collect();
}

SketchAnalyzer::~SketchAnalyzer() = default;

std::optional<ir::Sketch> SketchAnalyzer::analyze(const SketchDecl &S,
                                                  DiagnosticEngine &Diags) {
  return P->Clean ? P->S.analyse(S, Diags) : std::nullopt;
}

std::vector<SketchSummary> tacclc::listSketches(const ModuleSet &Modules,
                                                unsigned Module) {
  std::vector<SketchSummary> Out;
  for (const auto &D : Modules.Modules[Module].Ast->Decls)
    if (const auto *S = llvm::dyn_cast<SketchDecl>(D.get())) {
      std::string On;
      if (S->Target) {
        On = "on " + S->Target->str();
        if (!S->Args.empty()) {
          On += "(";
          for (size_t I = 0; I < S->Args.size(); ++I)
            On += (I ? ", " : "") +
                  (S->Args[I].Name.empty() ? "" : S->Args[I].Name + ": ") +
                  printExpr(*S->Args[I].Value);
          On += ")";
        }
      } else {
        On = "from " + S->Base->str();
      }
      Out.push_back({S->Name, On, S->NameRange.Start, S});
    }
  return Out;
}

std::vector<std::string> tacclc::describeMachines(const ModuleSet &Modules,
                                                  DiagnosticEngine &Diags,
                                                  unsigned Module) {
  std::vector<std::string> Out;
  for (const auto &D : Modules.Modules[Module].Ast->Decls) {
    std::optional<Machine> M;
    std::string Head;
    if (const auto *T = llvm::dyn_cast<TopologyDecl>(D.get())) {
      Head = "topology " + T->Name;
      M = checkFlatTopology(*T, Diags);
    } else if (const auto *Mc = llvm::dyn_cast<MachineDecl>(D.get())) {
      Head = "machine " + Mc->Name + "(";
      bool AllDefaults = true;
      for (size_t I = 0; I < Mc->Params.size(); ++I) {
        const Param &P = Mc->Params[I];
        Head += (I ? ", " : "") + P.Name +
                (P.Default ? " = " + printExpr(*P.Default) : "");
        AllDefaults &= P.Default != nullptr;
      }
      Head += ")";
      if (!AllDefaults) {
        Out.push_back(Head + ": needs arguments, not instantiated");
        continue;
      }
      M = instantiateMachine(*Mc, {}, Mc->NameRange, Diags);
    } else {
      continue;
    }
    if (!M)
      continue;
    const ir::Topology &T = M->Physical;
    std::string Extra;
    if (!T.switches().empty())
      Extra += fmt::format(", {} switch(es)", T.switches().size());
    if (!T.nics().empty())
      Extra += fmt::format(", {} NIC(s) per node",
                           T.nics().size() / T.getNumNodes());
    Out.push_back(fmt::format("{}: {} node(s) x {} GPUs, {} links{}", Head,
                              T.getNumNodes(), T.getGpusPerNode(),
                              T.links().size(), Extra));
  }
  return Out;
}
