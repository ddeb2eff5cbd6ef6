//===- tests/unit/frontend/LineTableTest.cpp - Lines and UTF-16 columns ---===//
//
// LineTable: line starts and the line of a location (text ends, empty lines,
// a last line with or without '\n'), UTF-16 columns after non-ASCII text
// (two-byte and four-byte characters), and the way back from (line, UTF-16
// column) to a byte, clamped to the line and never inside a character.
//
//===----------------------------------------------------------------------===//
#include "frontend/LineTable.h"

#include <doctest/doctest.h>

#include <string>

using namespace tacclc;

TEST_CASE("lines and the line of a location") {
  const std::string Text = "ab\n\ncd\n";
  LineTable T(Text);
  CHECK(T.lines() == 4); // "ab", "", "cd", ""
  CHECK(T.lineStart(0) == Text.data());
  CHECK(T.lineStart(2) == Text.data() + 4);
  CHECK(T.lineStart(3) == Text.data() + 7);
  CHECK(T.lineStart(4) == nullptr);
  CHECK(T.lineOf(Text.data()) == 0);
  CHECK(T.lineOf(Text.data() + 2) == 0); // its '\n'
  CHECK(T.lineOf(Text.data() + 3) == 1);
  CHECK(T.lineOf(Text.data() + 6) == 2);
  CHECK(T.lineOf(Text.data() + Text.size()) == 3);
  LineTable Empty("");
  CHECK(Empty.lines() == 1);
  CHECK(Empty.utf16Column(Empty.lineStart(0)) == 0);
}

TEST_CASE("UTF-16 columns after non-ASCII text") {
  // µ: two bytes, one unit; U+1F600: four bytes, two units.
  const std::string Text = "x\n/* \xc2\xb5\xf0\x9f\x98\x80 */ name\n";
  LineTable T(Text);
  const char *Name = Text.data() + Text.find("name");
  CHECK(T.utf16Column(Name) == 10); // "/* " 3, µ 1, U+1F600 2, " */ " 4
  CHECK(T.utf16Column(Text.data() + 1) == 1);
  CHECK(T.atUtf16(1, 10) == Name);
  CHECK(T.atUtf16(1, 4) == Text.data() + Text.find("\xf0"));
  // Inside the surrogate pair: the character's start, not its middle.
  CHECK(T.atUtf16(1, 5) == Text.data() + Text.find("\xf0"));
  CHECK(T.atUtf16(1, 6) == Text.data() + Text.find(" */"));
  CHECK(T.atUtf16(1, 1000) == Text.data() + Text.find("e\n") + 1);
  CHECK(T.atUtf16(1, -5) == T.lineStart(1));
  CHECK(T.atUtf16(0, 1000) == Text.data() + 1);
  CHECK(T.atUtf16(3, 0) == nullptr);
}

TEST_CASE("a long line costs nothing on its ASCII part") {
  std::string Text(1 << 20, 'a');
  Text += "\xc2\xb5z";
  LineTable T(Text);
  CHECK(T.utf16Column(Text.data() + Text.size() - 1) == (1 << 20) + 1);
  CHECK(T.atUtf16(0, 1 << 19) == Text.data() + (1 << 19));
  CHECK(T.atUtf16(0, (1 << 20) + 1) == Text.data() + Text.size() - 1);
}
