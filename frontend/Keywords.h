//===- frontend/Keywords.h - Keywords, from the grammar --------*- C++ -*-===//
//
// What an editor needs to know of the grammar to suggest keywords: the
// keywords themselves, those that start an item of each kind of block, and
// those that may come right after a keyword (or after a keyword and a
// name). All are read from the generated parser (its vocabulary and its
// ATN, the automaton ANTLR builds from grammar/Sketch.g4), never written
// out by hand, so they follow the grammar when it changes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_KEYWORDS_H
#define TACCLC_FRONTEND_KEYWORDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tacclc {

/// The blocks whose items start with a keyword (or, in a machine, with
/// the name a `let` defines).
enum class SketchBlock { TopLevel, Topology, Machine, Class, Sketch };

/// The keywords of the language, sorted.
llvm::ArrayRef<std::string> sketchKeywords();
/// Whether \p Word is a keyword.
bool isSketchKeyword(llvm::StringRef Word);

/// The keywords that can start an item of \p Block (a declaration at the
/// top level, a statement in a machine, ...), sorted.
llvm::ArrayRef<std::string> itemKeywords(SketchBlock Block);

/// What the grammar allows right after a keyword, wherever it appears.
struct KeywordFollowers {
  std::vector<std::string> Keywords; ///< Sorted.
  bool Name = false;                 ///< A name (an identifier) may follow.
  bool Number = false;               ///< A number may follow.
  /// The keywords that may follow the keyword and a name (`sketch s` ->
  /// `on`, `from`), sorted.
  std::vector<std::string> AfterName;
};
/// What may follow keyword \p Keyword; nothing for a word that is not one.
const KeywordFollowers &keywordFollowers(llvm::StringRef Keyword);

} // namespace tacclc

#endif // TACCLC_FRONTEND_KEYWORDS_H
