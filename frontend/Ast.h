//===- frontend/Ast.h - Syntax tree of the sketch language ------*- C++ -*-===//
//
// The AST is what the parser saw, with a source range on every node and no
// meaning attached yet: rank numbers are not range-checked and units are not
// interpreted (that is Sema's job). It is a closed hierarchy with LLVM-style
// RTTI (a Kind enum plus classof), so code dispatches with llvm::isa and
// llvm::dyn_cast; there is no visitor base class. `--emit=ast` prints it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_AST_H
#define TACCLC_FRONTEND_AST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
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
    K_TopologyDecl,
    K_SketchDecl,
    K_RanksItem,
    K_LinkItem,
    K_CollectiveItem,
    K_ChunksItem,
    K_SizeItem,
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

/// `ranks N` inside a topology.
class RanksItem : public Node {
public:
  RanksItem(llvm::SMRange R, IntLit Count)
      : Node(K_RanksItem, R), Count(std::move(Count)) {}
  IntLit Count;
  static bool classof(const Node *N) { return N->getKind() == K_RanksItem; }
};

/// One `alpha Q` or `beta Q` attribute of a link.
struct LinkAttr {
  enum AttrKind { Alpha, Beta } Kind;
  llvm::SMRange KeywordRange;
  Quantity Value;
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
  static bool classof(const Node *N) {
    return N->getKind() == K_CollectiveItem;
  }
};

/// `chunks K` inside a sketch: chunks per rank.
class ChunksItem : public Node {
public:
  ChunksItem(llvm::SMRange R, IntLit Count)
      : Node(K_ChunksItem, R), Count(std::move(Count)) {}
  IntLit Count;
  static bool classof(const Node *N) { return N->getKind() == K_ChunksItem; }
};

/// `size Q` inside a sketch: the buffer size the algorithm is built for.
class SizeItem : public Node {
public:
  SizeItem(llvm::SMRange R, Quantity Size)
      : Node(K_SizeItem, R), Size(std::move(Size)) {}
  Quantity Size;
  static bool classof(const Node *N) { return N->getKind() == K_SizeItem; }
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
    return N->getKind() == K_TopologyDecl || N->getKind() == K_SketchDecl;
  }
};

/// `topology NAME { ... }`.
class TopologyDecl : public Decl {
public:
  TopologyDecl(llvm::SMRange R, std::string Name, llvm::SMRange NameRange)
      : Decl(K_TopologyDecl, R, std::move(Name), NameRange) {}
  static bool classof(const Node *N) { return N->getKind() == K_TopologyDecl; }
};

/// `sketch NAME on TOPOLOGY { ... }`.
class SketchDecl : public Decl {
public:
  SketchDecl(llvm::SMRange R, std::string Name, llvm::SMRange NameRange,
             std::string Topology, llvm::SMRange TopologyRange)
      : Decl(K_SketchDecl, R, std::move(Name), NameRange),
        Topology(std::move(Topology)), TopologyRange(TopologyRange) {}
  std::string Topology;
  llvm::SMRange TopologyRange;
  static bool classof(const Node *N) { return N->getKind() == K_SketchDecl; }
};

/// One parsed file.
struct Module {
  unsigned BufferId = 0;
  std::vector<std::unique_ptr<Decl>> Decls;
};

/// Prints \p M as an indented tree with `@line:col` on every node.
void dumpAst(const Module &M, const llvm::SourceMgr &SM, llvm::raw_ostream &OS);

} // namespace tacclc::ast

#endif // TACCLC_FRONTEND_AST_H
