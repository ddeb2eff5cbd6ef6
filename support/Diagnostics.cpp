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

Diagnostic &DiagnosticEngine::add(DiagId Id, llvm::SMRange Range,
                                  std::string Message) {
  Severity Sev = severityOf(Id);
  if (Sev == Severity::Error)
    ++NumErrors;
  Pending.push_back({Id, Sev, Range, std::move(Message), {}});
  return Pending.back();
}

void DiagnosticEngine::print(llvm::raw_ostream &OS, const Diagnostic &D) {
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
  SM.PrintMessage(OS, D.Range.Start, toKind(D.Sev), Msg, Ranges);
}

void DiagnosticEngine::flush(llvm::raw_ostream &OS) {
  // Stable sort: location-less first, then by buffer and offset.
  auto Key = [this](const Diagnostic &D) {
    if (!D.Range.Start.isValid())
      return std::pair<unsigned, const char *>(0, nullptr);
    unsigned Buf = SM.FindBufferContainingLoc(D.Range.Start);
    return std::pair<unsigned, const char *>(Buf, D.Range.Start.getPointer());
  };
  std::stable_sort(Pending.begin(), Pending.end(),
                   [&](const Diagnostic &A, const Diagnostic &B) {
                     return Key(A) < Key(B);
                   });
  for (const Diagnostic &D : Pending) {
    print(OS, D);
    for (const Diagnostic &N : D.Notes)
      print(OS, N);
  }
  Pending.clear();
  OS.flush();
}

void tacclc::reportInternalError(llvm::StringRef Message) {
  llvm::errs() << "tacclc: internal error: " << Message
               << "\nplease report this as a tacclc bug\n";
  llvm::errs().flush();
  std::_Exit(2);
}
