//===- frontend/SymbolIndex.h - Names and what they refer to ----*- C++ -*-===//
//
// What an editor asks of a sketch file (`tacclc lsp`): the declarations of
// the loaded modules (machines, topologies, sketches, and the parameters,
// definitions, link classes and switches of machines), every name that refers
// to one (a sketch's machine and base, a class in `link`, `nic`, `switch`,
// `links` and `contiguous`, a switch in `policy`), every import and the file it
// loaded, and for each declaration a short description for hovers. Names
// resolve as Sema resolves them: `module.name`, else the module itself, else
// its imports; classes and switches inside the machine a statement or sketch
// refers to (following `from` to the sketch that names a machine).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_SYMBOLINDEX_H
#define TACCLC_FRONTEND_SYMBOLINDEX_H

#include "frontend/Frontend.h"

#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tacclc {

/// One declared name.
struct SymbolDecl {
  /// Param and Let: a machine's parameter and its `name = expr`.
  enum KindT { Machine, Topology, Sketch, Class, Switch, Param, Let };
  KindT Kind = Machine;
  std::string Name;
  /// The module (index into ModuleSet::Modules) it is declared in.
  unsigned Module = 0;
  /// The declaration it is part of (a class's machine), or -1.
  int Parent = -1;
  /// For a sketch: the machine it runs on (following `from`), or -1.
  int On = -1;
  /// The name, and the whole declaration.
  llvm::SMRange NameRange, Range;
  /// A few lines for a hover: what it is and its numbers.
  std::string Detail;
};

/// A name that refers to a declaration.
struct SymbolRef {
  llvm::SMRange Range;
  unsigned Decl = 0; ///< Index into SymbolIndex::Decls.
};

/// An import and the module it loaded.
struct ImportRef {
  llvm::SMRange Range;
  unsigned Module = 0;
};

/// Source ranges sorted by where they start, for finding the one that
/// covers a location in logarithmic time when ranges do not overlap (and
/// still correctly, more slowly, when they do).
class RangeTable {
public:
  /// Adds \p R (ignored when invalid) with \p Value.
  void add(llvm::SMRange R, unsigned Value);
  /// Sorts what was added; call before find().
  void sort();
  /// The value of the range added first among those that cover \p Loc
  /// (both ends included), or -1.
  int find(llvm::SMLoc Loc) const;

private:
  struct Entry {
    uintptr_t Start, End;
    unsigned Order, Value;
  };
  std::vector<Entry> Entries;
  /// The greatest End among Entries[0..I], for each I.
  std::vector<uintptr_t> MaxEnd;
};

/// The names of a ModuleSet.
struct SymbolIndex {
  std::vector<SymbolDecl> Decls;
  std::vector<SymbolRef> Refs;
  std::vector<ImportRef> Imports;
  /// The members (parameters, definitions, classes, switches) of each
  /// declaration, in order.
  std::vector<std::vector<unsigned>> Children;

  /// The declaration whose name or a reference to which covers \p Loc, or
  /// -1.
  int declAt(llvm::SMLoc Loc) const;
  /// The module an import covering \p Loc loaded, or -1.
  int importAt(llvm::SMLoc Loc) const;
  /// The sketch of the main module (module 0) whose declaration covers
  /// \p Loc, or -1.
  int sketchAt(llvm::SMLoc Loc) const;

  /// Builds Children and the lookup tables from Decls, Refs and Imports;
  /// buildSymbolIndex() calls it, anyone who changes them must again.
  void finish();

private:
  RangeTable RefTable, NameTable, ImportTable, SketchTable;
};

/// Indexes every module of \p Set (buffers of \p SM). Names that do not
/// resolve are left out (Sema reports them).
SymbolIndex buildSymbolIndex(const ModuleSet &Set, const llvm::SourceMgr &SM);

} // namespace tacclc

#endif // TACCLC_FRONTEND_SYMBOLINDEX_H
