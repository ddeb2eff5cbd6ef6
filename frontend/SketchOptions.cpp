//===- frontend/SketchOptions.cpp - Protocol, solver settings, symmetry ---===//
//
// Checks the sketch items that do not shape the topology:
//   - `protocol ...` (SketchProtocol.cpp);
//   - `phases within nodes, across nodes, ...` (the phases' order; solved
//     by passes/Phases.cpp) on a machine of several nodes;
//   - `time limit Q` (a time > 0) and `gap X` (0 <= X < 1) for the solver;
//   - `symmetry ...`: each generator is turned into a rank permutation and
//     proved to be an automorphism of the logical topology: every link must
//     map to a link of the same class, cost, multiplicity and switch, and
//     NICs and switch groups onto their like; the first link (or NIC) that
//     does not is named in the error.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"
#include "frontend/Units.h"
#include "ir/Automorphisms.h"

#include "llvm/Support/Casting.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace tacclc;
using namespace tacclc::ast;

namespace {
std::string rankName(const ir::Topology &T, unsigned R) {
  if (T.getNumNodes() == 1)
    return std::to_string(R);
  return fmt::format("{}:{}", R / T.getGpusPerNode(), R % T.getGpusPerNode());
}

std::string linkText(const ir::Topology &T, const ir::Link &L) {
  std::string S =
      rankName(T, L.Src.index()) + " -> " + rankName(T, L.Dst.index());
  if (L.Class >= 0)
    S += " (" + T.classes()[L.Class].Name + ")";
  return S;
}

bool sameCost(const ir::Link &A, const ir::Link &B) {
  auto Close = [](double X, double Y) {
    return std::abs(X - Y) <= 1e-12 * std::max(std::abs(X), std::abs(Y));
  };
  return A.Class == B.Class && A.Multiplicity == B.Multiplicity &&
         A.Switch == B.Switch && Close(A.AlphaUs, B.AlphaUs) &&
         Close(A.BetaUsPerB, B.BetaUsPerB);
}

/// The sorted image of \p Ranks under \p Perm (the identity if empty).
std::vector<unsigned> image(llvm::ArrayRef<ir::RankId> Ranks,
                            llvm::ArrayRef<unsigned> Perm = {}) {
  std::vector<unsigned> Out;
  for (ir::RankId R : Ranks)
    Out.push_back(Perm.empty() ? R.index() : Perm[R.index()]);
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string rankList(const ir::Topology &T, llvm::ArrayRef<unsigned> Ranks) {
  std::string Out;
  for (unsigned R : Ranks)
    Out += (Out.empty() ? "" : ", ") + rankName(T, R);
  return Out;
}

/// A symmetry must also map every NIC onto a NIC and every switch group
/// onto a group of the same switch, or shared ports would not correspond.
/// Returns a description of the first violation, or nothing.
std::optional<std::string> breaksSharing(const ir::Topology &T,
                                         llvm::ArrayRef<unsigned> Perm) {
  std::set<std::vector<unsigned>> Nics;
  for (const ir::Nic &N : T.nics())
    Nics.insert(image(N.Ranks));
  for (const ir::Nic &N : T.nics())
    if (!Nics.count(image(N.Ranks, Perm)))
      return "it maps the NIC of " + rankList(T, image(N.Ranks)) + " onto " +
             rankList(T, image(N.Ranks, Perm)) + ", which do not share a NIC";
  for (const ir::Switch &Sw : T.switches()) {
    std::set<std::vector<unsigned>> Groups;
    for (const auto &G : Sw.Groups)
      Groups.insert(image(G));
    for (const auto &G : Sw.Groups)
      if (!Groups.count(image(G, Perm)))
        return "it maps GPUs of switch '" + Sw.Name + "' onto " +
               rankList(T, image(G, Perm)) + ", which are not one group of it";
  }
  return std::nullopt;
}

/// Builds the permutation of one form; nothing after an error.
std::optional<std::vector<unsigned>> permutation(const SymmetryForm &F,
                                                 const ir::Topology &T,
                                                 DiagnosticEngine &Diags) {
  Scope S;
  S.define("nodes", T.getNumNodes(), {});
  S.define("gpus", T.getGpusPerNode(), {});
  S.define("ranks", T.getNumRanks(), {});
  const unsigned N = T.getNumRanks(), G = T.getGpusPerNode();
  std::vector<unsigned> Perm(N);
  if (F.Kind == SymmetryForm::Map) {
    if (F.Perm.size() != N) {
      Diags.report(DiagId::BadPermutation, F.Range, N,
                   fmt::format("it lists {}", F.Perm.size()));
      return std::nullopt;
    }
    std::vector<bool> Seen(N, false);
    for (unsigned R = 0; R < N; ++R) {
      auto V = evalExpr(*F.Perm[R], S, Diags);
      if (!V)
        return std::nullopt;
      if (*V < 0 || *V >= int64_t(N) || Seen[*V]) {
        Diags.report(DiagId::BadPermutation, F.Perm[R]->getRange(), N,
                     *V < 0 || *V >= int64_t(N)
                         ? fmt::format("{} is not a rank", *V)
                         : fmt::format("{} appears twice", *V));
        return std::nullopt;
      }
      Seen[*V] = true;
      Perm[R] = unsigned(*V);
    }
    return Perm;
  }
  // `within S` only applies to ranks; gpus rotate within a node.
  if ((F.Kind == SymmetryForm::RotateRanks && F.What != "ranks") ||
      (F.Group && F.Kind != SymmetryForm::RotateRanks)) {
    Diags.report(DiagId::BadSymmetryNoun, F.WhatRange, F.What);
    return std::nullopt;
  }
  auto K = evalExpr(*F.Amount, S, Diags);
  if (!K)
    return std::nullopt;
  int64_t Group = N;
  if (F.Group) {
    auto V = evalExpr(*F.Group, S, Diags);
    if (!V)
      return std::nullopt;
    if (*V < 1 || N % *V != 0) {
      Diags.report(DiagId::BadSymmetryGroup, F.Group->getRange(), *V, N);
      return std::nullopt;
    }
    Group = *V;
  }
  auto Mod = [](int64_t A, int64_t M) { return ((A % M) + M) % M; };
  int64_t Shift = 0; // K reduced first, so nothing below can overflow
  switch (F.Kind) {
  case SymmetryForm::RotateGpus:
    Shift = Mod(*K, G);
    break;
  case SymmetryForm::RotateNodes:
    Shift = Mod(*K, T.getNumNodes());
    break;
  default:
    Shift = Mod(*K, Group);
  }
  for (unsigned R = 0; R < N; ++R) {
    int64_t Image;
    switch (F.Kind) {
    case SymmetryForm::RotateGpus:
      Image = R / G * G + Mod(R % G + Shift, G);
      break;
    case SymmetryForm::RotateNodes:
      Image = Mod(R / G + Shift, T.getNumNodes()) * G + R % G;
      break;
    default:
      Image = R / Group * Group + Mod(R % Group + Shift, Group);
    }
    Perm[R] = unsigned(Image);
  }
  return Perm;
}
/// Proves \p Perm a symmetry of the logical topology and of the machine's
/// sharing (NICs, switch groups) and records it as \p Text; false after
/// reporting why not.
bool proveSymmetry(std::vector<unsigned> Perm, const std::string &Text,
                   llvm::SMRange Range, ir::Sketch &Out,
                   DiagnosticEngine &Diags) {
  const ir::Topology &T = Out.Topo;
  for (const ir::Link &L : T.links()) {
    ir::RankId A(Perm[L.Src.index()]), B(Perm[L.Dst.index()]);
    auto Image = T.findLink(A, B);
    if (Image && sameCost(L, T.link(*Image)))
      continue;
    std::string To = rankName(T, A.index()) + " -> " + rankName(T, B.index());
    Diags.report(DiagId::SymmetryBroken, Range, Text, linkText(T, L), To,
                 Image ? "a link of another class or cost: " +
                             linkText(T, T.link(*Image))
                       : std::string("which is not a link"));
    return false;
  }
  if (auto Why = breaksSharing(T, Perm)) {
    Diags.report(DiagId::SymmetryBreaksSharing, Range, Text, *Why);
    return false;
  }
  Out.Symmetries.push_back({Text, std::move(Perm), Range});
  return true;
}

/// `symmetry auto`: the generators of a large group of the machine's
/// automorphisms that keep the sketch's rules and move every chunk
/// (ir/Automorphisms.h), each proved like a written one.
bool autoSymmetry(const SymmetryForm &F, ir::Sketch &Out,
                  DiagnosticEngine &Diags) {
  ir::SymmetryRules Rules;
  Rules.Carries = Out.Carries;
  const bool Rooted = ir::isRooted(Out.Coll.getKind());
  if (Rooted) {
    Rules.RankColour.assign(Out.Topo.getNumRanks(), 0);
    Rules.RankColour[Out.Coll.getRoot().index()] = 1;
  }
  ir::AutomorphismGroup G = ir::automorphisms(Out.Topo, Rules);
  ir::FreeSubgroup H = ir::chooseFreeSubgroup(Out.Topo, Rules, G);
  // A rooted collective keeps its root in place, so no symmetry moves its
  // chunks: nothing to say.
  if (H.Generators.empty() && !Rooted)
    Diags.report(DiagId::SymmetryAutoNone, F.Range, Out.Topo.getName().str(),
                 ir::collectiveName(Out.Coll.getKind()).str(), G.Order);
  for (size_t I = 0; I < H.Generators.size(); ++I)
    if (!proveSymmetry(H.Generators[I], "auto: " + H.Descriptions[I], F.Range,
                       Out, Diags))
      return false;
  return true;
}

/// The `symmetry` item: each form built and proved, or `auto` alone.
bool checkSymmetries(const SymmetryItem &Sy, ir::Sketch &Out,
                     DiagnosticEngine &Diags) {
  bool Ok = true;
  for (const SymmetryForm &F : Sy.Forms)
    if (F.Kind == SymmetryForm::Named) {
      if (F.What != "auto") {
        Diags.report(DiagId::UnknownSymmetry, F.WhatRange, F.What);
        return false;
      }
      if (Sy.Forms.size() > 1) {
        Diags.report(DiagId::SymmetryAutoAlone, F.Range);
        return false;
      }
      return autoSymmetry(F, Out, Diags);
    }
  // Each generator is checked against every link; TACCL's sketches use
  // at most two.
  constexpr size_t MaxGenerators = 16;
  if (Sy.Forms.size() > MaxGenerators) {
    Diags.report(DiagId::OutOfRange, Sy.Forms[MaxGenerators].Range,
                 "the number of symmetries",
                 fmt::format("at most {}", MaxGenerators),
                 std::to_string(Sy.Forms.size()));
    return false;
  }
  for (const SymmetryForm &F : Sy.Forms) {
    auto Perm = permutation(F, Out.Topo, Diags);
    if (!Perm) {
      Ok = false;
      continue;
    }
    std::string Text =
        llvm::StringRef(F.Range.Start.getPointer(),
                        F.Range.End.getPointer() - F.Range.Start.getPointer())
            .str();
    Ok &= proveSymmetry(std::move(*Perm), Text, F.Range, Out, Diags);
  }
  return Ok;
}

/// `phases within nodes, across nodes, ...`: the phases of a sketch on a
/// machine of several nodes.
bool checkPhases(const PhasesItem &Item, ir::Sketch &Out,
                 DiagnosticEngine &Diags) {
  bool Ok = true;
  for (size_t I = 0; I < Item.Phases.size(); ++I) {
    const PhaseAst &P = Item.Phases[I];
    const char *Where = P.Within ? "within" : "across";
    if (P.What != "nodes") {
      Diags.report(DiagId::PhaseNoun, P.Range, Where, P.What);
      Ok = false;
    } else if (I && Item.Phases[I - 1].Within == P.Within) {
      Diags.report(DiagId::PhaseRepeated, P.Range, Where);
      Ok = false;
    }
    Out.Phases.push_back(
        {P.Within ? ir::Phase::WithinNodes : ir::Phase::AcrossNodes, P.Range});
  }
  if (!Ok)
    return false;
  if (Out.Topo.getNumNodes() < 2) {
    Diags.report(DiagId::PhasesOneNode, Item.getRange(),
                 Out.Topo.getName().str());
    return false;
  }
  return true;
}
} // namespace

bool tacclc::checkSketchOptions(const std::vector<const Node *> &Items,
                                ir::Sketch &Out, DiagnosticEngine &Diags) {
  bool Ok = true;
  for (const Node *I : Items) {
    if (const auto *P = llvm::dyn_cast<ProtocolItem>(I)) {
      Ok &= checkProtocol(*P, Out, Diags);
    } else if (const auto *Ph = llvm::dyn_cast<PhasesItem>(I)) {
      Ok &= checkPhases(*Ph, Out, Diags);
    } else if (const auto *So = llvm::dyn_cast<SolverItem>(I)) {
      const Quantity &Q = So->Value;
      if (I->getKind() == Node::K_TimeLimitItem) {
        auto Us = checkTime(Q, "time limit", Diags);
        if (Us && *Us <= 0) {
          Diags.report(DiagId::BadSolverSetting, Q.Range, "time limit",
                       "positive", Q.Spelling);
          Us.reset();
        }
        if (Us)
          Out.TimeLimitSeconds = *Us / 1e6;
        Ok &= Us.has_value();
      } else if (!(Q.Value >= 0 && Q.Value < 1)) {
        Diags.report(DiagId::BadSolverSetting, Q.Range, "gap",
                     "at least 0 and below 1", Q.Spelling);
        Ok = false;
      } else {
        Out.RelativeGap = Q.Value;
      }
    } else if (const auto *Sy = llvm::dyn_cast<SymmetryItem>(I)) {
      Ok &= checkSymmetries(*Sy, Out, Diags);
    }
  }
  return Ok;
}
