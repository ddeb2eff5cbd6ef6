//===- support/Diagnostics.cpp - Diagnostic engine implementation ---------===//
//
// Rendering goes through llvm::SourceMgr::PrintMessage so that every message
// gets the same `file:line:col:` prefix, source line and caret/range
// underline. Location-less diagnostics print as `tacclc: error: ...`.
//
//===----------------------------------------------------------------------===//
#include "support/Diagnostics.h"

#include <algorithm>
#include <cstdlib>

using namespace tacclc;

namespace {
struct DiagInfo {
  const char *Name;
  Severity Sev;
  const char *Format;
};

const DiagInfo Infos[] = {
#define DIAG(Name, Sev, Format) {#Name, Severity::Sev, Format},
#include "support/Diagnostics.def"
};

llvm::SourceMgr::DiagKind toKind(Severity S) {
  switch (S) {
  case Severity::Error:
    return llvm::SourceMgr::DK_Error;
  case Severity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case Severity::Note:
    return llvm::SourceMgr::DK_Note;
  }
  return llvm::SourceMgr::DK_Error;
}
} // namespace

Severity tacclc::severityOf(DiagId Id) {
  return Infos[static_cast<unsigned>(Id)].Sev;
}
llvm::StringRef tacclc::nameOf(DiagId Id) {
  return Infos[static_cast<unsigned>(Id)].Name;
}
const char *tacclc::formatOf(DiagId Id) {
  return Infos[static_cast<unsigned>(Id)].Format;
}

Diagnostic *DiagnosticEngine::countIfFull(DiagId Id, llvm::SMRange Range) {
  unsigned Kind = static_cast<unsigned>(Id);
  if (Kept[Kind] < MaxPerKind)
    return nullptr;
  Severity Sev = severityOf(Id);
  if (Sev == Severity::Error)
    ++NumErrors;
  ++Dropped[Kind];
  Discarded = {Id, Sev, Range, std::string(), {}, {}};
  return &Discarded;
}

Diagnostic &DiagnosticEngine::add(DiagId Id, llvm::SMRange Range,
                                  std::string Message) {
  Severity Sev = severityOf(Id);
  if (Sev == Severity::Error)
    ++NumErrors;
  ++Kept[static_cast<unsigned>(Id)];
  Pending.push_back({Id, Sev, Range, std::move(Message), {}, {}});
  return Pending.back();
}

void DiagnosticEngine::fixIt(Diagnostic &Parent, llvm::SMRange Range,
                             std::string Replacement) {
  if (&Parent != &Discarded && Range.isValid())
    Parent.FixIts.push_back({Range, std::move(Replacement)});
}

void DiagnosticEngine::suggest(Diagnostic &Parent, llvm::SMRange Wrong,
                               llvm::StringRef Name, llvm::SMRange DefinedAt) {
  note(Parent, DiagId::DidYouMean, DefinedAt.isValid() ? DefinedAt : Wrong,
       Name.str());
  fixIt(Parent, Wrong, Name.str());
}

void DiagnosticEngine::print(llvm::raw_ostream &OS, const Diagnostic &D,
                             unsigned Buf) {
  std::string Msg = D.Message;
  if (ShowNames)
    Msg += " [" + nameOf(D.Id).str() + "]";
  if (!D.Range.Start.isValid()) {
    const char *Label = D.Sev == Severity::Error     ? "error"
                        : D.Sev == Severity::Warning ? "warning"
                                                     : "note";
    OS << "tacclc: " << Label << ": " << Msg << "\n";
    return;
  }
  llvm::SmallVector<llvm::SMRange, 1> Ranges;
  if (D.Range.End.isValid() &&
      D.Range.End.getPointer() > D.Range.Start.getPointer() + 1)
    Ranges.push_back(D.Range);
  if (!printWindowed(OS, D, Msg, Buf))
    SM.PrintMessage(OS, D.Range.Start, toKind(D.Sev), Msg, Ranges);
}

bool DiagnosticEngine::printWindowed(llvm::raw_ostream &OS, const Diagnostic &D,
                                     const std::string &Msg, unsigned Buf) {
  const char *At = D.Range.Start.getPointer();
  if (Buf == 0)
    Buf = SM.FindBufferContainingLoc(D.Range.Start);
  if (Buf == 0)
    return false;
  const llvm::MemoryBuffer *MB = SM.getMemoryBuffer(Buf);
  // Most lines are short: looking at most MaxShownLineLength characters
  // either way from the location says so.
  auto LineBreak = [](char C) { return C == '\n' || C == '\r'; };
  size_t Back = 0, Ahead = 0;
  while (Back <= MaxShownLineLength && At - Back > MB->getBufferStart() &&
         !LineBreak(At[-ptrdiff_t(Back) - 1]))
    ++Back;
  while (Back + Ahead <= MaxShownLineLength &&
         At + Ahead < MB->getBufferEnd() && !LineBreak(At[Ahead]))
    ++Ahead;
  if (Back + Ahead <= MaxShownLineLength)
    return false;
  auto [Line, Col] = SM.getLineAndColumn(D.Range.Start, Buf);
  const char *LineStart = At - (Col - 1);
  const char *LineEnd = At;
  while (LineEnd < MB->getBufferEnd() && !LineBreak(*LineEnd))
    ++LineEnd;
  const size_t Len = size_t(LineEnd - LineStart);
  if (Len <= MaxShownLineLength)
    return false;
  // A window of the line around the location, elided at both ends.
  const size_t Caret = Col - 1;
  const size_t Begin =
      Caret > MaxShownLineLength / 2 ? Caret - MaxShownLineLength / 2 : 0;
  const size_t End = std::min(Len, Begin + MaxShownLineLength);
  const llvm::StringRef Ellipsis = "...";
  const size_t Shift = Begin > 0 ? Ellipsis.size() : 0;
  std::string Shown = Begin > 0 ? Ellipsis.str() : std::string();
  Shown.append(LineStart + Begin, End - Begin);
  if (End < Len)
    Shown += Ellipsis;
  llvm::SmallVector<std::pair<unsigned, unsigned>, 1> Ranges;
  if (D.Range.End.isValid() && D.Range.End.getPointer() > At + 1) {
    size_t From = Caret, To = std::min<size_t>(
                             Len, size_t(D.Range.End.getPointer() - LineStart));
    To = std::min(To, End);
    if (To > From)
      Ranges.push_back(
          {unsigned(From - Begin + Shift), unsigned(To - Begin + Shift)});
  }
  // The location prefix carries the true column; the line shown, a window.
  std::string Where =
      fmt::format("{}:{}:{}", MB->getBufferIdentifier().str(), Line, Col);
  llvm::SMDiagnostic Diag(SM, D.Range.Start, "", int(Line),
                          int(Caret - Begin + Shift), toKind(D.Sev), Msg, Shown,
                          Ranges);
  Diag.print(Where.c_str(), OS);
  return true;
}

void DiagnosticEngine::flush(llvm::raw_ostream &OS) {
  // Stable sort: location-less first, then by buffer and offset. Each key is
  // computed once (finding a location's buffer is a search).
  using Key = std::pair<unsigned, const char *>;
  std::vector<std::pair<Key, size_t>> Order;
  Order.reserve(Pending.size());
  for (size_t I = 0; I < Pending.size(); ++I) {
    llvm::SMLoc At = Pending[I].Range.Start;
    Key K(0, nullptr);
    if (At.isValid())
      K = Key(SM.FindBufferContainingLoc(At), At.getPointer());
    Order.push_back({K, I});
  }
  std::stable_sort(
      Order.begin(), Order.end(),
      [](const auto &A, const auto &B) { return A.first < B.first; });
  for (const auto &Entry : Order) {
    const Diagnostic &D = Pending[Entry.second];
    print(OS, D, Entry.first.first);
    for (const Diagnostic &N : D.Notes)
      print(OS, N);
  }
  for (size_t Kind = 0; Kind < Dropped.size(); ++Kind) {
    if (Dropped[Kind] == 0)
      continue;
    DiagId Id = static_cast<DiagId>(Kind);
    const char *What = severityOf(Id) == Severity::Error     ? "errors"
                       : severityOf(Id) == Severity::Warning ? "warnings"
                                                             : "notes";
    print(OS, {DiagId::MoreLikeThis,
               Severity::Note,
               llvm::SMRange(),
               fmt::format(fmt::runtime(formatOf(DiagId::MoreLikeThis)),
                           Dropped[Kind], What, nameOf(Id).str()),
               {},
               {}});
  }
  Pending.clear();
  Kept.fill(0);
  Dropped.fill(0);
  OS.flush();
}

void tacclc::reportInternalError(llvm::StringRef Message) {
  llvm::errs() << "tacclc: internal error: " << Message
               << "\nplease report this as a tacclc bug\n";
  llvm::errs().flush();
  std::_Exit(2);
}
