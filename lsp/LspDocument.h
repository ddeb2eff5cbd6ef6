//===- lsp/LspDocument.h - One open document, analysed ----------*- C++ -*-===//
//
// What the language server knows about an open sketch file: its text (the
// editor's, saved or not) loaded with everything it imports from disk, the
// diagnostics of loading it, of every machine it declares and of every
// sketch, its names (frontend/SymbolIndex.h), and the LSP answers built from
// them: diagnostics, hover text, definitions, document symbols, formatting
// edits, completions (lsp/LspCompletion.h) and the quick fixes of the
// diagnostics that suggest a replacement. Positions are converted between LSP's
// (line, UTF-16 code unit) and the SourceMgr's byte locations through a
// LineTable per buffer, in logarithmic time.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_LSP_LSPDOCUMENT_H
#define TACCLC_LSP_LSPDOCUMENT_H

#include "frontend/Frontend.h"
#include "frontend/LineTable.h"
#include "frontend/SymbolIndex.h"
#include "lsp/LspCompletion.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// `file:///a%20b` for /a b.
std::string pathToUri(llvm::StringRef Path);
/// The path of a `file:` URI; empty for other schemes.
std::string uriToPath(llvm::StringRef Uri);

/// One version of an open document, analysed.
class LspDocument {
public:
  /// Analyses \p Text; the names of \p Previous (an earlier version) stand
  /// in for completion where this one does not parse or load its imports.
  LspDocument(std::string Uri, std::string Text, const FrontendOptions &FO,
              const DocumentNames &Previous = {});

  // The answers are written straight to a JSON stream: a document with
  // thousands of sketches has thousands of symbols (and maybe diagnostics),
  // and building them as llvm::json::Object values first costs kilobytes of
  // memory per object.

  /// Writes the array of LSP Diagnostic objects (problems in imported files
  /// are shown at the import that loaded them).
  void diagnostics(llvm::json::OStream &J) const;
  /// Writes a Hover for the name at (Line, Char), or null.
  void hover(int64_t Line, int64_t Char, llvm::json::OStream &J) const;
  /// Writes the Location of the declaration (or imported file) at (Line,
  /// Char), or null.
  void definition(int64_t Line, int64_t Char, llvm::json::OStream &J) const;
  /// Writes the array of DocumentSymbol objects: declarations, with classes
  /// and switches inside their machines.
  void symbols(llvm::json::OStream &J) const;
  /// The document in the canonical layout; nothing when it does not parse.
  std::optional<std::string> formatted() const;
  /// Writes the array of TextEdits that turn the document into \p Formatted.
  void formatting(const std::string &Formatted, llvm::json::OStream &J) const;
  /// Writes the CompletionList at (Line, Char).
  void completion(int64_t Line, int64_t Char, llvm::json::OStream &J) const;
  /// Writes the array of quick fixes (CodeActions) of the diagnostics that
  /// touch the range from (Line, Char) to (EndLine, EndChar): one per
  /// fix-it in this document.
  void codeActions(int64_t Line, int64_t Char, int64_t EndLine, int64_t EndChar,
                   llvm::json::OStream &J) const;
  /// The names completion offers (for the next version).
  const DocumentNames &names() const { return Names; }

private:
  std::string Uri, Text;
  /// The document's file (empty for other URIs) and the options its
  /// imports were resolved with.
  std::string Path;
  FrontendOptions FO;
  std::unique_ptr<llvm::SourceMgr> SM;
  unsigned Main = 0;
  std::optional<ModuleSet> Modules;
  SymbolIndex Index;
  /// The lines of each buffer of SM (buffer I + 1 at I).
  std::vector<LineTable> Lines;
  std::vector<Diagnostic> Diags;
  /// describeMachines' line per machine or topology of the file, by name;
  /// the size of each sketch's machine, by sketch.
  std::map<std::string, std::string> MachineLine, SketchMachine;
  DocumentNames Names;

  llvm::SMLoc locAt(int64_t Line, int64_t Char) const;
  std::string uriOf(llvm::SMLoc L) const;
  /// Write an LSP Position, Range, Location and Diagnostic.
  void position(llvm::json::OStream &J, llvm::SMLoc L) const;
  void range(llvm::json::OStream &J, llvm::SMRange R) const;
  void location(llvm::json::OStream &J, llvm::SMRange R) const;
  void diagnostic(llvm::json::OStream &J, const Diagnostic &D) const;
  /// The names of the files the document imports, loaded alone, for a
  /// document that does not parse; null when none loads.
  std::shared_ptr<const CompletionNames> namesOfImports() const;
  /// \p Path as a completion's detail shows it: under `stdlib/`, relative
  /// to the document's folder, or whole.
  std::string shown(llvm::StringRef Path) const;
};

} // namespace tacclc

#endif // TACCLC_LSP_LSPDOCUMENT_H
