//===- frontend/AstExpr.h - Syntax tree: nodes and expressions --*- C++ -*-===//
//
// The base of the sketch language's syntax tree (Node, with the Kind enum
// of the whole closed hierarchy and its source range), the literals and
// quantities it is built from, and the integer expressions and GPU
// addresses that machine statements and sketch items share. Included
// through frontend/Ast.h; frontend/AstDecl.h holds the items, statements
// and declarations.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_ASTEXPR_H
#define TACCLC_FRONTEND_ASTEXPR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tacclc::ast {

/// An integer literal as written.
struct IntLit {
  uint64_t Value = 0;
  bool Overflow = false; ///< The literal does not fit in 64 bits.
  std::string Spelling;
  llvm::SMRange Range;
};

/// A number with an optional unit, e.g. `46 us/MB`.
struct Quantity {
  double Value = 0;
  bool IsInteger = false;
  std::string Spelling; ///< The number as written.
  std::string Unit;     ///< Empty when no unit was written; else `us/MB`.
  llvm::SMRange NumberRange;
  llvm::SMRange UnitRange; ///< Invalid when there is no unit.
  llvm::SMRange Range;     ///< Number and unit together.
};

/// Base of every AST node.
class Node {
public:
  enum Kind {
    // Declarations.
    K_ImportDecl,
    K_TopologyDecl,
    K_MachineDecl,
    K_SketchDecl,
    // Flat topology items.
    K_RanksItem,
    K_LinkItem,
    // Machine statements.
    K_GpusPerNodeStmt,
    K_LetStmt,
    K_ClassStmt,
    K_ClassLinkStmt,
    K_NicStmt,
    K_SwitchStmt,
    K_ForStmt,
    // Sketch items.
    K_CollectiveItem,
    K_ChunksItem,
    K_SizeItem,
    K_LinksItem,
    K_RelayItem,
    K_RelayEachItem,
    K_ExcludeItem,
    K_RelayFormItem,
    K_SenderItem,
    K_SenderFirstItem,
    K_IdenticalItem,
    K_PolicyItem,
    K_InstancesItem,
    K_ContiguousItem,
    K_ProtocolItem,
    K_PhasesItem,
    K_TimeLimitItem,
    K_GapItem,
    K_SymmetryItem,
    // Expressions.
    K_IntExpr,
    K_NameExpr,
    K_NegExpr,
    K_BinaryExpr,
  };
  Node(Kind K, llvm::SMRange Range) : TheKind(K), Range(Range) {}
  virtual ~Node() = default;
  /// The dynamic kind, for llvm::isa / dyn_cast.
  Kind getKind() const { return TheKind; }
  /// The source range the node covers.
  llvm::SMRange getRange() const { return Range; }
  /// The start of the node (used for `@line:col` and diagnostics).
  llvm::SMLoc getLoc() const { return Range.Start; }

private:
  Kind TheKind;
  llvm::SMRange Range;
};

/// One `alpha Q` or `beta Q` attribute of a link.
struct LinkAttr {
  enum AttrKind { Alpha, Beta } Kind;
  llvm::SMRange KeywordRange;
  Quantity Value;
};

/// Base of integer expressions (machine parameters, ranks, loop bounds).
class Expr : public Node {
public:
  using Node::Node;
  static bool classof(const Node *N) {
    return N->getKind() >= K_IntExpr && N->getKind() <= K_BinaryExpr;
  }
};
using ExprPtr = std::unique_ptr<Expr>;

/// An integer literal in an expression.
class IntExpr : public Expr {
public:
  IntExpr(IntLit Value)
      : Expr(K_IntExpr, Value.Range), Value(std::move(Value)) {}
  IntLit Value;
  static bool classof(const Node *N) { return N->getKind() == K_IntExpr; }
};

/// A reference to a parameter, loop variable or local definition.
class NameExpr : public Expr {
public:
  NameExpr(llvm::SMRange R, std::string Name)
      : Expr(K_NameExpr, R), Name(std::move(Name)) {}
  std::string Name;
  static bool classof(const Node *N) { return N->getKind() == K_NameExpr; }
};

/// `-e`.
class NegExpr : public Expr {
public:
  NegExpr(llvm::SMRange R, ExprPtr Operand)
      : Expr(K_NegExpr, R), Operand(std::move(Operand)) {}
  ExprPtr Operand;
  static bool classof(const Node *N) { return N->getKind() == K_NegExpr; }
};

/// `a op b` with op one of + - * / %.
class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMRange R, char Op, llvm::SMRange OpRange, ExprPtr Lhs,
             ExprPtr Rhs)
      : Expr(K_BinaryExpr, R), Op(Op), OpRange(OpRange), Lhs(std::move(Lhs)),
        Rhs(std::move(Rhs)) {}
  char Op;
  llvm::SMRange OpRange;
  ExprPtr Lhs, Rhs;
  static bool classof(const Node *N) { return N->getKind() == K_BinaryExpr; }
};

/// A GPU: `node:gpu`, or a flat rank number when Node is null.
struct Address {
  ExprPtr NodeIndex; ///< Null for a flat rank.
  ExprPtr Gpu;
  llvm::SMRange Range;
};

/// `a -> b` or `a <-> b`.
struct EndpointPair {
  Address Src, Dst;
  bool Bidirectional = false;
  llvm::SMRange Range;
  /// `x2` after a machine link: parallel links (empty when absent).
  std::string Multiplicity;
  llvm::SMRange MultiplicityRange;
};

/// One element of `[0, 2 .. 4, 1:3]`: an address, or `lo .. hi` (half-open)
/// of local GPU numbers.
struct GpuListElem {
  Address First;
  ExprPtr Last; ///< Null unless a range.
  llvm::SMRange Range;
};
using GpuList = std::vector<GpuListElem>;

/// Prints \p E fully parenthesised, e.g. `((n + 1) % nodes)`.
std::string printExpr(const Expr &E);
/// True if \p E uses the name \p Name.
bool mentionsName(const Expr &E, llvm::StringRef Name);
/// True if either part of \p A uses the name \p Name.
bool mentionsName(const Address &A, llvm::StringRef Name);

} // namespace tacclc::ast

#endif // TACCLC_FRONTEND_ASTEXPR_H
