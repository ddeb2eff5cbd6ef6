//===- frontend/FormatChecked.cpp - The formatter with its checks ---------===//
//
// formatChecked() (FormatChecked.h), shared by `tacclc fmt`
// (tools/tacclc/Fmt.cpp) and the language server (lsp/): the canonical
// layout of a text is accepted only when it parses to the same syntax tree
// as the input (compared as AST dumps with the source locations removed)
// and formatting it again changes nothing.
//
//===----------------------------------------------------------------------===//
#include "frontend/FormatChecked.h"

#include "frontend/Format.h"
#include "frontend/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace tacclc;

namespace {

/// The syntax tree of \p Text without source locations, or nothing if it
/// does not parse.
std::optional<std::string> shapeOf(const std::string &Text,
                                   const std::string &Name) {
  llvm::SourceMgr SM;
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, Name), llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  std::unique_ptr<ast::Module> M = parseSketch(SM, Id, Diags);
  if (!M)
    return std::nullopt;
  std::string Dump;
  llvm::raw_string_ostream OS(Dump);
  dumpAst(*M, SM, OS);
  OS.flush();
  static const llvm::Regex Loc(" @[0-9]+:[0-9]+");
  std::string Out;
  llvm::StringRef Rest(Dump);
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Out += Loc.sub("", Line);
    Out += '\n';
    Rest = Tail;
  }
  return Out;
}

} // namespace

std::optional<std::string> tacclc::formatChecked(const std::string &Text,
                                                 const std::string &Name,
                                                 DiagnosticEngine &Diags,
                                                 FormatOutcome &Outcome) {
  llvm::SourceMgr &SM = Diags.getSourceMgr();
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, Name), llvm::SMLoc());
  std::optional<std::string> Formatted = formatSketch(SM, Id, Diags);
  if (!Formatted) {
    Outcome = FormatOutcome::SyntaxError;
    return std::nullopt;
  }
  llvm::SourceMgr SM2;
  unsigned Id2 = SM2.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(*Formatted, Name), llvm::SMLoc());
  DiagnosticEngine Diags2(SM2);
  std::optional<std::string> Again = formatSketch(SM2, Id2, Diags2);
  if (Again != Formatted || shapeOf(Text, Name) != shapeOf(*Formatted, Name)) {
    Outcome = FormatOutcome::Unsafe;
    return std::nullopt;
  }
  Outcome = FormatOutcome::Formatted;
  return Formatted;
}
