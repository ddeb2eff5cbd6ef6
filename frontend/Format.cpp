//===- frontend/Format.cpp - The canonical layout of a sketch -------------===//
//
// formatSketch() (Format.h) walks ANTLR's parse tree in order, token by
// token, and builds one row of pieces per statement (FormatLayout.h):
//   - a statement rule (a declaration, topology item, machine statement,
//     class item or sketch item) starts a new row at the current depth;
//   - `{` ends its row and opens a level; `}` gets a row of its own;
//   - the spaces before a token depend on it, the token before it and the
//     rules they belong to (spaceBefore);
//   - comments come from the token stream's hidden channel, between the
//     tokens they stood between: one on the line of the code before it stays
//     there (a row is written only when the next row starts, so it can still
//     be added), one on a line of its own gets a line of its own;
//   - a source line that was blank before a statement or comment is kept
//     (one at most; none after `{` or before `}`).
// A class or profile point whose body holds only costs and no comment is
// laid out on one line when it fits: its `{`, items (separated by `; `) and
// `}` join the header's row.
//
//===----------------------------------------------------------------------===//
#include "frontend/Format.h"

#include "frontend/FormatLayout.h"
#include "frontend/ParseTree.h"

#include "SketchLexer.h"
#include "SketchParser.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <map>

using namespace tacclc;

namespace {

using P = tacclc_antlr::SketchParser;
using antlr4::ParserRuleContext;
using antlr4::Token;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;

template <typename T> bool is(ParseTree *N) {
  return N && dynamic_cast<T *>(N) != nullptr;
}

bool isStatement(ParseTree *N) {
  return is<P::ImportDeclContext>(N) || is<P::TopologyDeclContext>(N) ||
         is<P::MachineDeclContext>(N) || is<P::SketchDeclContext>(N) ||
         is<P::TopologyItemContext>(N) || is<P::MachineStmtContext>(N) ||
         is<P::ClassItemContext>(N) || is<P::SketchItemContext>(N) ||
         (is<P::LinkAttrContext>(N) && is<P::ProfilePointContext>(N->parent));
}

bool isComment(Token *T) {
  return T->getType() == P::LINE_COMMENT || T->getType() == P::BLOCK_COMMENT;
}

size_t endLine(Token *T) {
  std::string Text = T->getText();
  return T->getLine() + std::count(Text.begin(), Text.end(), '\n');
}

/// Spaces between two adjacent tokens on one line.
unsigned spaceBefore(TerminalNode *PrevN, TerminalNode *N) {
  if (!PrevN)
    return 0;
  const size_t A = PrevN->getSymbol()->getType();
  const size_t B = N->getSymbol()->getType();
  ParseTree *PA = PrevN->parent, *PB = N->parent;
  if (B == P::COMMA || B == P::SEMI || B == P::RPAREN || B == P::RBRACKET ||
      B == P::DOT || B == P::COLON)
    return 0;
  if (A == P::LPAREN || A == P::LBRACKET || A == P::DOT)
    return 0;
  if (A == P::COLON)
    return is<P::NodeGpuAddressContext>(PA) ? 0 : 1;
  if ((A == P::DOTDOT && is<P::RangeContext>(PA)) ||
      (B == P::DOTDOT && is<P::RangeContext>(PB)))
    return 0;
  if ((A == P::SLASH && is<P::UnitContext>(PA)) ||
      (B == P::SLASH && is<P::UnitContext>(PB)))
    return 0;
  if ((A == P::MINUS && is<P::PolicyNameContext>(PA)) ||
      (B == P::MINUS && is<P::PolicyNameContext>(PB)))
    return 0;
  if (A == P::MINUS && is<P::NegExprContext>(PA))
    return 0;
  if (B == P::LPAREN &&
      (is<P::MachineDeclContext>(PB) || is<P::MachineRefContext>(PB)))
    return 0;
  if (A == P::LBRACE && B == P::RBRACE)
    return 0;
  return 1;
}

/// Every terminal under \p N, in order.
void terminals(ParseTree *N, std::vector<TerminalNode *> &Out) {
  if (auto *T = dynamic_cast<TerminalNode *>(N)) {
    Out.push_back(T);
    return;
  }
  for (ParseTree *C : N->children)
    terminals(C, Out);
}

class Formatter {
public:
  Formatter(antlr4::CommonTokenStream &Tokens, const FormatOptions &Opts)
      : Tokens(Tokens), Opts(Opts) {}

  std::string run(ParseTree *Module) {
    findLists(Module);
    visit(Module);
    flush();
    return Out;
  }

private:
  antlr4::CommonTokenStream &Tokens;
  const FormatOptions &Opts;
  std::string Out;
  unsigned Depth = 0;
  /// The row being built, its indentation, and whether it is complete (the
  /// next token starts a new row; a trailing comment may still join it).
  std::vector<Piece> Row;
  unsigned RowIndent = 0;
  bool RowEnded = false, RowOpensBlock = false;
  /// The last line written opened a block.
  bool AfterOpen = false;
  /// The last token emitted, and the last source line seen (tokens dropped
  /// and comments included).
  TerminalNode *Prev = nullptr;
  size_t LastLine = 0;
  /// Tokens before this index were examined for comments.
  size_t NextToken = 0;
  /// Lists (rules with commas): their ids, and the token each one's first
  /// element starts at.
  std::map<ParseTree *, int> ListOf;
  std::map<size_t, int> ListStart;
  /// Inside a class body laid out on one line: the class, and whether an
  /// item was written already.
  ParserRuleContext *FlatOwner = nullptr;
  bool FlatItems = false;

  void findLists(ParseTree *N) {
    auto *Ctx = dynamic_cast<ParserRuleContext *>(N);
    if (!Ctx)
      return;
    for (size_t I = 1; I < Ctx->children.size(); ++I) {
      auto *T = dynamic_cast<TerminalNode *>(Ctx->children[I]);
      if (!T || T->getSymbol()->getType() != P::COMMA)
        continue;
      int Id = int(ListOf.size());
      ListOf[Ctx] = Id;
      ParseTree *First = Ctx->children[I - 1];
      size_t At =
          is<TerminalNode>(First)
              ? static_cast<TerminalNode *>(First)->getSymbol()->getTokenIndex()
              : static_cast<ParserRuleContext *>(First)
                    ->getStart()
                    ->getTokenIndex();
      ListStart[At] = Id;
      break;
    }
    for (ParseTree *C : Ctx->children)
      findLists(C);
  }

  void visit(ParseTree *N) {
    if (auto *T = dynamic_cast<TerminalNode *>(N)) {
      token(T);
      return;
    }
    const bool Stmt = isStatement(N);
    if (Stmt && FlatOwner) {
      if (FlatItems)
        Row.push_back(piece(";", 0));
      FlatItems = true;
    } else if (Stmt) {
      RowEnded = true;
    }
    for (ParseTree *C : N->children)
      visit(C);
    if (Stmt && !FlatOwner)
      RowEnded = true;
  }

  Piece piece(std::string Text, unsigned Spaces) {
    Piece Pc;
    Pc.Text = std::move(Text);
    Pc.SpacesBefore = Spaces;
    return Pc;
  }

  void token(TerminalNode *N) {
    Token *T = N->getSymbol();
    comments(T);
    const size_t Type = T->getType();
    if (Type == Token::EOF)
      return;
    if (Type == P::SEMI && !keepSemi(N)) {
      LastLine = endLine(T);
      return;
    }
    if (Type == P::RBRACE && FlatOwner == N->parent) {
      add(N, piece("}", spaceBefore(Prev, N)));
      FlatOwner = nullptr;
      return;
    }
    if (Type == P::RBRACE) {
      Depth -= Depth > 0;
      RowEnded = true;
    }
    if (Type == P::LBRACE && (emptyBlock(N) || fitsFlat(N))) {
      FlatOwner = static_cast<ParserRuleContext *>(N->parent);
      FlatItems = false;
      add(N, piece("{", 1));
      return;
    }
    unsigned Spaces = spaceBefore(Prev, N);
    if (!Row.empty() && Row.back().Sticky && Spaces == 0 && Type != P::COMMA &&
        Type != P::SEMI)
      Spaces = 1; // after an inline block comment
    Piece Pc = piece(T->getText(), Spaces);
    if (Type == P::COMMA) {
      Pc.BreakAfter = true;
      Pc.List = ListOf[N->parent];
    }
    auto It = ListStart.find(T->getTokenIndex());
    if (It != ListStart.end())
      Pc.OpensList = It->second;
    add(N, std::move(Pc));
    if (Type == P::LBRACE) {
      ++Depth;
      RowEnded = RowOpensBlock = true;
    }
  }

  /// A `;` stays only where the next statement would otherwise extend this
  /// one: a name after a class's link list would read as its multiplier.
  bool keepSemi(TerminalNode *N) {
    if (!is<P::ClassLinkStmtContext>(N->parent))
      return false;
    return keepSemiAt(N->getSymbol()->getTokenIndex());
  }
  /// Whether the `;` at token \p At is followed by a name (then a class
  /// link list before it would take the name as its multiplier; the
  /// layout keeps such a `;` wherever it stands, which is harmless).
  bool keepSemiAt(size_t At) {
    for (size_t I = At + 1; I < Tokens.size(); ++I) {
      Token *T = Tokens.get(I);
      if (T->getChannel() == Token::DEFAULT_CHANNEL)
        return T->getType() == P::IDENT;
    }
    return false;
  }

  /// Whether the block \p Open opens holds nothing, not even a comment: it
  /// stays `{}`.
  bool emptyBlock(TerminalNode *Open) {
    size_t I = Open->getSymbol()->getTokenIndex() + 1;
    return I < Tokens.size() && Tokens.get(I)->getType() == P::RBRACE;
  }

  /// Whether the block \p Open opens (a class or profile point holding only
  /// costs, no comments) fits on the current row.
  bool fitsFlat(TerminalNode *Open) {
    auto *Owner = dynamic_cast<ParserRuleContext *>(Open->parent);
    if (!is<P::ClassStmtContext>(Owner) && !is<P::ProfilePointContext>(Owner))
      return false;
    for (ParseTree *C : Owner->children)
      if (is<P::ClassItemContext>(C) && !is<P::ClassAttrContext>(C))
        return false;
    for (size_t I = Owner->getStart()->getTokenIndex();
         I <= Owner->getStop()->getTokenIndex(); ++I)
      if (isComment(Tokens.get(I)))
        return false;
    unsigned Width = RowIndent;
    for (size_t I = 0; I < Row.size(); ++I)
      Width += (I ? Row[I].SpacesBefore : 0) + columnsOf(Row[I].Text);
    Width += 2; // " {"
    std::vector<TerminalNode *> Body;
    terminals(Owner, Body);
    TerminalNode *Before = Open;
    bool InBody = false;
    for (TerminalNode *T : Body) {
      if (T == Open) {
        InBody = true;
        continue;
      }
      if (!InBody || T->getSymbol()->getType() == P::SEMI)
        continue;
      Width += spaceBefore(Before, T) + columnsOf(T->getText());
      Before = T;
    }
    // The "; " between items.
    size_t Items = 0;
    for (ParseTree *C : Owner->children)
      Items += is<P::ClassItemContext>(C) || is<P::LinkAttrContext>(C);
    Width += Items > 1 ? unsigned(Items - 1) : 0;
    return Width <= Opts.ColumnLimit;
  }

  /// Adds a piece for \p N: to the current row, or to a new one when the
  /// current row is complete.
  void add(TerminalNode *N, Piece Pc) {
    Token *T = N->getSymbol();
    if (RowEnded || Row.empty()) {
      flush();
      blankLineBefore(T->getLine(), T->getType() == P::RBRACE);
      RowIndent = Depth * Opts.IndentWidth;
      RowEnded = false;
    }
    Row.push_back(std::move(Pc));
    Prev = N;
    LastLine = endLine(T);
  }

  void blankLineBefore(size_t Line, bool Closing) {
    if (!Out.empty() && !AfterOpen && !Closing && Line > LastLine + 1)
      Out += "\n";
  }

  void flush() {
    if (Row.empty())
      return;
    for (const std::string &L : layoutLine(Row, RowIndent, Opts.ColumnLimit))
      Out += L + "\n";
    Row.clear();
    AfterOpen = RowOpensBlock;
    RowOpensBlock = false;
  }

  /// Emits the comments between the last token examined and \p T.
  void comments(Token *T) {
    for (; NextToken < T->getTokenIndex(); ++NextToken) {
      Token *C = Tokens.get(NextToken);
      if (isComment(C))
        comment(C);
    }
    NextToken = T->getTokenIndex() + 1;
  }

  /// Whether the tokens from \p C to the end of its statement are only
  /// `;` that the layout drops (so the statement has in fact ended).
  bool onlyDroppedSemis(Token *C) {
    for (size_t I = C->getTokenIndex() + 1; I < Tokens.size(); ++I) {
      Token *T = Tokens.get(I);
      if (T->getChannel() != Token::DEFAULT_CHANNEL)
        continue;
      return T->getType() == P::SEMI && !keepSemiAt(I);
    }
    return false;
  }

  void comment(Token *C) {
    const bool Line = C->getType() == P::LINE_COMMENT;
    std::string Text = C->getText();
    Text.erase(std::remove(Text.begin(), Text.end(), '\r'), Text.end());
    Piece Pc = piece(Text, Line ? 2 : 1);
    if (!Row.empty() && C->getLine() == LastLine) {
      // After code on its line: it stays there (no break before it).
      Pc.ForceBreakAfter = Line;
      Pc.Sticky = true;
      Row.push_back(std::move(Pc));
    } else if (!Row.empty() && !RowEnded && !onlyDroppedSemis(C)) {
      // On a line of its own inside a statement.
      Pc.ForceBreakBefore = Pc.ForceBreakAfter = true;
      Row.push_back(std::move(Pc));
    } else {
      flush();
      blankLineBefore(C->getLine(), false);
      Out += std::string(Depth * Opts.IndentWidth, ' ') + Pc.Text + "\n";
      AfterOpen = false;
    }
    LastLine = endLine(C);
  }
};

} // namespace

std::optional<std::string> tacclc::formatSketch(llvm::SourceMgr &SM,
                                                unsigned BufferId,
                                                DiagnosticEngine &Diags,
                                                const FormatOptions &Opts) {
  std::optional<std::string> Result;
  withParseTree(
      SM, BufferId, Diags,
      [&](ParseTree *Module, antlr4::CommonTokenStream &Tokens,
          const SourceMap &) { Result = Formatter(Tokens, Opts).run(Module); });
  return Result;
}
