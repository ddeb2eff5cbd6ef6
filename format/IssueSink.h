//===- format/IssueSink.h - Capped issue collection -------------*- C++ -*-===//
//
// Internal helper shared by the loader, the checker and the executors: it
// appends issues to a Report with the file name filled in and keeps the
// report small whatever the input. Errors stop being accepted after a cap
// (50 by default), with one note that says so. Warnings and notes are
// grouped by kind (their message with numbers and quoted input removed):
// the first MaxIssuesPerKind of a kind are kept, the rest only counted in
// one note placed after them ("... and 999,980 more warnings like this"),
// and at most MaxReportedRemarks are kept in all. The sink therefore holds
// a bounded number of issues and kinds, however many are reported. Also
// excerpt(), which shortens input text quoted in a message. Not part of the
// public API.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_ISSUESINK_H
#define TACCLC_FORMAT_ISSUESINK_H

#include "format/Diagnostic.h"
#include "format/Messages.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tacclrt {

/// Warnings (or notes) of one kind kept before the others are only counted.
constexpr unsigned MaxIssuesPerKind = 20;
/// Warnings and notes kept by one sink, all kinds together.
constexpr unsigned MaxReportedRemarks = 500;
/// Longest piece of input text (a name, a value) quoted whole in a message.
constexpr std::size_t MaxQuotedChars = 64;

/// \p Text for quoting in a message: unchanged when it has at most
/// MaxQuotedChars characters, else its beginning, "..." and its length.
std::string excerpt(std::string_view Text);

/// \p N with a comma between groups of three digits ("999,980").
std::string withSeparators(std::uint64_t N);

/// The kind of a message: \p Sev and \p Message with digits and the text in
/// quotes or angle brackets removed, so that reports that differ only in
/// numbers and names share it.
std::string issueKind(Issue::Severity Sev, std::string_view Message);

/// Where an issue points: an XML position and/or a rank/tb/step context.
struct Where {
  /// 1-based line, 0 when unknown.
  unsigned Line = 0;
  /// 1-based column, 0 when unknown.
  unsigned Col = 0;
  /// Rank or -1.
  int Rank = -1;
  /// Threadblock or -1.
  int Tb = -1;
  /// Step position or -1.
  int Step = -1;
  /// Executor iteration or -1.
  long Iteration = -1;
};

/// Appends issues to a Report until MaxErrors errors were reported, keeping
/// at most MaxIssuesPerKind warnings or notes of each kind.
class IssueSink {
public:
  /// Collects into \p Out, labelling every issue with \p File.
  IssueSink(Report &Out, std::string_view File, unsigned MaxErrors = 50)
      : Out(Out), File(File), MaxErrors(MaxErrors) {}

  /// Adds the issue \p Text at \p W, with the severity of its message
  /// (dropped once full(); a warning or note beyond its kind's cap is only
  /// counted).
  void report(const Where &W, IssueText Text);
  /// Adds message \p Id rendered with \p Args at \p W (see above).
  template <MsgId Id, typename... Args>
  void report(const Where &W, Args &&...A) {
    report(W, message<Id>(std::forward<Args>(A)...));
  }

  /// True once the error cap was reached; later issues are dropped.
  bool full() const { return Errors >= MaxErrors; }
  /// Errors added through this sink.
  unsigned errors() const { return Errors; }
  /// The file name issues are labelled with.
  const std::string &file() const { return File; }

private:
  /// A note in Out counting dropped issues, rewritten at every drop.
  struct Summary {
    /// Index of the note in Out.Issues, or npos before the first drop.
    std::size_t Index = std::string::npos;
    /// Issues dropped so far.
    std::uint64_t Dropped = 0;
  };
  /// What the sink knows of one kind of warning or note.
  struct Kind {
    /// Issues of the kind kept in Out.
    unsigned Kept = 0;
    /// The count of the others.
    Summary Rest;
  };

  /// Counts one more dropped issue in \p S and rewrites its note, which
  /// reads "... and N more \p One" (or \p Many) followed by \p Tail.
  void drop(Summary &S, std::string_view One, std::string_view Many,
            std::string_view Tail);
  /// Appends an issue to Out.
  void append(const Where &W, IssueText Text);

  Report &Out;
  std::string File;
  unsigned MaxErrors;
  unsigned Errors = 0;
  /// Warnings and notes kept, all kinds together.
  unsigned Remarks = 0;
  /// Kinds seen, at most MaxReportedRemarks of them.
  std::unordered_map<std::string, Kind> Kinds;
  /// Warnings and notes dropped once MaxReportedRemarks were kept.
  Summary Overflow;
};

} // namespace tacclrt

#endif // TACCLC_FORMAT_ISSUESINK_H
