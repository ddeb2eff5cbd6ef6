//===- support/Diagnostics.h - One diagnostic engine for tacclc -*- C++ -*-===//
//
// Every user-facing error, warning and note goes through DiagnosticEngine. It
// sits on an llvm::SourceMgr, so each message renders as
// `file:line:col: error: ...` followed by the source line and a caret line.
// Diagnostics are collected, sorted by location and printed once, like wabt's
// Errors and Carbon's sorting consumer. Diagnostic kinds live in
// Diagnostics.def so that the set of messages is one greppable list.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_DIAGNOSTICS_H
#define TACCLC_SUPPORT_DIAGNOSTICS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

#include <string>
#include <vector>

namespace tacclc {

/// Identifies one entry of Diagnostics.def.
enum class DiagId {
#define DIAG(Name, Severity, Format) Name,
#include "support/Diagnostics.def"
};

/// How many kinds Diagnostics.def declares.
inline constexpr unsigned NumDiagIds = 0
#define DIAG(Name, Severity, Format) +1
#include "support/Diagnostics.def"
    ;

/// Severity of a diagnostic.
enum class Severity { Error, Warning, Note };

/// Returns the registered severity of \p Id.
Severity severityOf(DiagId Id);
/// Returns the registered name of \p Id (e.g. "UnknownRank").
llvm::StringRef nameOf(DiagId Id);
/// Returns the registered fmt format string of \p Id.
const char *formatOf(DiagId Id);

/// A suggested edit that fixes a diagnostic: the text of Range replaced by
/// Replacement (an insertion when the range is empty). Editors offer it as
/// a quick fix (the language server's code actions); the text output does
/// not show it.
struct FixIt {
  llvm::SMRange Range;
  std::string Replacement;
};

/// One rendered-but-not-yet-printed diagnostic.
struct Diagnostic {
  DiagId Id;
  Severity Sev;
  llvm::SMRange Range; ///< Invalid for location-less diagnostics.
  std::string Message;
  /// Notes attached to this diagnostic; printed right after it.
  std::vector<Diagnostic> Notes;
  /// The edits that fix it, each one on its own (alternatives).
  std::vector<FixIt> FixIts;
};

/// Collects diagnostics against the buffers of one SourceMgr and prints them.
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &SM) : SM(SM) {}

  /// Reports \p Id at \p Range, formatting the registered message with Args.
  template <typename... Args>
  Diagnostic &report(DiagId Id, llvm::SMRange Range, const Args &...As) {
    if (Diagnostic *Full = countIfFull(Id, Range))
      return *Full; // not even formatted
    return add(Id, Range, fmt::format(fmt::runtime(formatOf(Id)), As...));
  }
  /// Reports \p Id at a single location.
  template <typename... Args>
  Diagnostic &report(DiagId Id, llvm::SMLoc Loc, const Args &...As) {
    return report(Id, llvm::SMRange(Loc, Loc), As...);
  }
  /// Attaches a note to \p Parent.
  template <typename... Args>
  void note(Diagnostic &Parent, DiagId Id, llvm::SMRange Range,
            const Args &...As) {
    if (&Parent == &Discarded)
      return;
    Parent.Notes.push_back({Id,
                            severityOf(Id),
                            Range,
                            fmt::format(fmt::runtime(formatOf(Id)), As...),
                            {},
                            {}});
  }

  /// Attaches to \p Parent the fix-it that replaces the text of \p Range
  /// by \p Replacement.
  void fixIt(Diagnostic &Parent, llvm::SMRange Range, std::string Replacement);
  /// Suggests \p Name for the misspelled name at \p Wrong: a DidYouMean
  /// note at \p DefinedAt (where \p Name is declared; \p Wrong when it
  /// has no declaration) and the fix-it that writes \p Name at \p Wrong.
  /// Every "did you mean" goes through here or through fixIt, so that each
  /// one can be applied by an editor.
  void suggest(Diagnostic &Parent, llvm::SMRange Wrong, llvm::StringRef Name,
               llvm::SMRange DefinedAt);

  /// Number of errors reported so far.
  unsigned errorCount() const { return NumErrors; }
  /// True if any error was reported.
  bool hasErrors() const { return NumErrors != 0; }

  /// When set, each message ends with `[Name]` (used by golden tests).
  void setShowNames(bool Show) { ShowNames = Show; }

  /// Prints every collected diagnostic sorted by location (location-less
  /// ones first, in report order) and forgets them.
  void flush(llvm::raw_ostream &OS);

  /// The diagnostics collected and not yet flushed, in report order (for
  /// clients that present them themselves, such as the language server).
  const std::vector<Diagnostic> &pending() const { return Pending; }

  /// The source manager diagnostics refer to.
  llvm::SourceMgr &getSourceMgr() { return SM; }

  /// At most this many diagnostics of one kind are kept; later ones are
  /// counted (errors still count as errors) and summed up in one note when
  /// flushed, so that no input can make the output grow without bound.
  static constexpr unsigned MaxPerKind = 50;

  /// Source lines longer than this are shown as a window of this many
  /// characters around the location, elided with "..." (a one-line file of
  /// megabytes would otherwise be printed whole for each message).
  static constexpr size_t MaxShownLineLength = 160;

private:
  /// When \p Id has MaxPerKind diagnostics kept, counts this one and
  /// returns Discarded; else null.
  Diagnostic *countIfFull(DiagId Id, llvm::SMRange Range);
  Diagnostic &add(DiagId Id, llvm::SMRange Range, std::string Message);
  /// Prints \p D; \p Buf is its buffer when known (0: found here).
  void print(llvm::raw_ostream &OS, const Diagnostic &D, unsigned Buf = 0);
  /// Prints \p D with a window of its long source line; false when the line
  /// is short enough to print as it is.
  bool printWindowed(llvm::raw_ostream &OS, const Diagnostic &D,
                     const std::string &Msg, unsigned Buf);

  llvm::SourceMgr &SM;
  std::vector<Diagnostic> Pending;
  std::array<uint64_t, NumDiagIds> Kept{};    ///< Per kind: reported, kept.
  std::array<uint64_t, NumDiagIds> Dropped{}; ///< Per kind: beyond MaxPerKind.
  Diagnostic Discarded; ///< What report returns once a kind is full.
  unsigned NumErrors = 0;
  bool ShowNames = false;
};

/// Prints an internal compiler error (a tacclc bug, never a user error) and
/// exits with status 2.
[[noreturn]] void reportInternalError(llvm::StringRef Message);

} // namespace tacclc

#endif // TACCLC_SUPPORT_DIAGNOSTICS_H
