//===- frontend/LineTable.cpp - Lines and UTF-16 columns of a text --------===//
//
// LineTable (LineTable.h). UTF-16 code units are counted from UTF-8 bytes:
// a lead byte of a four-byte sequence (a code point above U+FFFF) is two
// units, every other lead byte one, continuation bytes none.
//
//===----------------------------------------------------------------------===//
#include "frontend/LineTable.h"

#include <algorithm>

using namespace tacclc;

namespace {

/// UTF-16 code units the UTF-8 lead byte \p C starts (0 for a continuation).
int64_t unitsOf(unsigned char C) {
  return (C & 0xC0) == 0x80 ? 0 : (C >= 0xF0 ? 2 : 1);
}

} // namespace

LineTable::LineTable(llvm::StringRef TheText) : Text(TheText) {
  size_t Start = 0;
  for (;;) {
    size_t End = std::min(Text.find('\n', Start), Text.size());
    size_t FirstWide = Start;
    while (FirstWide < End &&
           static_cast<unsigned char>(Text[FirstWide]) < 0x80)
      ++FirstWide;
    Starts.push_back(Start);
    Ascii.push_back(FirstWide);
    Ends.push_back(End);
    if (End == Text.size())
      break;
    Start = End + 1;
  }
}

size_t LineTable::lineOf(const char *P) const {
  size_t Off = size_t(std::clamp<std::ptrdiff_t>(P - Text.data(), 0,
                                                 std::ptrdiff_t(Text.size())));
  return size_t(std::upper_bound(Starts.begin(), Starts.end(), Off) -
                Starts.begin()) -
         1;
}

const char *LineTable::lineStart(size_t Line) const {
  return Line < Starts.size() ? Text.data() + Starts[Line] : nullptr;
}

int64_t LineTable::utf16Column(const char *P) const {
  size_t Line = lineOf(P);
  size_t Off = size_t(P - Text.data());
  if (Off <= Ascii[Line])
    return int64_t(Off - Starts[Line]);
  int64_t Units = int64_t(Ascii[Line] - Starts[Line]);
  for (size_t I = Ascii[Line]; I < Off; ++I)
    Units += unitsOf(static_cast<unsigned char>(Text[I]));
  return Units;
}

const char *LineTable::atUtf16(size_t Line, int64_t Units) const {
  if (Line >= Starts.size())
    return nullptr;
  Units = std::max<int64_t>(Units, 0);
  if (Units <= int64_t(Ascii[Line] - Starts[Line]))
    return Text.data() + Starts[Line] + size_t(Units);
  size_t At = Ascii[Line];
  int64_t Seen = int64_t(Ascii[Line] - Starts[Line]);
  while (At < Ends[Line]) {
    int64_t W = unitsOf(static_cast<unsigned char>(Text[At]));
    if (Seen + W > Units)
      break;
    Seen += W;
    ++At;
    while (At < Ends[Line] &&
           unitsOf(static_cast<unsigned char>(Text[At])) == 0)
      ++At;
  }
  return Text.data() + At;
}
