//===- format/XmlLexer.cpp - MSCCL XML lexer rules ------------------------===//
//
// A scanner that walks the raw XML text the way NCCL's XML lexer does
// (msccl_parser.cc / graph/xml.cc) and reports what that lexer cannot read:
// declarations, tabs, text between elements, tags spread over several lines,
// values not closed by a double quote, spaces around '=', too many
// attributes (counting the empty ones produced by repeated spaces) and
// over-long names or values. Well-formedness itself is left to pugixml.
// The scan is linear in the text: every byte is visited a bounded number of
// times, at most MaxFindings findings are kept, and names quoted in
// messages are shortened by excerpt().
//
//===----------------------------------------------------------------------===//
#include "format/XmlLexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tacclrt {

LineTable::LineTable(std::string_view Text) : Size(Text.size()) {
  Starts.push_back(0);
  for (std::size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      Starts.push_back(I + 1);
}

Where LineTable::at(std::size_t Offset) const {
  Offset = std::min(Offset, Size);
  auto It = std::upper_bound(Starts.begin(), Starts.end(), Offset);
  std::size_t Line = static_cast<std::size_t>(It - Starts.begin());
  Where W;
  W.Line = static_cast<unsigned>(Line);
  W.Col = static_cast<unsigned>(Offset - Starts[Line - 1] + 1);
  return W;
}

namespace {

/// Maximum tab diagnostics before summarising the rest in one note.
constexpr unsigned MaxTabReports = 3;
/// The scan stops after this many findings (the sink caps errors anyway).
constexpr std::size_t MaxFindings = 200;

/// One pass over the text; see the file comment.
class LexScanner {
public:
  LexScanner(std::string_view Text, const LineTable &Lines, IssueSink &Sink)
      : T(Text), Lines(Lines), Sink(Sink) {}

  void run() {
    reportTabs();
    while (P < T.size() && Found.size() < MaxFindings)
      scanOne();
    // Report in file order, whatever the pass that found the issue.
    std::stable_sort(
        Found.begin(), Found.end(),
        [](const Finding &L, const Finding &R) { return L.Offset < R.Offset; });
    for (Finding &F : Found)
      Sink.report(F.Offset == std::string_view::npos ? Where()
                                                     : Lines.at(F.Offset),
                  std::move(F.Text));
  }

private:
  std::string_view T;
  const LineTable &Lines;
  IssueSink &Sink;
  std::size_t P = 0;

  /// One issue, reported once scanning is over.
  struct Finding {
    std::size_t Offset;
    IssueText Text;
  };
  std::vector<Finding> Found;

  void error(std::size_t Off, IssueText Msg) {
    if (Found.size() < MaxFindings)
      Found.push_back({Off, std::move(Msg)});
  }
  bool startsWith(std::string_view S) const {
    return T.substr(P, S.size()) == S;
  }
  static bool isSpace(char C) {
    return C == ' ' || C == '\n' || C == '\r' || C == '\t';
  }

  void reportTabs() {
    // One pass, counting lines as it goes (no lookup per tab).
    unsigned TabLines = 0, Line = 1, LastLine = 0;
    for (std::size_t I = 0; I < T.size(); ++I) {
      if (T[I] == '\n')
        ++Line;
      if (T[I] != '\t' || Line == LastLine)
        continue;
      LastLine = Line;
      if (++TabLines <= MaxTabReports)
        error(I, message<MsgId::TabCharacter>());
    }
    if (TabLines > MaxTabReports)
      Found.push_back({std::string_view::npos,
                       message<MsgId::MoreTabLines>(TabLines - MaxTabReports)});
  }

  void skipPast(std::string_view Terminator) {
    std::size_t E = T.find(Terminator, P);
    P = E == std::string_view::npos ? T.size() : E + Terminator.size();
  }

  void scanOne() {
    char C = T[P];
    if (isSpace(C)) {
      ++P;
      return;
    }
    if (C != '<') {
      error(P, message<MsgId::TextOutsideTags>());
      while (P < T.size() && T[P] != '<')
        ++P;
      return;
    }
    if (startsWith("<!--")) {
      std::size_t Start = P;
      P += 4;
      if (T.find("-->", P) == std::string_view::npos) {
        error(Start, message<MsgId::UnterminatedComment>());
        P = T.size();
        return;
      }
      skipPast("-->");
      return;
    }
    if (startsWith("<?")) {
      error(P, message<MsgId::XmlDeclaration>());
      skipPast("?>");
      return;
    }
    if (startsWith("<!")) {
      error(P, message<MsgId::MarkupDeclaration>());
      skipPast(">");
      return;
    }
    scanTag();
  }

  void scanTag() {
    std::size_t Start = P++;
    bool Closing = P < T.size() && T[P] == '/';
    if (Closing)
      ++P;
    std::size_t NameStart = P;
    while (P < T.size() && !isSpace(T[P]) && T[P] != '>' && T[P] != '/')
      ++P;
    std::string_view RawName = T.substr(NameStart, P - NameStart);
    std::string Name = excerpt(RawName);
    if (RawName.size() > MscclMaxStrLen)
      error(NameStart,
            message<MsgId::ElementNameTooLong>(RawName.size(), MscclMaxStrLen));
    unsigned Attrs = 0, Empty = 0;
    bool SplitReported = false;
    while (true) {
      if (P >= T.size()) {
        error(Start, message<MsgId::UnterminatedTag>(Name));
        return;
      }
      char C = T[P];
      if (C == '\n' || C == '\r') {
        if (!SplitReported)
          error(Start, message<MsgId::MultiLineTag>(Name));
        SplitReported = true;
        ++P;
        continue;
      }
      if (C == '\t') {
        ++P;
        continue;
      }
      if (C == ' ') {
        unsigned Run = 0;
        while (P < T.size() && T[P] == ' ') {
          ++Run;
          ++P;
        }
        Empty += Run - 1;
        continue;
      }
      if (C == '>') {
        ++P;
        break;
      }
      if (C == '/' && P + 1 < T.size() && T[P + 1] == '>') {
        P += 2;
        break;
      }
      if (Closing) {
        error(P, message<MsgId::BadClosingTag>(Name));
        skipPast(">");
        return;
      }
      if (!scanAttribute(Name, SplitReported))
        return;
      ++Attrs;
    }
    if (Attrs + Empty > MscclMaxAttrCount)
      error(Start, message<MsgId::TooManyAttributes>(
                       Name, Attrs + Empty,
                       Empty ? fmt::format(" ({} of them empty, from "
                                           "repeated spaces)",
                                           Empty)
                             : std::string(),
                       MscclMaxAttrCount));
  }

  /// Scans `name="value"` at P; false when the tag cannot be scanned further.
  bool scanAttribute(const std::string &Elem, bool &SplitReported) {
    std::size_t AttrStart = P;
    while (P < T.size() && !isSpace(T[P]) && T[P] != '=' && T[P] != '>' &&
           !(T[P] == '/' && P + 1 < T.size() && T[P + 1] == '>'))
      ++P;
    std::string_view RawName = T.substr(AttrStart, P - AttrStart);
    std::string AName = excerpt(RawName);
    if (RawName.size() > MscclMaxStrLen)
      error(AttrStart, message<MsgId::AttributeNameTooLong>(RawName.size(),
                                                            MscclMaxStrLen));
    bool SpaceAroundEq = false;
    std::size_t Q = P;
    while (Q < T.size() && T[Q] == ' ')
      ++Q;
    if (Q >= T.size() || T[Q] != '=') {
      error(AttrStart, message<MsgId::AttributeWithoutValue>(AName, Elem));
      return true;
    }
    SpaceAroundEq = Q != P;
    P = Q + 1;
    while (P < T.size() && T[P] == ' ') {
      SpaceAroundEq = true;
      ++P;
    }
    if (SpaceAroundEq)
      error(AttrStart, message<MsgId::SpacesAroundEquals>(AName));
    if (P >= T.size()) {
      error(AttrStart, message<MsgId::UnterminatedAttribute>(AName));
      return false;
    }
    char Quote = T[P];
    if (Quote != '"' && Quote != '\'') {
      error(P, message<MsgId::UnquotedValue>(AName));
      while (P < T.size() && T[P] != ' ' && T[P] != '>')
        ++P;
      return true;
    }
    if (Quote == '\'')
      error(P, message<MsgId::SingleQuotedValue>(AName));
    std::size_t ValueStart = P + 1;
    std::size_t End = T.find(Quote, ValueStart);
    if (End == std::string_view::npos) {
      error(P, message<MsgId::UnterminatedValue>(AName));
      P = T.size();
      return false;
    }
    std::string_view Value = T.substr(ValueStart, End - ValueStart);
    if (!SplitReported && Value.find_first_of("\r\n") != std::string::npos) {
      error(AttrStart, message<MsgId::MultiLineValue>(AName));
      SplitReported = true;
    }
    if (Value.size() > MscclMaxStrLen)
      error(AttrStart,
            message<MsgId::ValueTooLong>(AName, Value.size(), MscclMaxStrLen));
    P = End + 1;
    return true;
  }
};

} // namespace

void checkLexicalRules(std::string_view Text, const LineTable &Lines,
                       IssueSink &Sink) {
  LexScanner(Text, Lines, Sink).run();
}

} // namespace tacclrt
