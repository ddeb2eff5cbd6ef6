//===- frontend/MachineEval.cpp - Instantiate machine templates -----------===//
//
// Runs a machine body with concrete arguments:
//   1. bind parameters (positional or by name; defaults may use earlier
//      parameters); every parameter needs a value;
//   2. collect the link classes (top level only) and check their costs;
//   3. execute statements in order: `gpus per node` (which also defines
//      `gpus` for later expressions), definitions, `nic`, `switch`,
//      `link` statements (endpoints evaluated to node:gpu pairs, `x2` for
//      parallel links) and `for` loops (bounded: at most MaxLoopIterations
//      iterations in all);
//   4. the node count is `nodes` (a parameter or a definition), default 1;
//   5. check every endpoint against the machine's shape, reject duplicate
//      links, lay out NICs (the same on every node) and switches (a list of
//      local GPUs is one switch per node; node:gpu addresses one switch),
//      and produce the physical ir::Topology.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <set>

using namespace tacclc;
using namespace tacclc::ast;

namespace {
/// One endpoint as evaluated, checked once the machine's shape is known.
struct Endpoint {
  const Address *Ast;
  bool Flat;
  int64_t Node, Gpu;
};

struct PendingLink {
  Endpoint Src, Dst;
  int Class;
  llvm::SMRange Range;
  unsigned Multiplicity = 1;
  const EndpointPair *Pair = nullptr;
  /// The innermost enclosing loop whose variable neither endpoint uses
  /// (each of its iterations declares the same link), or null.
  const ForStmt *IgnoredLoop = nullptr;
};

/// `x2` -> 2; 0 when malformed.
unsigned parseMultiplicity(llvm::StringRef Text) {
  unsigned V = 0;
  if (!Text.consume_front("x") || Text.empty() || Text.size() > 3 ||
      Text.getAsInteger(10, V))
    return 0;
  return V;
}

class MachineEvaluator {
public:
  MachineEvaluator(const MachineDecl &M, DiagnosticEngine &Diags)
      : M(M), Diags(Diags) {}

  std::optional<Machine> run(llvm::ArrayRef<Arg> Args, llvm::SMRange UseLoc);

private:
  bool bindParams(llvm::ArrayRef<Arg> Args, llvm::SMRange UseLoc);
  bool collectClasses();
  /// Executes one machine statement (step 3), dispatching on its kind.
  void exec(const Node &N);
  /// `gpus per node = e`, which also defines `gpus`.
  void execGpusPerNode(const GpusPerNodeStmt &G);
  /// `name = e`.
  void execLet(const LetStmt &L);
  /// `nic CLASS [gpus]`, kept for layOutNics.
  void execNic(const NicStmt &Ni);
  /// `switch NAME CLASS [gpus]`, kept for layOutSwitches.
  void execSwitch(const SwitchStmt &Sw);
  /// `link CLASS a -> b, ...`: one PendingLink per direction of each pair.
  void execClassLink(const ClassLinkStmt &CL);
  /// The id of link class \p Class, or none after reporting it unknown.
  std::optional<int> classId(const std::string &Class, llvm::SMRange Range);
  /// The `x2` of \p P (1 when absent), or none after reporting it bad.
  std::optional<unsigned> multiplicity(const EndpointPair &P);
  /// False (after reporting) when the machine has more than MaxRanks GPUs.
  bool rankCountFits(int64_t Nodes);
  std::optional<Endpoint> endpoint(const Address &A);
  std::optional<unsigned> rankOf(const Endpoint &E, const ir::Topology &T);
  /// Reports \p L, a link that duplicates the one that \p Prev declared.
  void reportDuplicate(const PendingLink &L, llvm::SMRange Prev, unsigned Src,
                       unsigned Dst);

  const MachineDecl &M;
  DiagnosticEngine &Diags;
  Scope S;
  bool Ok = true;
  uint64_t Iterations = 0;
  std::optional<int64_t> GpusPerNode;
  const Node *GpusStmt = nullptr;
  llvm::StringMap<int> ClassIds;
  std::vector<ir::LinkClass> Classes;
  std::vector<llvm::SMRange> ClassLocs;
  std::vector<PendingLink> Links;
  std::vector<const ForStmt *> Loops; ///< The loops being run, outermost first.
  /// Links reported as repeated by a loop that they do not depend on: a
  /// loop of many iterations repeats them many times, reported once.
  std::set<const EndpointPair *> RepeatedByLoop;
  std::vector<PendingNic> Nics;
  uint64_t NicGpus = 0; ///< GPUs listed by the `nic` statements so far.
  std::vector<PendingSwitch> Switches;
  /// The arguments given, evaluated (Machine::Args).
  std::vector<std::pair<std::string, int64_t>> Evaluated;
};
} // namespace

bool MachineEvaluator::bindParams(llvm::ArrayRef<Arg> Args,
                                  llvm::SMRange UseLoc) {
  std::vector<const Arg *> Given(M.Params.size(), nullptr);
  size_t Positional = 0;
  bool Good = true;
  for (const Arg &A : Args) {
    if (A.Name.empty()) {
      if (Positional >= M.Params.size()) {
        Diags.report(DiagId::TooManyArguments, A.Value->getRange(), M.Name,
                     M.Params.size(), Args.size());
        return false;
      }
      Given[Positional++] = &A;
      continue;
    }
    size_t I = 0;
    while (I < M.Params.size() && M.Params[I].Name != A.Name)
      ++I;
    if (I == M.Params.size()) {
      Diags.report(DiagId::UnknownParameter, A.NameRange, M.Name, A.Name);
      Good = false;
    } else if (Given[I]) {
      Diags.report(DiagId::DuplicateArgument, A.NameRange, A.Name);
      Good = false;
    } else {
      Given[I] = &A;
    }
  }
  if (!Good)
    return false;
  Scope Caller; // arguments are constant expressions
  for (size_t I = 0; I < M.Params.size(); ++I) {
    const Param &P = M.Params[I];
    if (!P.Type.empty() && P.Type != "int") {
      Diags.report(DiagId::UnknownParamType, P.TypeRange, P.Type);
      Good = false;
      continue;
    }
    std::optional<int64_t> V;
    if (Given[I]) {
      V = evalExpr(*Given[I]->Value, Caller, Diags);
    } else if (P.Default) {
      V = evalExpr(*P.Default, S, Diags);
    } else {
      Diagnostic &D =
          Diags.report(DiagId::MissingArgument, UseLoc, M.Name, P.Name);
      Diags.note(D, DiagId::DefinedHere, P.NameRange, P.Name);
      Good = false;
      continue;
    }
    if (!V) {
      Good = false;
      continue;
    }
    if (!S.define(P.Name, *V, P.NameRange)) {
      Diags.report(DiagId::Redefinition, P.NameRange, P.Name);
      Good = false;
    } else if (Given[I]) {
      Evaluated.emplace_back(P.Name, *V);
    }
  }
  return Good;
}

bool MachineEvaluator::collectClasses() {
  bool Good = true;
  std::function<void(const Node &, bool)> Walk = [&](const Node &N,
                                                     bool InLoop) {
    if (const auto *C = llvm::dyn_cast<ClassStmt>(&N)) {
      if (InLoop) {
        Diags.report(DiagId::ClassInLoop, C->NameRange);
        Good = false;
        return;
      }
      auto [It, Inserted] = ClassIds.try_emplace(C->Name, Classes.size());
      if (!Inserted) {
        Diagnostic &D =
            Diags.report(DiagId::DuplicateDecl, C->NameRange, "class", C->Name);
        Diags.note(D, DiagId::PreviousDecl, ClassLocs[It->second]);
        Good = false;
        return;
      }
      ClassLocs.push_back(C->NameRange);
      ir::LinkClass LC;
      LC.Name = C->Name;
      if (C->Profile.empty() &&
          !checkCosts(C->Attrs, C->NameRange, "class", C->Name, Diags,
                      LC.AlphaUs, LC.BetaUsPerB))
        Good = false;
      if (!checkProfile(*C, LC, Diags))
        Good = false;
      Classes.push_back(LC);
    } else if (const auto *F = llvm::dyn_cast<ForStmt>(&N)) {
      for (const auto &B : F->Body)
        Walk(*B, true);
    }
  };
  for (const auto &I : M.Items)
    Walk(*I, false);
  return Good;
}

std::optional<Endpoint> MachineEvaluator::endpoint(const Address &A) {
  Endpoint E{&A, !A.NodeIndex, 0, 0};
  auto Gpu = evalExpr(*A.Gpu, S, Diags);
  std::optional<int64_t> Node = int64_t(0);
  if (A.NodeIndex)
    Node = evalExpr(*A.NodeIndex, S, Diags);
  if (!Gpu || !Node)
    return std::nullopt;
  E.Node = *Node;
  E.Gpu = *Gpu;
  return E;
}

void MachineEvaluator::exec(const Node &N) {
  if (const auto *G = llvm::dyn_cast<GpusPerNodeStmt>(&N))
    execGpusPerNode(*G);
  else if (const auto *L = llvm::dyn_cast<LetStmt>(&N))
    execLet(*L);
  else if (const auto *Ni = llvm::dyn_cast<NicStmt>(&N))
    execNic(*Ni);
  else if (const auto *Sw = llvm::dyn_cast<SwitchStmt>(&N))
    execSwitch(*Sw);
  else if (const auto *CL = llvm::dyn_cast<ClassLinkStmt>(&N))
    execClassLink(*CL);
  else if (const auto *F = llvm::dyn_cast<ForStmt>(&N)) {
    Loops.push_back(F);
    Ok = runLoop(*F, S, Iterations, Diags, [&](const Node &B) {
      exec(B);
      return Ok;
    });
    Loops.pop_back();
  }
  // ClassStmt was handled by collectClasses.
}

std::optional<int> MachineEvaluator::classId(const std::string &Class,
                                             llvm::SMRange Range) {
  auto It = ClassIds.find(Class);
  if (It == ClassIds.end()) {
    reportUnknownClass(M.Name, Class, Range, Classes, Diags);
    Ok = false;
    return std::nullopt;
  }
  return It->second;
}

void MachineEvaluator::execGpusPerNode(const GpusPerNodeStmt &G) {
  if (GpusStmt) {
    Diags.report(DiagId::DuplicateItem, G.getRange(), "gpus per node");
    Ok = false;
    return;
  }
  GpusStmt = &G;
  GpusPerNode = evalExpr(*G.Value, S, Diags);
  // Later statements refer to it as `gpus`.
  if (GpusPerNode && !S.define("gpus", *GpusPerNode, G.getRange())) {
    Diags.report(DiagId::Redefinition, G.getRange(), "gpus");
    GpusPerNode.reset();
  }
  Ok &= GpusPerNode.has_value();
  // A machine too large is refused before its links are evaluated (a
  // mesh of 10^5 GPUs would spend its whole loop budget first).
  if (GpusPerNode)
    Ok &= rankCountFits(S.lookup("nodes").value_or(1));
}

void MachineEvaluator::execLet(const LetStmt &L) {
  auto V = evalExpr(*L.Value, S, Diags);
  if (!V) {
    Ok = false;
  } else if (!S.define(L.Name, *V, L.NameRange)) {
    Diagnostic &D = Diags.report(DiagId::Redefinition, L.NameRange, L.Name);
    Diags.note(D, DiagId::PreviousDecl, S.definition(L.Name));
    Ok = false;
  }
}

void MachineEvaluator::execNic(const NicStmt &Ni) {
  std::optional<int> Class = classId(Ni.Class, Ni.ClassRange);
  if (!Class)
    return;
  PendingNic P{*Class, std::nullopt, &Ni};
  if (Ni.Gpus) {
    P.Gpus = evalGpuList(*Ni.Gpus, S, Diags);
    if (!P.Gpus) {
      Ok = false;
      return;
    }
    // A local GPU is served by one NIC at most, so more than MaxRanks in
    // all cannot lay out; stop here, before a loop piles up millions.
    NicGpus += P.Gpus->size();
    if (NicGpus > MaxRanks) {
      Diags.report(DiagId::OutOfRange, Ni.getRange(),
                   "the number of GPUs served by NICs",
                   fmt::format("at most {} (one NIC per GPU)", MaxRanks),
                   NicGpus);
      Ok = false;
      return;
    }
  }
  Nics.push_back(std::move(P));
}

void MachineEvaluator::execSwitch(const SwitchStmt &Sw) {
  std::optional<int> Class = classId(Sw.Class, Sw.ClassRange);
  if (!Class)
    return;
  for (const PendingSwitch &Prev : Switches)
    if (Prev.Stmt->Name == Sw.Name) {
      Diagnostic &D =
          Diags.report(DiagId::DuplicateDecl, Sw.NameRange, "switch", Sw.Name);
      Diags.note(D, DiagId::PreviousDecl, Prev.Stmt->NameRange);
      Ok = false;
      return;
    }
  auto Gpus = evalGpuList(Sw.Gpus, S, Diags);
  if (!Gpus) {
    Ok = false;
    return;
  }
  Switches.push_back({*Class, std::move(*Gpus), &Sw});
}

std::optional<unsigned> MachineEvaluator::multiplicity(const EndpointPair &P) {
  if (P.Multiplicity.empty())
    return 1;
  unsigned Mult = parseMultiplicity(P.Multiplicity);
  if (Mult == 0) {
    Diags.report(DiagId::BadMultiplicity, P.MultiplicityRange, P.Multiplicity);
    return std::nullopt;
  }
  if (Mult > MaxMultiplicity) {
    Diags.report(DiagId::OutOfRange, P.MultiplicityRange, "a multiplicity",
                 fmt::format("between x1 and x{}", MaxMultiplicity),
                 P.Multiplicity);
    return std::nullopt;
  }
  return Mult;
}

void MachineEvaluator::execClassLink(const ClassLinkStmt &CL) {
  std::optional<int> Class = classId(CL.Class, CL.ClassRange);
  if (!Class)
    return;
  for (const EndpointPair &P : CL.Pairs) {
    auto Src = endpoint(P.Src), Dst = endpoint(P.Dst);
    if (!Src || !Dst) {
      Ok = false;
      continue;
    }
    std::optional<unsigned> Mult = multiplicity(P);
    if (!Mult) {
      Ok = false;
      continue;
    }
    const ForStmt *Ignored = loopNotUsedBy(Loops, P);
    Links.push_back({*Src, *Dst, *Class, P.Range, *Mult, &P, Ignored});
    if (P.Bidirectional)
      Links.push_back({*Dst, *Src, *Class, P.Range, *Mult, &P, Ignored});
  }
}

std::optional<unsigned> MachineEvaluator::rankOf(const Endpoint &E,
                                                 const ir::Topology &T) {
  const Address &A = *E.Ast;
  if (E.Flat) {
    if (E.Gpu < 0 || E.Gpu >= int64_t(T.getNumRanks())) {
      Diags.report(DiagId::RankOutOfRange, A.Gpu->getRange(), E.Gpu, M.Name,
                   T.getNumRanks() - 1);
      return std::nullopt;
    }
    return static_cast<unsigned>(E.Gpu);
  }
  bool Good = true;
  if (E.Node < 0 || E.Node >= int64_t(T.getNumNodes())) {
    Diags.report(DiagId::NodeOutOfRange, A.NodeIndex->getRange(), E.Node,
                 M.Name, T.getNumNodes() - 1);
    Good = false;
  }
  if (E.Gpu < 0 || E.Gpu >= int64_t(T.getGpusPerNode())) {
    Diags.report(DiagId::GpuOutOfRange, A.Gpu->getRange(), E.Gpu, M.Name,
                 T.getGpusPerNode() - 1);
    Good = false;
  }
  if (!Good)
    return std::nullopt;
  return static_cast<unsigned>(E.Node * T.getGpusPerNode() + E.Gpu);
}

void MachineEvaluator::reportDuplicate(const PendingLink &L, llvm::SMRange Prev,
                                       unsigned Src, unsigned Dst) {
  // A link that repeats itself in a loop whose variable it does not use:
  // one error for the statement, with the fix, however long the loop.
  if (L.IgnoredLoop && Prev.Start == L.Range.Start) {
    if (RepeatedByLoop.insert(L.Pair).second)
      reportLinkRepeatedByLoop(*L.IgnoredLoop, *L.Pair, Src, Dst, Diags);
    return;
  }
  Diagnostic &D = Diags.report(DiagId::DuplicateLink, L.Range, Src, Dst);
  if (Prev.Start != L.Range.Start)
    Diags.note(D, DiagId::PreviousDecl, Prev);
}

bool MachineEvaluator::rankCountFits(int64_t Nodes) {
  // Each factor is checked first so that the product cannot overflow; a
  // count below 1 is reported elsewhere.
  if (Nodes < 1 || *GpusPerNode < 1 ||
      (Nodes <= MaxRanks && *GpusPerNode <= MaxRanks &&
       Nodes * *GpusPerNode <= MaxRanks))
    return true;
  Diags.report(DiagId::RankCountTooLarge, GpusStmt->getRange(),
               fmt::format("{} x {}", Nodes, *GpusPerNode), MaxRanks);
  return false;
}

std::optional<Machine> MachineEvaluator::run(llvm::ArrayRef<Arg> Args,
                                             llvm::SMRange UseLoc) {
  if (!bindParams(Args, UseLoc) || !collectClasses())
    return std::nullopt;
  for (const auto &I : M.Items)
    if (Ok)
      exec(*I);
  if (!Ok)
    return std::nullopt;

  if (!GpusStmt) {
    Diags.report(DiagId::MissingItem, M.NameRange, "machine", M.Name,
                 "gpus per node");
    return std::nullopt;
  }
  if (*GpusPerNode < 1) {
    Diags.report(DiagId::BadGpusPerNode, GpusStmt->getRange(), *GpusPerNode);
    return std::nullopt;
  }
  int64_t Nodes = S.lookup("nodes").value_or(1);
  if (Nodes < 1) {
    Diags.report(DiagId::BadNodeCount,
                 S.definition("nodes").Start.isValid() ? S.definition("nodes")
                                                       : M.NameRange,
                 Nodes);
    return std::nullopt;
  }
  if (!rankCountFits(Nodes))
    return std::nullopt;
  if (Nodes * *GpusPerNode < 2) {
    Diags.report(DiagId::RankCountTooSmall, GpusStmt->getRange(),
                 Nodes * *GpusPerNode);
    return std::nullopt;
  }

  Machine Out;
  Out.Name = M.Name;
  Out.Args = std::move(Evaluated);
  Out.NameRange = M.NameRange;
  Out.NicClass = Nics.empty() ? -1 : Nics.front().Class;
  Out.Physical = ir::Topology(M.Name, unsigned(Nodes), unsigned(*GpusPerNode));
  for (const ir::LinkClass &C : Classes)
    Out.Physical.addClass(C);
  std::map<std::pair<unsigned, unsigned>, llvm::SMRange> Seen;
  bool Good = true;
  for (const PendingLink &L : Links) {
    auto Src = rankOf(L.Src, Out.Physical), Dst = rankOf(L.Dst, Out.Physical);
    if (!Src || !Dst) {
      Good = false;
      continue;
    }
    if (*Src == *Dst) {
      Diags.report(DiagId::SelfLink, L.Range, *Src);
      Good = false;
      continue;
    }
    auto [It, Inserted] = Seen.emplace(std::make_pair(*Src, *Dst), L.Range);
    if (!Inserted) {
      reportDuplicate(L, It->second, *Src, *Dst);
      Good = false;
      continue;
    }
    ir::CostPoint C = Classes[L.Class].costsAt(1e6);
    ir::Link Link{ir::RankId(*Src), ir::RankId(*Dst), C.AlphaUs, C.BetaUsPerB,
                  L.Class};
    Link.Multiplicity = L.Multiplicity;
    Out.Physical.addLink(Link);
  }
  if (!Good ||
      !layOutSwitches(Switches, Classes, Out.Physical, Seen, M.Name, Diags) ||
      !layOutNics(Nics, Out.Physical, M.Name, Diags))
    return std::nullopt;
  return Out;
}

std::optional<Machine> tacclc::instantiateMachine(const MachineDecl &M,
                                                  llvm::ArrayRef<Arg> Args,
                                                  llvm::SMRange UseLoc,
                                                  DiagnosticEngine &Diags) {
  return MachineEvaluator(M, Diags).run(Args, UseLoc);
}
