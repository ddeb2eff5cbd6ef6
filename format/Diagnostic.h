//===- format/Diagnostic.h - Runtime issues ---------------------*- C++ -*-===//
//
// The runtime layer reports every problem it finds (loader, checker, CPU
// executor) as an Issue: a severity, an optional XML location, an optional
// rank/threadblock/step context, a lower-case message and the id of that
// message in the registry of format/Messages.def. Issues are collected in a
// Report; nothing is printed and nothing is thrown. format() renders one
// issue in the usual `file:line:col: error: ...` shape so that the driver
// can print them unchanged, with the message's name appended when
// setShowMessageNames(true) was called.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_DIAGNOSTIC_H
#define TACCLC_FORMAT_DIAGNOSTIC_H

#include <cstddef>
#include <string>
#include <vector>

namespace tacclrt {

/// A message of the registry (format/Messages.h); 0 is MsgId::None.
enum class MsgId : unsigned;

/// One problem found in a TACCL-EF plan or in one of its executions.
struct Issue {
  /// How bad the issue is; only errors make a plan unusable.
  enum Severity { Error, Warning, Note };

  /// The severity; defaults to Error.
  Severity Sev = Error;
  /// The file the issue is about (may be empty).
  std::string File;
  /// 1-based XML line, or 0 when unknown.
  unsigned Line = 0;
  /// 1-based XML column, or 0 when unknown.
  unsigned Col = 0;
  /// The rank (`<gpu id>`) concerned, or -1.
  int Rank = -1;
  /// The threadblock (`<tb id>`) concerned, or -1.
  int Tb = -1;
  /// The step position inside the threadblock, or -1.
  int Step = -1;
  /// The loop iteration of the CPU executor concerned, or -1.
  long Iteration = -1;
  /// Lower-case message without a final period.
  std::string Message;
  /// The registry message Message was made from (MsgId::None if none).
  MsgId Id = MsgId();
};

/// Renders \p I as `FILE:LINE:COL: error: rank R tb T step S: MESSAGE`.
///
/// The `:LINE:COL` part is dropped when the line is unknown (`:COL` alone
/// when only the column is unknown), the file part when the file name is
/// empty, and each of `rank R`, `tb T`, `step S` when it is -1. A known
/// iteration is appended to the context as `(iteration I)`. When names are
/// shown (setShowMessageNames()), ` [NAME]` follows the message of an issue
/// made from the registry.
std::string format(const Issue &I);

/// Makes format() append the registry name of each message (the tools'
/// `--diag-names`); off by default. Meant to be set once, at start-up.
void setShowMessageNames(bool Show);

/// Returns "error", "warning" or "note".
const char *nameOf(Issue::Severity S);

/// An ordered list of issues, in the order they were found.
struct Report {
  /// The issues, in discovery order.
  std::vector<Issue> Issues;

  /// True when at least one issue is an error.
  bool hasErrors() const;
  /// Number of issues of severity \p S.
  std::size_t count(Issue::Severity S) const;
  /// Appends \p I.
  void add(Issue I) { Issues.push_back(std::move(I)); }
  /// Appends every issue of \p Other.
  void append(const Report &Other);
  /// All issues formatted with format(), one per line.
  std::string str() const;

  /// Number of issues.
  std::size_t size() const { return Issues.size(); }
  /// True when there is no issue at all.
  bool empty() const { return Issues.empty(); }
  /// Iteration over the issues.
  std::vector<Issue>::const_iterator begin() const { return Issues.begin(); }
  /// Iteration over the issues.
  std::vector<Issue>::const_iterator end() const { return Issues.end(); }
  /// The \p N-th issue.
  const Issue &operator[](std::size_t N) const { return Issues[N]; }
};

} // namespace tacclrt

#endif // TACCLC_FORMAT_DIAGNOSTIC_H
