//===- frontend/ParseDriver.cpp - Run the ANTLR parser on a buffer --------===//
//
// The ANTLR boundary: builds the input stream, lexer and parser over one
// SourceMgr buffer, replaces ANTLR's console listeners with one that reports
// through the DiagnosticEngine (lexer errors included, columns fixed to our
// byte locations), caps the number of reported syntax errors, and catches
// every ANTLR exception. This file, the AST builder (AstBuilder.h), the
// formatter (Format.cpp) and the keyword tables (Keywords.cpp) are the only
// files that include generated headers; nothing throws past this file.
//
//===----------------------------------------------------------------------===//
#include "frontend/AstBuilder.h"
#include "frontend/Frontend.h"
#include "frontend/ParseTree.h"

#include "SketchLexer.h"
#include "SketchParser.h"
#include "antlr4-runtime.h"

#include <optional>

using namespace tacclc;

namespace {
/// Feeds lexer and parser errors to the DiagnosticEngine.
class ErrorListener : public antlr4::BaseErrorListener {
public:
  ErrorListener(DiagnosticEngine &Diags, const SourceMap &Map)
      : Diags(Diags), Map(Map) {}

  void syntaxError(antlr4::Recognizer *Rec, antlr4::Token *Offending,
                   size_t Line, size_t Col, const std::string &Msg,
                   std::exception_ptr) override {
    ++Count;
    if (Count > MaxReported) {
      if (Count == MaxReported + 1)
        Diags.report(DiagId::TooManySyntaxErrors, llvm::SMRange());
      return;
    }
    llvm::SMRange Range;
    if (Offending && Offending->getType() != antlr4::Token::EOF) {
      Range = Map.range(Offending->getStartIndex(), Offending->getStopIndex());
    } else if (Offending) {
      Range = Map.range(Offending->getStartIndex(), Offending->getStartIndex());
    } else if (auto *Lex = dynamic_cast<antlr4::Lexer *>(Rec)) {
      // Lexer error: the bad character is at the current token start.
      size_t At = Lex->tokenStartCharIndex;
      Range = llvm::SMRange(Map.loc(At), Map.loc(At + 1));
    }
    Diags.report(DiagId::SyntaxError, Range, cleanMessage(Msg));
  }

  unsigned count() const { return Count; }

private:
  /// ANTLR's messages name tokens by their symbolic names ('IDENT'); make
  /// them read like the language.
  static std::string cleanMessage(std::string Msg) {
    auto ReplaceAll = [&](llvm::StringRef From, llvm::StringRef To) {
      size_t Pos = 0;
      while ((Pos = Msg.find(From.str(), Pos)) != std::string::npos) {
        Msg.replace(Pos, From.size(), To.str());
        Pos += To.size();
      }
    };
    ReplaceAll("token recognition error at: ", "unexpected character ");
    ReplaceAll("<EOF>", "end of file");
    ReplaceAll("IDENT", "a name");
    ReplaceAll("FLOAT", "a number");
    ReplaceAll("INT", "a whole number");
    return Msg;
  }

  static constexpr unsigned MaxReported = 20;
  DiagnosticEngine &Diags;
  const SourceMap &Map;
  unsigned Count = 0;
};
constexpr unsigned MaxNesting = 256;

/// Tokens one file may have (comments included). The parse tree costs a few
/// hundred bytes per token, so this bounds the parser's memory near 300 MB;
/// real sketches have a few thousand.
constexpr size_t MaxTokens = 1000000;

/// The lexer, cut off after MaxTokens tokens: from then on it returns end of
/// file and says so, so that no file can make the token buffer grow without
/// bound.
class CappedTokenSource : public antlr4::TokenSource {
public:
  explicit CappedTokenSource(antlr4::Lexer &Lex) : Lex(Lex) {}

  std::unique_ptr<antlr4::Token> nextToken() override {
    if (Count < MaxTokens) {
      ++Count;
      return Lex.nextToken();
    }
    if (!CutAt)
      CutAt = Lex.getInputStream()->index();
    auto Eof = std::make_unique<antlr4::CommonToken>(antlr4::Token::EOF);
    Eof->setStartIndex(*CutAt);
    Eof->setStopIndex(*CutAt);
    return Eof;
  }
  size_t getLine() const override { return Lex.getLine(); }
  size_t getCharPositionInLine() override {
    return Lex.getCharPositionInLine();
  }
  antlr4::CharStream *getInputStream() override { return Lex.getInputStream(); }
  std::string getSourceName() override { return Lex.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken> *getTokenFactory() override {
    return Lex.getTokenFactory();
  }

  /// Where the file was cut off (a code-point index), if it was.
  std::optional<size_t> cutAt() const { return CutAt; }

private:
  antlr4::Lexer &Lex;
  size_t Count = 0;
  std::optional<size_t> CutAt;
};

/// Tokens one expression may have: the parse tree of `a + b + ...` nests a
/// level per operator, and the AST builder recurses through it.
constexpr unsigned MaxExprTokens = 2 * MaxNesting;

/// Reports the first token nested more than MaxNesting levels deep, or the
/// first beyond MaxExprTokens of one expression.
bool checkNesting(antlr4::CommonTokenStream &Tokens, const SourceMap &Map,
                  DiagnosticEngine &Diags) {
  using P = tacclc_antlr::SketchParser;
  unsigned Depth = 0, Minus = 0, ExprRun = 0;
  for (antlr4::Token *T : Tokens.getTokens()) {
    if (T->getChannel() != antlr4::Token::DEFAULT_CHANNEL)
      continue; // comments
    switch (T->getType()) {
    case P::LPAREN:
    case P::LBRACKET:
    case P::LBRACE:
      ++Depth;
      break;
    case P::RPAREN:
    case P::RBRACKET:
    case P::RBRACE:
      Depth -= Depth > 0;
      break;
    }
    switch (T->getType()) {
    case P::INT:
    case P::IDENT:
    case P::GPUS:
    case P::PLUS:
    case P::MINUS:
    case P::STAR:
    case P::SLASH:
    case P::PERCENT:
    case P::LPAREN:
    case P::RPAREN:
      ++ExprRun;
      break;
    default:
      ExprRun = 0;
    }
    Minus = T->getType() == P::MINUS ? Minus + 1 : 0;
    if (Depth + Minus > MaxNesting) {
      Diags.report(DiagId::NestingTooDeep,
                   Map.range(T->getStartIndex(), T->getStopIndex()),
                   MaxNesting);
      return false;
    }
    if (ExprRun > MaxExprTokens) {
      Diags.report(DiagId::ExpressionTooLong,
                   Map.range(T->getStartIndex(), T->getStopIndex()),
                   MaxExprTokens);
      return false;
    }
  }
  return true;
}
} // namespace

bool tacclc::withParseTree(
    llvm::SourceMgr &SM, unsigned BufferId, DiagnosticEngine &Diags,
    llvm::function_ref<void(antlr4::tree::ParseTree *,
                            antlr4::CommonTokenStream &, const SourceMap &)>
        Use) {
  llvm::StringRef Text = SM.getMemoryBuffer(BufferId)->getBuffer();
  SourceMap Map(Text);
  ErrorListener Listener(Diags, Map);
  try {
    antlr4::ANTLRInputStream Input(Text.str());
    tacclc_antlr::SketchLexer Lexer(&Input);
    Lexer.removeErrorListeners();
    Lexer.addErrorListener(&Listener);
    CappedTokenSource Source(Lexer);
    antlr4::CommonTokenStream Tokens(&Source);
    Tokens.fill();
    if (auto At = Source.cutAt()) {
      Diags.report(DiagId::TooManyTokens,
                   llvm::SMRange(Map.loc(*At), Map.loc(*At)), MaxTokens);
      return false;
    }
    // The parser recurses once per nesting level (parentheses, brackets,
    // braces, prefix minus); refuse inputs nested deeply enough to exhaust
    // the stack before parsing them, whether or not the lexer already
    // reported errors (the parser runs after lexer errors too).
    if (!checkNesting(Tokens, Map, Diags))
      return false;
    tacclc_antlr::SketchParser Parser(&Tokens);
    Parser.removeErrorListeners();
    Parser.addErrorListener(&Listener);
    auto *Tree = Parser.module();
    if (Listener.count() != 0)
      return false;
    Use(Tree, Tokens, Map);
    return true;
  } catch (const std::exception &E) {
    // Invalid UTF-8 and ANTLR internal failures end up here.
    Diags.report(DiagId::SyntaxError, llvm::SMRange(Map.loc(0), Map.loc(0)),
                 std::string("cannot parse file: ") + E.what());
    return false;
  }
}

std::unique_ptr<ast::Module> tacclc::parseSketch(llvm::SourceMgr &SM,
                                                 unsigned BufferId,
                                                 DiagnosticEngine &Diags) {
  std::unique_ptr<ast::Module> M;
  withParseTree(
      SM, BufferId, Diags,
      [&](antlr4::tree::ParseTree *Tree, antlr4::CommonTokenStream &,
          const SourceMap &Map) {
        M = buildAst(
            static_cast<tacclc_antlr::SketchParser::ModuleContext *>(Tree), Map,
            BufferId);
      });
  return M;
}
