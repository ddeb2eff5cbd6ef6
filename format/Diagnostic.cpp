//===- format/Diagnostic.cpp - Runtime issues -----------------------------===//
//
// Rendering of Issue and the small Report helpers, plus IssueSink (the capped
// collector used inside the runtime layer) and its helpers for keeping
// messages short: excerpt(), withSeparators() and issueKind().
//
//===----------------------------------------------------------------------===//
#include "format/Diagnostic.h"

#include "format/IssueSink.h"
#include "format/Messages.h"

#include <fmt/format.h>

#include <atomic>
#include <cctype>

namespace tacclrt {

namespace {
/// Whether format() appends message names.
std::atomic<bool> ShowMessageNames{false};
} // namespace

void setShowMessageNames(bool Show) { ShowMessageNames = Show; }

const char *nameOf(Issue::Severity S) {
  switch (S) {
  case Issue::Error:
    return "error";
  case Issue::Warning:
    return "warning";
  case Issue::Note:
    return "note";
  }
  return "error";
}

std::string format(const Issue &I) {
  std::string Out;
  std::string Loc = I.File;
  if (I.Line != 0) {
    Loc += fmt::format(":{}", I.Line);
    if (I.Col != 0)
      Loc += fmt::format(":{}", I.Col);
  }
  if (!Loc.empty())
    Out = Loc + ": ";
  Out += nameOf(I.Sev);
  Out += ": ";

  std::string Ctx;
  auto Append = [&Ctx](const char *Label, long Value) {
    if (Value < 0)
      return;
    if (!Ctx.empty())
      Ctx += ' ';
    Ctx += fmt::format("{} {}", Label, Value);
  };
  Append("rank", I.Rank);
  Append("tb", I.Tb);
  Append("step", I.Step);
  if (I.Iteration >= 0)
    Ctx += fmt::format("{}(iteration {})", Ctx.empty() ? "" : " ", I.Iteration);
  if (!Ctx.empty())
    Out += Ctx + ": ";
  Out += I.Message;
  if (ShowMessageNames && I.Id != MsgId::None)
    Out += fmt::format(" [{}]", nameOf(I.Id));
  return Out;
}

bool Report::hasErrors() const { return count(Issue::Error) != 0; }

std::size_t Report::count(Issue::Severity S) const {
  std::size_t N = 0;
  for (const Issue &I : Issues)
    N += I.Sev == S;
  return N;
}

void Report::append(const Report &Other) {
  Issues.insert(Issues.end(), Other.Issues.begin(), Other.Issues.end());
}

std::string Report::str() const {
  std::string Out;
  for (const Issue &I : Issues) {
    Out += format(I);
    Out += '\n';
  }
  return Out;
}

std::string excerpt(std::string_view Text) {
  if (Text.size() <= MaxQuotedChars)
    return std::string(Text);
  return fmt::format("{}... ({} characters)", Text.substr(0, MaxQuotedChars),
                     withSeparators(Text.size()));
}

std::string withSeparators(std::uint64_t N) {
  std::string Digits = std::to_string(N);
  std::string Out;
  Out.reserve(Digits.size() + Digits.size() / 3);
  for (std::size_t I = 0; I < Digits.size(); ++I) {
    if (I != 0 && (Digits.size() - I) % 3 == 0)
      Out += ',';
    Out += Digits[I];
  }
  return Out;
}

std::string issueKind(Issue::Severity Sev, std::string_view Message) {
  std::string Kind(1, static_cast<char>('0' + Sev));
  char Close = 0;
  for (char C : Message) {
    if (Close) {
      if (C == Close) {
        Kind += C;
        Close = 0;
      }
      continue;
    }
    if (C >= '0' && C <= '9') {
      if (Kind.back() != '#')
        Kind += '#';
      continue;
    }
    // An apostrophe inside a word ("runtime's") opens no quote.
    bool InWord = std::isalpha(static_cast<unsigned char>(Kind.back())) != 0;
    if (C == '"' || (C == '\'' && !InWord))
      Close = C;
    else if (C == '<')
      Close = '>';
    Kind += C;
  }
  return Kind;
}

void IssueSink::append(const Where &W, IssueText Text) {
  Issue I = makeIssue(std::move(Text));
  I.File = File;
  I.Line = W.Line;
  I.Col = W.Col;
  I.Rank = W.Rank;
  I.Tb = W.Tb;
  I.Step = W.Step;
  I.Iteration = W.Iteration;
  Out.add(std::move(I));
}

void IssueSink::drop(Summary &S, std::string_view One, std::string_view Many,
                     std::string_view Tail) {
  ++S.Dropped;
  IssueText Text = message<MsgId::MoreLikeThis>(
      withSeparators(S.Dropped), S.Dropped == 1 ? One : Many, Tail);
  // The note stays where the first dropped issue would have been. Only
  // appends happen while the sink lives, so its index stays valid unless
  // the report was emptied (moved from) meanwhile.
  if (S.Index < Out.Issues.size()) {
    Out.Issues[S.Index].Message = std::move(Text.Text);
    return;
  }
  S.Index = Out.Issues.size();
  append(Where(), std::move(Text));
}

void IssueSink::report(const Where &W, IssueText Text) {
  if (full())
    return;
  Issue::Severity Sev = severityOf(Text.Id);
  if (Sev != Issue::Error) {
    std::string Key = issueKind(Sev, Text.Text);
    auto It = Kinds.find(Key);
    if (It != Kinds.end() && It->second.Kept >= MaxIssuesPerKind) {
      bool IsWarning = Sev == Issue::Warning;
      drop(It->second.Rest, IsWarning ? "warning" : "note",
           IsWarning ? "warnings" : "notes", " like this");
      return;
    }
    if (Remarks >= MaxReportedRemarks) {
      drop(Overflow, "warning or note", "warnings and notes",
           fmt::format(" (at most {} are shown)", MaxReportedRemarks));
      return;
    }
    if (It == Kinds.end())
      It = Kinds.emplace(std::move(Key), Kind()).first;
    ++It->second.Kept;
    ++Remarks;
    append(W, std::move(Text));
    return;
  }
  append(W, std::move(Text));
  ++Errors;
  if (full())
    append(Where(), message<MsgId::TooManyErrors>(MaxErrors));
}

} // namespace tacclrt
