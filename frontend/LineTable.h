//===- frontend/LineTable.h - Lines and UTF-16 columns of a text -*- C++
//-*-===//
//
// Where each line of a text starts and how far each line is plain ASCII,
// found in one pass over the text: the line of a location is then a binary
// search, the start of a line a lookup, and a UTF-16 column (what LSP
// positions count) costs nothing on the ASCII part of a line. llvm::
// SourceMgr keeps a table of line ends too, but privately, and its
// getLineAndColumn scans the line back to its start, which is quadratic for
// many locations on one long line. The symbol index and the language server
// use it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_LINETABLE_H
#define TACCLC_FRONTEND_LINETABLE_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tacclc {

/// The lines of one text, which must outlive the table. Lines end at '\n'.
class LineTable {
public:
  explicit LineTable(llvm::StringRef Text);

  /// The number of lines (a text ending in '\n' has an empty last line).
  size_t lines() const { return Starts.size(); }
  /// The line (0-based) of \p P, a pointer into the text or to its end.
  size_t lineOf(const char *P) const;
  /// The first byte of line \p Line, or null past the last line.
  const char *lineStart(size_t Line) const;
  /// UTF-16 code units from the start of the line of \p P to \p P.
  int64_t utf16Column(const char *P) const;
  /// The byte of line \p Line that is \p Units UTF-16 code units into it,
  /// never inside a character, at most the end of the line (and at least its
  /// start); null past the last line.
  const char *atUtf16(size_t Line, int64_t Units) const;

private:
  llvm::StringRef Text;
  /// Per line: the offset of its first byte, of its first byte that is not
  /// ASCII (its end if none), and of its end (its '\n' or the text's end).
  std::vector<size_t> Starts, Ascii, Ends;
};

} // namespace tacclc

#endif // TACCLC_FRONTEND_LINETABLE_H
