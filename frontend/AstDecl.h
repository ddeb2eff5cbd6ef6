//===- frontend/AstDecl.h - Syntax tree: items and declarations -*- C++ -*-===//
//
// The nodes of the syntax tree that AstExpr.h does not hold: the items of
// flat topologies and sketches, the statements of machine templates, the
// declarations that own them, and Module, one parsed file. Included
// through frontend/Ast.h.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_ASTDECL_H
#define TACCLC_FRONTEND_ASTDECL_H

#include "frontend/AstExpr.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tacclc::ast {

/// `ranks N` inside a topology.
class RanksItem : public Node {
public:
  RanksItem(llvm::SMRange R, IntLit Count)
      : Node(K_RanksItem, R), Count(std::move(Count)) {}
  IntLit Count;
  static bool classof(const Node *N) { return N->getKind() == K_RanksItem; }
};

/// `link A -> B alpha Q beta Q` (or `<->` for both directions).
class LinkItem : public Node {
public:
  LinkItem(llvm::SMRange R, IntLit Src, IntLit Dst, bool Bidirectional,
           std::vector<LinkAttr> Attrs)
      : Node(K_LinkItem, R), Src(std::move(Src)), Dst(std::move(Dst)),
        Bidirectional(Bidirectional), Attrs(std::move(Attrs)) {}
  IntLit Src, Dst;
  bool Bidirectional;
  std::vector<LinkAttr> Attrs;
  static bool classof(const Node *N) { return N->getKind() == K_LinkItem; }
};

/// `collective NAME` inside a sketch.
class CollectiveItem : public Node {
public:
  CollectiveItem(llvm::SMRange R, std::string Name, llvm::SMRange NameRange)
      : Node(K_CollectiveItem, R), Name(std::move(Name)), NameRange(NameRange) {
  }
  std::string Name;
  llvm::SMRange NameRange;
  /// `root ADDRESS` of a rooted collective (broadcast, reduce, ...).
  std::shared_ptr<Address> Root;
  static bool classof(const Node *N) {
    return N->getKind() == K_CollectiveItem;
  }
};

/// `chunks K` inside a sketch: chunks per rank.
class ChunksItem : public Node {
public:
  ChunksItem(llvm::SMRange R, IntLit Count)
      : Node(K_ChunksItem, R), Count(std::move(Count)) {}
  /// The number written, unless a word was (Word).
  IntLit Count;
  /// `chunks auto` (or a misspelling of it): the word and where it is;
  /// empty when a number was written.
  std::string Word;
  llvm::SMRange WordRange;
  static bool classof(const Node *N) { return N->getKind() == K_ChunksItem; }
};

/// `size Q` inside a sketch: the buffer size the algorithm is built for.
class SizeItem : public Node {
public:
  SizeItem(llvm::SMRange R, Quantity Size)
      : Node(K_SizeItem, R), Size(std::move(Size)) {}
  Quantity Size;
  /// `size LO .. HI`: the upper end of the range the algorithm serves.
  std::optional<Quantity> Hi;
  static bool classof(const Node *N) { return N->getKind() == K_SizeItem; }
};

/// `gpus per node = e` in a machine.
class GpusPerNodeStmt : public Node {
public:
  GpusPerNodeStmt(llvm::SMRange R, ExprPtr Value)
      : Node(K_GpusPerNodeStmt, R), Value(std::move(Value)) {}
  ExprPtr Value;
  static bool classof(const Node *N) {
    return N->getKind() == K_GpusPerNodeStmt;
  }
};

/// `name = e` in a machine (a local definition; `nodes = e` sets the node
/// count).
class LetStmt : public Node {
public:
  LetStmt(llvm::SMRange R, std::string Name, llvm::SMRange NameRange,
          ExprPtr Value)
      : Node(K_LetStmt, R), Name(std::move(Name)), NameRange(NameRange),
        Value(std::move(Value)) {}
  std::string Name;
  llvm::SMRange NameRange;
  ExprPtr Value;
  static bool classof(const Node *N) { return N->getKind() == K_LetStmt; }
};

/// `at 32 KB { alpha ...  beta ... }`: costs measured at one message size.
struct ProfilePoint {
  Quantity Size;
  std::vector<LinkAttr> Attrs;
  llvm::SMRange Range;
};

/// `class NAME { alpha Q beta Q }`: a kind of link with its cost.
class ClassStmt : public Node {
public:
  ClassStmt(llvm::SMRange R, std::string Name, llvm::SMRange NameRange,
            std::vector<LinkAttr> Attrs)
      : Node(K_ClassStmt, R), Name(std::move(Name)), NameRange(NameRange),
        Attrs(std::move(Attrs)) {}
  std::string Name;
  llvm::SMRange NameRange;
  std::vector<LinkAttr> Attrs;
  std::vector<ProfilePoint> Profile;
  static bool classof(const Node *N) { return N->getKind() == K_ClassStmt; }
};

/// `link CLASS a -> b, c <-> d, ...` in a machine.
class ClassLinkStmt : public Node {
public:
  ClassLinkStmt(llvm::SMRange R, std::string Class, llvm::SMRange ClassRange,
                std::vector<EndpointPair> Pairs)
      : Node(K_ClassLinkStmt, R), Class(std::move(Class)),
        ClassRange(ClassRange), Pairs(std::move(Pairs)) {}
  std::string Class;
  llvm::SMRange ClassRange;
  std::vector<EndpointPair> Pairs;
  static bool classof(const Node *N) { return N->getKind() == K_ClassLinkStmt; }
};

/// `nic CLASS`: the class of links between nodes.
class NicStmt : public Node {
public:
  NicStmt(llvm::SMRange R, std::string Class, llvm::SMRange ClassRange)
      : Node(K_NicStmt, R), Class(std::move(Class)), ClassRange(ClassRange) {}
  std::string Class;
  llvm::SMRange ClassRange;
  /// The local GPUs sharing this NIC; absent: one NIC for the whole node.
  std::optional<GpuList> Gpus;
  static bool classof(const Node *N) { return N->getKind() == K_NicStmt; }
};

/// `switch NAME CLASS [gpus]`: a switch hyperedge joining the GPUs.
class SwitchStmt : public Node {
public:
  SwitchStmt(llvm::SMRange R, std::string Name, llvm::SMRange NameRange,
             std::string Class, llvm::SMRange ClassRange, GpuList Gpus)
      : Node(K_SwitchStmt, R), Name(std::move(Name)), NameRange(NameRange),
        Class(std::move(Class)), ClassRange(ClassRange), Gpus(std::move(Gpus)) {
  }
  std::string Name;
  llvm::SMRange NameRange;
  std::string Class;
  llvm::SMRange ClassRange;
  GpuList Gpus;
  static bool classof(const Node *N) { return N->getKind() == K_SwitchStmt; }
};

/// `for VAR in LO..HI { ... }` (HI excluded), in machines and sketches.
class ForStmt : public Node {
public:
  ForStmt(llvm::SMRange R, std::string Var, llvm::SMRange VarRange, ExprPtr Lo,
          ExprPtr Hi)
      : Node(K_ForStmt, R), Var(std::move(Var)), VarRange(VarRange),
        Lo(std::move(Lo)), Hi(std::move(Hi)) {}
  std::string Var;
  llvm::SMRange VarRange;
  ExprPtr Lo, Hi;
  std::vector<std::unique_ptr<Node>> Body;
  static bool classof(const Node *N) { return N->getKind() == K_ForStmt; }
};

/// `links CLASS, ...` in a sketch: the link classes of the logical topology.
class LinksItem : public Node {
public:
  struct Name {
    std::string Text;
    llvm::SMRange Range;
  };
  LinksItem(llvm::SMRange R, std::vector<Name> Classes, Kind K = K_LinksItem)
      : Node(K, R), Classes(std::move(Classes)) {}
  std::vector<Name> Classes;
  /// `links` and `contiguous` both name link classes.
  static bool classof(const Node *N) {
    return N->getKind() == K_LinksItem || N->getKind() == K_ContiguousItem;
  }
};

/// `relay a -> b, ...` (inter-node links of the sketch) or
/// `exclude a -> b, ...` (links left out of the logical topology).
class PairsItem : public Node {
public:
  PairsItem(Kind K, llvm::SMRange R, std::vector<EndpointPair> Pairs)
      : Node(K, R), Pairs(std::move(Pairs)) {}
  std::vector<EndpointPair> Pairs;
  static bool classof(const Node *N) {
    return N->getKind() == K_RelayItem || N->getKind() == K_ExcludeItem ||
           N->getKind() == K_RelayEachItem;
  }
};

/// `relay direct`, `relay all`, `sender first` or `identical results`
/// (Form says which).
class FormItem : public Node {
public:
  FormItem(Kind K, llvm::SMRange R, std::string Form)
      : Node(K, R), Form(std::move(Form)) {}
  std::string Form;
  static bool classof(const Node *N) {
    return N->getKind() == K_RelayFormItem ||
           N->getKind() == K_SenderFirstItem || N->getKind() == K_IdenticalItem;
  }
};

/// `sender G carries [gpus]`: local GPU G sends the chunks of those GPUs to
/// other nodes (and no other GPU does).
class SenderItem : public Node {
public:
  SenderItem(llvm::SMRange R, ExprPtr Gpu, GpuList Carried)
      : Node(K_SenderItem, R), Gpu(std::move(Gpu)),
        Carried(std::move(Carried)) {}
  ExprPtr Gpu;
  GpuList Carried;
  static bool classof(const Node *N) { return N->getKind() == K_SenderItem; }
};

/// `policy SWITCH uc-min`.
class PolicyItem : public Node {
public:
  PolicyItem(llvm::SMRange R, std::string Switch, llvm::SMRange SwitchRange,
             std::string Value, llvm::SMRange ValueRange)
      : Node(K_PolicyItem, R), Switch(std::move(Switch)),
        SwitchRange(SwitchRange), Value(std::move(Value)),
        ValueRange(ValueRange) {}
  std::string Switch;
  llvm::SMRange SwitchRange;
  std::string Value;
  llvm::SMRange ValueRange;
  static bool classof(const Node *N) { return N->getKind() == K_PolicyItem; }
};

/// `instances N`.
class InstancesItem : public Node {
public:
  InstancesItem(llvm::SMRange R, IntLit Count)
      : Node(K_InstancesItem, R), Count(std::move(Count)) {}
  IntLit Count;
  static bool classof(const Node *N) { return N->getKind() == K_InstancesItem; }
};

/// One choice of a `protocol` item: `LL` or `LL below 64 KiB`.
struct ProtocolChoiceAst {
  std::string Name;
  llvm::SMRange NameRange;
  /// The size the choice stops below; none on the last choice of a list.
  std::optional<Quantity> Below;
};

/// `protocol Simple|LL|LL128|auto`, or a protocol per size range:
/// `protocol LL below 64 KiB, LL128 below 1 MiB, Simple`.
class ProtocolItem : public Node {
public:
  ProtocolItem(llvm::SMRange R, std::vector<ProtocolChoiceAst> Choices)
      : Node(K_ProtocolItem, R), Choices(std::move(Choices)) {}
  /// In source order; never empty.
  std::vector<ProtocolChoiceAst> Choices;
  static bool classof(const Node *N) { return N->getKind() == K_ProtocolItem; }
};

/// One phase of `phases within nodes, across nodes`.
struct PhaseAst {
  bool Within = true; ///< `within` (else `across`).
  std::string What;   ///< The noun: `nodes`.
  llvm::SMRange WhatRange;
  llvm::SMRange Range; ///< The whole phase.
};

/// `phases within nodes, across nodes, ...`: solve the sketch in phases.
class PhasesItem : public Node {
public:
  PhasesItem(llvm::SMRange R, std::vector<PhaseAst> Phases)
      : Node(K_PhasesItem, R), Phases(std::move(Phases)) {}
  /// In source order; never empty.
  std::vector<PhaseAst> Phases;
  static bool classof(const Node *N) { return N->getKind() == K_PhasesItem; }
};

/// `time limit Q` (solver time per MILP) or `gap X` (relative MILP gap).
class SolverItem : public Node {
public:
  SolverItem(Kind K, llvm::SMRange R, Quantity Value)
      : Node(K, R), Value(std::move(Value)) {}
  Quantity Value;
  static bool classof(const Node *N) {
    return N->getKind() == K_TimeLimitItem || N->getKind() == K_GapItem;
  }
};

/// One symmetry generator of a `symmetry` item.
struct SymmetryForm {
  /// Named: a word, of which `auto` is the one Sema knows.
  enum FormKind { RotateGpus, RotateNodes, RotateRanks, Map, Named } Kind;
  ExprPtr Amount;            ///< Rotations.
  ExprPtr Group;             ///< `within S` (RotateRanks only).
  std::vector<ExprPtr> Perm; ///< The image of each rank (Map).
  std::string What;          ///< The rotated noun as written.
  llvm::SMRange WhatRange;
  llvm::SMRange Range;
};

/// `symmetry FORM, ...`.
class SymmetryItem : public Node {
public:
  SymmetryItem(llvm::SMRange R, std::vector<SymmetryForm> Forms)
      : Node(K_SymmetryItem, R), Forms(std::move(Forms)) {}
  std::vector<SymmetryForm> Forms;
  static bool classof(const Node *N) { return N->getKind() == K_SymmetryItem; }
};

/// A named declaration holding items.
class Decl : public Node {
public:
  Decl(Kind K, llvm::SMRange R, std::string Name, llvm::SMRange NameRange)
      : Node(K, R), Name(std::move(Name)), NameRange(NameRange) {}
  std::string Name;
  llvm::SMRange NameRange;
  std::vector<std::unique_ptr<Node>> Items;
  static bool classof(const Node *N) {
    return N->getKind() >= K_TopologyDecl && N->getKind() <= K_SketchDecl;
  }
};

/// `import "path"`.
class ImportDecl : public Node {
public:
  ImportDecl(llvm::SMRange R, std::string Path, llvm::SMRange PathRange)
      : Node(K_ImportDecl, R), Path(std::move(Path)), PathRange(PathRange) {}
  std::string Path; ///< Without the quotes.
  llvm::SMRange PathRange;
  static bool classof(const Node *N) { return N->getKind() == K_ImportDecl; }
};

/// `topology NAME { ... }`.
class TopologyDecl : public Decl {
public:
  TopologyDecl(llvm::SMRange R, std::string Name, llvm::SMRange NameRange)
      : Decl(K_TopologyDecl, R, std::move(Name), NameRange) {}
  static bool classof(const Node *N) { return N->getKind() == K_TopologyDecl; }
};

/// One machine parameter: `name (: int)? (= default)?`.
struct Param {
  std::string Name;
  llvm::SMRange NameRange;
  ExprPtr Default;  ///< Null when the parameter is required.
  std::string Type; ///< As written after ':' (empty if none).
  llvm::SMRange TypeRange;
};

/// `machine NAME(params) { statements }`.
class MachineDecl : public Decl {
public:
  MachineDecl(llvm::SMRange R, std::string Name, llvm::SMRange NameRange)
      : Decl(K_MachineDecl, R, std::move(Name), NameRange) {}
  std::vector<Param> Params;
  static bool classof(const Node *N) { return N->getKind() == K_MachineDecl; }
};

/// A possibly qualified name: `name` or `module.name`.
struct QualifiedName {
  std::string Module; ///< Empty when unqualified.
  std::string Name;
  llvm::SMRange Range;
  /// The name as written.
  std::string str() const {
    return Module.empty() ? Name : Module + "." + Name;
  }
};

/// One argument of a machine reference: `value` or `name: value`.
struct Arg {
  std::string Name; ///< Empty for a positional argument.
  llvm::SMRange NameRange;
  ExprPtr Value;
};

/// `sketch NAME on TARGET(args) { ... }` or `sketch NAME from BASE { ... }`.
class SketchDecl : public Decl {
public:
  SketchDecl(llvm::SMRange R, std::string Name, llvm::SMRange NameRange)
      : Decl(K_SketchDecl, R, std::move(Name), NameRange) {}
  /// `on TARGET(args)`: the topology or machine (empty with `from`).
  std::optional<QualifiedName> Target;
  std::vector<Arg> Args;
  /// `from BASE`: the sketch this one starts from.
  std::optional<QualifiedName> Base;
  static bool classof(const Node *N) { return N->getKind() == K_SketchDecl; }
};

/// One parsed file.
struct Module {
  unsigned BufferId = 0;
  std::vector<std::unique_ptr<ImportDecl>> Imports;
  std::vector<std::unique_ptr<Decl>> Decls;
};

/// Prints \p M as an indented tree with `@line:col` on every node.
void dumpAst(const Module &M, const llvm::SourceMgr &SM, llvm::raw_ostream &OS);

} // namespace tacclc::ast

#endif // TACCLC_FRONTEND_ASTDECL_H
