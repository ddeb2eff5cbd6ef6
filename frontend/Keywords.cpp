//===- frontend/Keywords.cpp - Keywords, from the grammar -----------------===//
//
// Keywords.h, read once from the generated parser: a keyword is a token
// whose literal is a word ('topology'); the keywords that start an item of
// a block are the first set of the block's item rule in the ATN; those
// that may follow a keyword are the union, over every transition that
// matches the keyword, of the tokens the ATN reaches next within its rule
// (rules called from there included); those after a keyword and a name,
// the same from every transition on a name that the keyword's transitions
// reach through epsilon transitions alone. The tables are built on first
// use, from a parser over an empty input, and never change.
//
//===----------------------------------------------------------------------===//
#include "frontend/Keywords.h"

#include "SketchLexer.h"
#include "SketchParser.h"
#include "antlr4-runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cctype>
#include <set>

using namespace tacclc;
using tacclc_antlr::SketchParser;

namespace {

struct Tables {
  std::vector<std::string> Keywords;
  std::vector<std::vector<std::string>> Items; ///< By SketchBlock.
  llvm::StringMap<KeywordFollowers> Followers;
};

/// The word of token type \p T's literal ('topology' -> topology), or "".
std::string wordOf(const antlr4::dfa::Vocabulary &V, size_t T) {
  llvm::StringRef Lit = V.getLiteralName(T);
  if (!Lit.consume_front("'") || !Lit.consume_back("'") || Lit.empty() ||
      !llvm::all_of(Lit, [](char C) { return std::isalpha((unsigned char)C); }))
    return "";
  return Lit.str();
}

/// The keywords among \p Set, sorted; the flags of what else it holds.
KeywordFollowers followersIn(const antlr4::misc::IntervalSet &Set,
                             const std::vector<std::string> &WordOf) {
  KeywordFollowers Out;
  for (ssize_t T : Set.toList()) {
    if (T > 0 && size_t(T) < WordOf.size() && !WordOf[size_t(T)].empty())
      Out.Keywords.push_back(WordOf[size_t(T)]);
    Out.Name |= T == SketchParser::IDENT;
    Out.Number |= T == SketchParser::INT || T == SketchParser::FLOAT;
  }
  llvm::sort(Out.Keywords);
  return Out;
}

/// Adds to \p Into the sorted keywords of \p From that it lacks.
void merge(std::vector<std::string> &Into,
           const std::vector<std::string> &From) {
  std::vector<std::string> Merged;
  std::set_union(Into.begin(), Into.end(), From.begin(), From.end(),
                 std::back_inserter(Merged));
  Into = std::move(Merged);
}

/// The targets of the transitions on a name that \p S reaches through
/// epsilon transitions (into called rules too, not out of its own).
std::vector<antlr4::atn::ATNState *> namesAfter(antlr4::atn::ATNState *S) {
  std::vector<antlr4::atn::ATNState *> Out, Work{S};
  std::set<antlr4::atn::ATNState *> Seen{S};
  while (!Work.empty()) {
    antlr4::atn::ATNState *At = Work.back();
    Work.pop_back();
    for (antlr4::atn::Transition *T : At->transitions) {
      if (!T->isEpsilon()) {
        if (T->label().contains(size_t(SketchParser::IDENT)))
          Out.push_back(T->target);
      } else if (Seen.insert(T->target).second) {
        Work.push_back(T->target);
      }
    }
  }
  return Out;
}

Tables build() {
  antlr4::ANTLRInputStream In("");
  tacclc_antlr::SketchLexer Lexer(&In);
  antlr4::CommonTokenStream Tokens(&Lexer);
  SketchParser Parser(&Tokens);
  const antlr4::dfa::Vocabulary &V = Parser.getVocabulary();
  const antlr4::atn::ATN &Atn = Parser.getATN();
  Tables Out;
  std::vector<std::string> WordOf(V.getMaxTokenType() + 1);
  for (size_t T = 1; T < WordOf.size(); ++T)
    if (!(WordOf[T] = wordOf(V, T)).empty())
      Out.Keywords.push_back(WordOf[T]);
  llvm::sort(Out.Keywords);

  // In the order of SketchBlock.
  for (size_t Rule :
       {SketchParser::RuleDecl, SketchParser::RuleTopologyItem,
        SketchParser::RuleMachineStmt, SketchParser::RuleClassItem,
        SketchParser::RuleSketchItem})
    Out.Items.push_back(
        followersIn(Atn.nextTokens(Atn.ruleToStartState[Rule]), WordOf)
            .Keywords);

  for (antlr4::atn::ATNState *S : Atn.states) {
    if (!S)
      continue;
    for (antlr4::atn::Transition *T : S->transitions) {
      if (T->isEpsilon())
        continue;
      for (ssize_t Tok : T->label().toList()) {
        if (Tok <= 0 || size_t(Tok) >= WordOf.size() ||
            WordOf[size_t(Tok)].empty())
          continue;
        KeywordFollowers Next = followersIn(Atn.nextTokens(T->target), WordOf);
        KeywordFollowers &F = Out.Followers[WordOf[size_t(Tok)]];
        F.Name |= Next.Name;
        F.Number |= Next.Number;
        merge(F.Keywords, Next.Keywords);
        for (antlr4::atn::ATNState *N : namesAfter(T->target))
          merge(F.AfterName, followersIn(Atn.nextTokens(N), WordOf).Keywords);
      }
    }
  }
  return Out;
}

const Tables &tables() {
  static const Tables T = build();
  return T;
}

} // namespace

llvm::ArrayRef<std::string> tacclc::sketchKeywords() {
  return tables().Keywords;
}

bool tacclc::isSketchKeyword(llvm::StringRef Word) {
  const std::vector<std::string> &K = tables().Keywords;
  auto It = std::lower_bound(K.begin(), K.end(), Word,
                             [](const std::string &A, llvm::StringRef B) {
                               return llvm::StringRef(A) < B;
                             });
  return It != K.end() && *It == Word;
}

llvm::ArrayRef<std::string> tacclc::itemKeywords(SketchBlock Block) {
  return tables().Items[size_t(Block)];
}

const KeywordFollowers &tacclc::keywordFollowers(llvm::StringRef Keyword) {
  static const KeywordFollowers None;
  const llvm::StringMap<KeywordFollowers> &F = tables().Followers;
  auto It = F.find(Keyword);
  return It == F.end() ? None : It->second;
}
