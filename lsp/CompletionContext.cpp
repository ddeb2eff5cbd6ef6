//===- lsp/CompletionContext.cpp - Where a position is, from the text -----===//
//
// completionContext() (CompletionContext.h): one pass over the text up to
// the position, keeping a stack of the blocks opened by braces and the
// tokens since the last brace. At each '{' the header of the new block is
// found among those tokens (the last `machine`, `topology` or `sketch` at
// the top level; `class` or `for` in a machine; `at` in a class; `for` in a
// sketch); a brace without one opens a block of the same kind.
//
//===----------------------------------------------------------------------===//
#include "lsp/CompletionContext.h"

#include <cctype>

using namespace tacclc;

namespace {

bool isWordStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_';
}
bool isWordChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}
bool isDigit(char C) { return std::isdigit(static_cast<unsigned char>(C)); }

/// A block opened by a brace.
struct Frame {
  SketchBlock Block = SketchBlock::TopLevel;
  std::string Header, On, From;
  std::vector<std::string> LoopVars;
};

/// The scan: tokens are added one by one, braces open and close frames.
class Scanner {
public:
  explicit Scanner(llvm::StringRef Text) : Text(Text) {}

  CompletionContext run();
  /// The strings of the imports seen by run().
  std::vector<std::string> Imports;

private:
  llvm::StringRef Text;
  std::vector<Frame> Frames{Frame()};
  std::vector<ContextToken> Window;
  CompletionContext::WhereT Where = CompletionContext::Code;
  size_t StringStart = 0;

  void add(ContextToken::KindT Kind, size_t Start, size_t End);
  void open();
  /// The offset just past the number at \p I (a FLOAT or an INT).
  size_t numberEnd(size_t I) const;
};

size_t Scanner::numberEnd(size_t I) const {
  auto Digits = [&](size_t J) {
    while (J < Text.size() && isDigit(Text[J]))
      ++J;
    return J;
  };
  I = Digits(I);
  if (I + 1 < Text.size() && Text[I] == '.' && isDigit(Text[I + 1]))
    I = Digits(I + 1);
  if (I < Text.size() && (Text[I] == 'e' || Text[I] == 'E')) {
    size_t J = I + 1;
    if (J < Text.size() && (Text[J] == '+' || Text[J] == '-'))
      ++J;
    if (J < Text.size() && isDigit(Text[J]))
      I = Digits(J);
  }
  return I;
}

void Scanner::add(ContextToken::KindT Kind, size_t Start, size_t End) {
  ContextToken T{Kind, Text.slice(Start, End), Start};
  if (Kind == ContextToken::String && Frames.size() == 1 && !Window.empty() &&
      Window.back().Text == "import")
    Imports.push_back(T.Text.str());
  if (T.Text == "{") {
    open();
    Window.clear();
  } else if (T.Text == "}") {
    if (Frames.size() > 1)
      Frames.pop_back();
    Window.clear();
  }
  Window.push_back(T);
}

void Scanner::open() {
  Frame F = Frames.back();
  auto WordAfter = [&](size_t I) {
    return I + 1 < Window.size() && Window[I + 1].Kind == ContextToken::Word
               ? Window[I + 1].Text.str()
               : std::string();
  };
  // A possibly qualified name starting at token I.
  auto NameAt = [&](size_t I) {
    std::string Name = WordAfter(I - 1);
    if (!Name.empty() && I + 2 < Window.size() && Window[I + 1].Text == ".")
      Name += "." + WordAfter(I + 1);
    return Name;
  };
  for (size_t I = Window.size(); I-- > 0;) {
    llvm::StringRef K = Window[I].Text;
    if (Window[I].Kind != ContextToken::Word)
      continue;
    switch (F.Block) {
    case SketchBlock::TopLevel:
      if (K != "machine" && K != "topology" && K != "sketch")
        continue;
      F.Block = K == "machine"    ? SketchBlock::Machine
                : K == "topology" ? SketchBlock::Topology
                                  : SketchBlock::Sketch;
      F.Header = WordAfter(I);
      for (size_t J = I + 2; J + 1 < Window.size(); ++J) {
        if (Window[J].Text == "on")
          F.On = NameAt(J + 1);
        else if (Window[J].Text == "from")
          F.From = NameAt(J + 1);
      }
      break;
    case SketchBlock::Machine:
    case SketchBlock::Sketch:
      if (K == "for") {
        F.LoopVars.push_back(WordAfter(I));
        break;
      }
      if (K != "class" || F.Block != SketchBlock::Machine)
        continue;
      F.Block = SketchBlock::Class;
      break;
    case SketchBlock::Class:
    case SketchBlock::Topology:
      break;
    }
    break;
  }
  Frames.push_back(std::move(F));
}

CompletionContext Scanner::run() {
  size_t I = 0;
  while (I < Text.size()) {
    char C = Text[I];
    if (std::isspace(static_cast<unsigned char>(C))) {
      ++I;
    } else if (Text.substr(I).startswith("//")) {
      size_t End = Text.find('\n', I);
      if (End == llvm::StringRef::npos)
        Where = CompletionContext::Comment;
      I = std::min(End, Text.size());
    } else if (Text.substr(I).startswith("/*")) {
      size_t End = Text.find("*/", I + 2);
      if (End == llvm::StringRef::npos)
        Where = CompletionContext::Comment;
      I = std::min(End + 2, Text.size());
    } else if (C == '"') {
      size_t End = Text.find_first_of("\"\r\n", I + 1);
      if (End == llvm::StringRef::npos) {
        Where = !Window.empty() && Window.back().Text == "import"
                    ? CompletionContext::ImportString
                    : CompletionContext::OtherString;
        StringStart = I + 1;
        break;
      }
      // An unterminated string ends at the line; the lexer reports it.
      add(ContextToken::String, I, End + (Text[End] == '"'));
      I = End + (Text[End] == '"');
    } else if (isWordStart(C)) {
      size_t End = I;
      while (End < Text.size() && isWordChar(Text[End]))
        ++End;
      add(ContextToken::Word, I, End);
      I = End;
    } else if (isDigit(C)) {
      size_t End = numberEnd(I);
      add(ContextToken::Number, I, End);
      I = End;
    } else {
      size_t Len = 1;
      for (llvm::StringRef Op : {"<->", "->", ".."})
        if (Text.substr(I).startswith(Op))
          Len = Op.size();
      add(ContextToken::Punct, I, I + Len);
      I += Len;
    }
  }
  CompletionContext Out;
  Out.Where = Where;
  const Frame &F = Frames.back();
  Out.Block = F.Block;
  Out.Header = F.Header;
  Out.On = F.On;
  Out.From = F.From;
  Out.LoopVars = F.LoopVars;
  Out.WordStart = Text.size();
  if (Where == CompletionContext::ImportString ||
      Where == CompletionContext::OtherString) {
    Out.WordStart = StringStart;
  } else if (Where == CompletionContext::Code && !Window.empty() &&
             Window.back().Start + Window.back().Text.size() == Text.size()) {
    // The position ends a token: a word is being typed (a number, too).
    if (Window.back().Kind == ContextToken::Word) {
      Out.WordStart = Window.back().Start;
      Window.pop_back();
    } else if (Window.back().Kind == ContextToken::Number) {
      Out.Where = CompletionContext::InNumber;
    }
  }
  Out.Before = std::move(Window);
  if (const ContextToken *Last = Out.back(0))
    Out.NewLine = Text.slice(Last->Start, Out.WordStart).contains('\n');
  return Out;
}

} // namespace

CompletionContext tacclc::completionContext(llvm::StringRef Text,
                                            size_t Offset) {
  return Scanner(Text.take_front(Offset)).run();
}

std::vector<std::string> tacclc::scannedImports(llvm::StringRef Text) {
  Scanner S(Text);
  S.run();
  return std::move(S.Imports);
}
