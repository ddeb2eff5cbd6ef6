//===- lsp/CompletionContext.h - Where a position is, from the text -*- C++
//-*-===//
//
// The context of a completion, read from the text before the position in one
// scan: whether the position is inside a comment or a string, the block it is
// in with the header of that block (the machine's name; the sketch's name,
// `on` target and `from` base; the variables of enclosing loops), and the
// tokens of the current block before it. Nothing here needs the text to
// parse: a document being typed rarely does. The scan splits the text as the
// grammar's lexer does (words, numbers, strings, comments, punctuation); it
// only needs to tell those apart, not to check them.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_LSP_COMPLETIONCONTEXT_H
#define TACCLC_LSP_COMPLETIONCONTEXT_H

#include "frontend/Keywords.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tacclc {

/// A token before the position.
struct ContextToken {
  enum KindT { Word, Number, String, Punct } Kind = Punct;
  llvm::StringRef Text;
  size_t Start = 0; ///< Byte offset in the text.
};

/// What surrounds a position of a sketch text.
struct CompletionContext {
  enum WhereT {
    Code,         ///< Between tokens or in a word.
    Comment,      ///< Inside a comment.
    ImportString, ///< Inside the string of an `import`.
    OtherString,  ///< Inside another string.
    InNumber,     ///< In a number being typed.
  } Where = Code;
  SketchBlock Block = SketchBlock::TopLevel;
  /// The name declared by the machine, topology or sketch the position is
  /// in (empty at the top level).
  std::string Header;
  /// A sketch's `on` target and `from` base, as written (`module.name`).
  std::string On, From;
  /// The variables of the loops around the position, outermost first.
  std::vector<std::string> LoopVars;
  /// The word being typed starts here (the position when there is none);
  /// inside an import's string, its text starts here.
  size_t WordStart = 0;
  /// Inside an import's string: where its text ends (the closing quote, or
  /// the end of the line).
  size_t StringEnd = 0;
  /// The tokens of the current block before the word, from its opening
  /// brace (or from the end of the last declaration, at the top level).
  std::vector<ContextToken> Before;
  /// Whether the word is on a later line than the last token before it.
  bool NewLine = false;

  /// The \p N-th token before the word (0: the last), or null.
  const ContextToken *back(size_t N) const {
    return N < Before.size() ? &Before[Before.size() - 1 - N] : nullptr;
  }
  /// Whether the \p N-th token before the word is \p Text.
  bool backIs(size_t N, llvm::StringRef Text) const {
    const ContextToken *T = back(N);
    return T && T->Text == Text;
  }
};

/// The context of byte \p Offset of \p Text (clamped to its size).
CompletionContext completionContext(llvm::StringRef Text, size_t Offset);

/// The strings (quotes included) of the `import "..."` statements of
/// \p Text, read as completionContext reads it: for a text that does not
/// parse.
std::vector<std::string> scannedImports(llvm::StringRef Text);

} // namespace tacclc

#endif // TACCLC_LSP_COMPLETIONCONTEXT_H
