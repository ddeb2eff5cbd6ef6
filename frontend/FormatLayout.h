//===- frontend/FormatLayout.h - Breaking a statement into lines -*- C++
//-*-===//
//
// The formatter (Format.cpp) turns each statement into a row of pieces
// (tokens and comments, with the spaces that go before them and where the
// line may break); layoutLine() lays such a row out within the column
// limit: it breaks after a comma only when what follows up to the next
// comma does not fit, and continues under the first element of the comma's
// list (or four columns in, when that list starts far to the right). A
// comment ends its line. Internal to frontend/.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_FORMATLAYOUT_H
#define TACCLC_FRONTEND_FORMATLAYOUT_H

#include <string>
#include <vector>

namespace tacclc {

/// One token or comment of a statement.
struct Piece {
  std::string Text;
  /// Spaces between it and the piece before on the same line.
  unsigned SpacesBefore = 1;
  /// A comma of list List: the line may break after it.
  bool BreakAfter = false;
  int List = -1;
  /// The first piece of the first element of list OpensList.
  int OpensList = -1;
  /// A comment: a line comment ends its line; a comment that stood on a
  /// line of its own also starts one.
  bool ForceBreakAfter = false;
  bool ForceBreakBefore = false;
  /// A comment that followed code on its line: never moved off it.
  bool Sticky = false;
};

/// The lines (without newlines or trailing spaces) of \p Pieces laid out at
/// indentation \p Indent within \p Limit columns where commas allow.
std::vector<std::string> layoutLine(const std::vector<Piece> &Pieces,
                                    unsigned Indent, unsigned Limit);

/// Columns \p Text takes (UTF-8 code points).
unsigned columnsOf(const std::string &Text);

} // namespace tacclc

#endif // TACCLC_FRONTEND_FORMATLAYOUT_H
