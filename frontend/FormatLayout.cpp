//===- frontend/FormatLayout.cpp - Breaking a statement into lines --------===//
//
// layoutLine() (FormatLayout.h): a greedy fill, one pass over the pieces.
// Before a piece that follows a comma it measures the run up to the next
// comma (or forced break); if the run does not fit on the current line, the
// line ends at the comma.
//
//===----------------------------------------------------------------------===//
#include "frontend/FormatLayout.h"

#include <map>

using namespace tacclc;

unsigned tacclc::columnsOf(const std::string &Text) {
  unsigned N = 0;
  for (char C : Text)
    N += (static_cast<unsigned char>(C) & 0xC0) != 0x80;
  return N;
}

namespace {

/// Columns from piece \p I (with its leading spaces) through the next piece
/// the line may or must break after.
unsigned runWidth(const std::vector<Piece> &Ps, size_t I) {
  unsigned W = 0;
  for (size_t J = I; J < Ps.size(); ++J) {
    if (J > I && Ps[J].ForceBreakBefore)
      break;
    if (!Ps[J].Sticky) // a comment may run past the limit
      W += Ps[J].SpacesBefore + columnsOf(Ps[J].Text);
    if (Ps[J].BreakAfter || Ps[J].ForceBreakAfter)
      break;
  }
  return W;
}

void trimRight(std::string &S) {
  while (!S.empty() && S.back() == ' ')
    S.pop_back();
}

} // namespace

std::vector<std::string> tacclc::layoutLine(const std::vector<Piece> &Ps,
                                            unsigned Indent, unsigned Limit) {
  std::vector<std::string> Lines;
  std::string Cur(Indent, ' ');
  unsigned Col = Indent;
  bool LineStart = true;
  std::map<int, unsigned> ListCol;
  // Where a line continues: under the list of the last comma, else 4 in.
  unsigned Continue = Indent + 4;
  for (size_t I = 0; I < Ps.size(); ++I) {
    const Piece &P = Ps[I];
    if (I > 0) {
      const Piece &Prev = Ps[I - 1];
      bool Break =
          Prev.ForceBreakAfter || P.ForceBreakBefore ||
          (Prev.BreakAfter && !P.Sticky && Col + runWidth(Ps, I) > Limit);
      if (Break) {
        trimRight(Cur);
        Lines.push_back(Cur);
        Cur.assign(Continue, ' ');
        Col = Continue;
        LineStart = true;
      }
    }
    if (!LineStart) {
      Cur.append(P.SpacesBefore, ' ');
      Col += P.SpacesBefore;
    }
    if (P.OpensList >= 0)
      ListCol[P.OpensList] = Col <= Limit * 3 / 5 ? Col : Indent + 4;
    if (P.BreakAfter && ListCol.count(P.List))
      Continue = ListCol[P.List];
    Cur += P.Text;
    Col += columnsOf(P.Text);
    LineStart = false;
  }
  trimRight(Cur);
  Lines.push_back(Cur);
  return Lines;
}
