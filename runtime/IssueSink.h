//===- runtime/IssueSink.h - Capped issue collection ------------*- C++ -*-===//
//
// Internal helper shared by the loader, the checker and the CPU executor: it
// appends issues to a Report with the file name filled in, counts errors and
// stops accepting issues after a cap (50 errors by default), adding one note
// that says so. Not part of the public API.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLRT_ISSUESINK_H
#define TACCLRT_ISSUESINK_H

#include "tacclrt/Diagnostic.h"

#include <string>
#include <string_view>

namespace tacclrt {

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

/// Appends issues to a Report until MaxErrors errors were reported.
class IssueSink {
public:
  /// Collects into \p Out, labelling every issue with \p File.
  IssueSink(Report &Out, std::string_view File, unsigned MaxErrors = 50)
      : Out(Out), File(File), MaxErrors(MaxErrors) {}

  /// Adds an issue of severity \p Sev at \p W (dropped once full()).
  void add(Issue::Severity Sev, const Where &W, std::string Message);
  /// Adds an error.
  void error(const Where &W, std::string Message) {
    add(Issue::Error, W, std::move(Message));
  }
  /// Adds a warning.
  void warning(const Where &W, std::string Message) {
    add(Issue::Warning, W, std::move(Message));
  }
  /// Adds a note.
  void note(const Where &W, std::string Message) {
    add(Issue::Note, W, std::move(Message));
  }

  /// True once the error cap was reached; later issues are dropped.
  bool full() const { return Errors >= MaxErrors; }
  /// Errors added through this sink.
  unsigned errors() const { return Errors; }
  /// The file name issues are labelled with.
  const std::string &file() const { return File; }

private:
  Report &Out;
  std::string File;
  unsigned MaxErrors;
  unsigned Errors = 0;
};

} // namespace tacclrt

#endif // TACCLRT_ISSUESINK_H
