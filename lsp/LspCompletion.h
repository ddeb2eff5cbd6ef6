//===- lsp/LspCompletion.h - What may be written at a position -*- C++ -*-===//
//
// textDocument/completion without the protocol. The context of a position
// comes from the text alone, scanned up to it, because a document being
// typed rarely parses: whether it is inside a comment or a string, the
// block it is in (top level, topology, machine, class, sketch; with the
// machine's or the sketch's header) and the tokens right before it. The
// items come from the grammar (keywords, frontend/Keywords.h), from the
// language's vocabularies (collectives, units, protocols, switch policies),
// from the files an import may name (searched as the loader searches,
// frontend/Frontend.h), and from the names of the document and of the files
// it imports (CompletionNames, built from frontend/SymbolIndex.h), kept
// apart from the analysis so that a version that does not parse can use the
// names of the last version that did.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_LSP_LSPCOMPLETION_H
#define TACCLC_LSP_LSPCOMPLETION_H

#include "frontend/Frontend.h"
#include "frontend/SymbolIndex.h"

#include <memory>
#include <string>
#include <vector>

namespace tacclc {

/// One declared name a completion may offer.
struct CompletionName {
  std::string Name;
  SymbolDecl::KindT Kind = SymbolDecl::Machine;
  std::string Module;   ///< The qualifier of the module it is declared in.
  bool Visible = false; ///< Usable unqualified in the document.
  int Parent = -1;      ///< Its machine (members), in the same table.
  std::string Detail;   ///< One line: what it is, and the file it is from.
  std::string Doc;      ///< The comment above its declaration.
  /// For a sketch: the module and name of the machine it runs on.
  std::string OnModule, OnName;
};

/// The names of some modules of a document.
struct CompletionNames {
  std::vector<CompletionName> Names;
  /// The qualifiers of the modules the document imports directly.
  std::vector<std::string> Imports;
};

/// Where the names of a document come from: the file itself, and the files
/// it imports.
struct DocumentNames {
  std::shared_ptr<const CompletionNames> Own, Imported;
};

/// The names of \p Set (indexed as \p Index): those of the main file when
/// \p Imported is false, else those of the files it imports. \p Shown
/// names a file for a detail ("stdlib/topologies/ndv2.sketch").
CompletionNames
collectNames(const ModuleSet &Set, const SymbolIndex &Index, bool Imported,
             llvm::function_ref<std::string(llvm::StringRef)> Shown);

/// One completion item (LSP CompletionItem, without the protocol).
struct CompletionItem {
  std::string Label, Detail, Doc;
  std::string NewText; ///< Replaces the text between From and To.
  int Kind = 14;       ///< LSP CompletionItemKind (14: keyword).
};

/// The items at one position, and the text they replace.
struct Completions {
  size_t From = 0, To = 0; ///< Byte offsets in the text.
  std::vector<CompletionItem> Items;
};

/// What completion reads besides the text.
struct CompletionSources {
  DocumentNames Names;
  std::vector<std::string> ImportDirs; ///< Where imports are searched.
  std::string Self;                    ///< The document's file, if any.
  /// Names a file for a detail, as for collectNames.
  llvm::function_ref<std::string(llvm::StringRef)> Shown;
};

/// The completions at byte \p Offset of \p Text.
Completions completeAt(llvm::StringRef Text, size_t Offset,
                       const CompletionSources &Sources);

} // namespace tacclc

#endif // TACCLC_LSP_LSPCOMPLETION_H
