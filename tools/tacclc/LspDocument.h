//===- tools/tacclc/LspDocument.h - One open document, analysed -*- C++ -*-===//
//
// What the language server knows about an open sketch file: its text (the
// editor's, saved or not) loaded with everything it imports from disk, the
// diagnostics of loading it, of every machine it declares and of every
// sketch, its names (frontend/SymbolIndex.h), and the LSP answers built from
// them: diagnostics, hover text, definitions, document symbols and
// formatting edits. Positions are converted between LSP's (line, UTF-16
// code unit) and the SourceMgr's byte locations.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_LSPDOCUMENT_H
#define TACCLC_TOOLS_TACCLC_LSPDOCUMENT_H

#include "frontend/Frontend.h"
#include "frontend/SymbolIndex.h"

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
  LspDocument(std::string Uri, std::string Text, const FrontendOptions &FO);

  /// The LSP Diagnostic objects (problems in imported files are shown at
  /// the import that loaded them).
  llvm::json::Array diagnostics() const;
  /// A Hover for the name at (Line, Char), or null.
  llvm::json::Value hover(int64_t Line, int64_t Char) const;
  /// The Location of the declaration (or imported file) at (Line, Char), or
  /// null.
  llvm::json::Value definition(int64_t Line, int64_t Char) const;
  /// DocumentSymbol objects: declarations, with classes and switches
  /// inside their machines.
  llvm::json::Array symbols() const;
  /// TextEdits that put the document in the canonical layout; nothing when
  /// it does not parse.
  std::optional<llvm::json::Array> formatting() const;

private:
  std::string Uri, Text;
  std::unique_ptr<llvm::SourceMgr> SM;
  unsigned Main = 0;
  std::optional<ModuleSet> Modules;
  SymbolIndex Index;
  std::vector<Diagnostic> Diags;
  /// describeMachines' line per machine or topology of the file, by name;
  /// the size of each sketch's machine, by sketch.
  std::map<std::string, std::string> MachineLine, SketchMachine;

  llvm::SMLoc locAt(int64_t Line, int64_t Char) const;
  llvm::json::Object position(llvm::SMLoc L) const;
  llvm::json::Object range(llvm::SMRange R) const;
  std::string uriOf(llvm::SMLoc L) const;
  llvm::json::Object diagnostic(const Diagnostic &D) const;
};

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_LSPDOCUMENT_H
