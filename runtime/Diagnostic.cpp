//===- runtime/Diagnostic.cpp - Runtime issues ----------------------------===//
//
// Rendering of Issue and the small Report helpers, plus IssueSink (the capped
// collector used inside the runtime layer).
//
//===----------------------------------------------------------------------===//
#include "tacclrt/Diagnostic.h"

#include "IssueSink.h"

#include <fmt/format.h>

namespace tacclrt {

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

void IssueSink::add(Issue::Severity Sev, const Where &W, std::string Message) {
  if (full())
    return;
  Issue I;
  I.Sev = Sev;
  I.File = File;
  I.Line = W.Line;
  I.Col = W.Col;
  I.Rank = W.Rank;
  I.Tb = W.Tb;
  I.Step = W.Step;
  I.Iteration = W.Iteration;
  I.Message = std::move(Message);
  Out.add(std::move(I));
  if (Sev != Issue::Error)
    return;
  ++Errors;
  if (full()) {
    Issue N;
    N.Sev = Issue::Note;
    N.File = File;
    N.Message = fmt::format("too many errors; stopping after {}", MaxErrors);
    Out.add(std::move(N));
  }
}

} // namespace tacclrt
