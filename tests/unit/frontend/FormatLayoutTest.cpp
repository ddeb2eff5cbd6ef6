//===- tests/unit/frontend/FormatLayoutTest.cpp - Breaking statements -----===//
//
// layoutLine(), the formatter's line breaking: a row that fits stays on one
// line; one that does not breaks after the comma before the first element
// that overflows and continues under the list's first element (or four
// columns in when the list starts far right); comments force their breaks;
// widths count code points, not bytes.
//
//===----------------------------------------------------------------------===//
#include "frontend/FormatLayout.h"

#include <doctest/doctest.h>

using namespace tacclc;

namespace {

/// "link c " then a list of \p N elements "eK" separated by commas.
std::vector<Piece> linkList(int N) {
  std::vector<Piece> Ps;
  auto Add = [&](std::string T, unsigned Sp) {
    Piece P;
    P.Text = std::move(T);
    P.SpacesBefore = Sp;
    Ps.push_back(P);
    return Ps.size() - 1;
  };
  Add("link", 0);
  Add("c", 1);
  for (int K = 0; K < N; ++K) {
    size_t At = Add("e" + std::to_string(K), 1);
    if (K == 0)
      Ps[At].OpensList = 7;
    if (K + 1 < N) {
      size_t C = Add(",", 0);
      Ps[C].BreakAfter = true;
      Ps[C].List = 7;
    }
  }
  return Ps;
}

} // namespace

TEST_CASE("a row that fits stays on one line") {
  auto Lines = layoutLine(linkList(3), 2, 80);
  REQUIRE(Lines.size() == 1);
  CHECK(Lines[0] == "  link c e0, e1, e2");
}

TEST_CASE("a long list breaks after commas, under its first element") {
  auto Lines = layoutLine(linkList(6), 0, 20);
  REQUIRE(Lines.size() == 2);
  CHECK(Lines[0] == "link c e0, e1, e2,");
  CHECK(Lines[1] == "       e3, e4, e5");
}

TEST_CASE("a list that starts far right continues four columns in") {
  std::vector<Piece> Ps = linkList(4);
  Ps[0].Text = std::string(30, 'x');
  auto Lines = layoutLine(Ps, 2, 40);
  REQUIRE(Lines.size() == 2);
  CHECK(Lines[1].rfind("      e", 0) == 0); // indent 2 + 4
}

TEST_CASE("comments force breaks") {
  std::vector<Piece> Ps = linkList(3);
  Piece C;
  C.Text = "// note";
  C.SpacesBefore = 2;
  C.ForceBreakAfter = true;
  Ps.insert(Ps.begin() + 4, C); // after "e0,"
  auto Lines = layoutLine(Ps, 0, 80);
  REQUIRE(Lines.size() == 2);
  CHECK(Lines[0] == "link c e0,  // note");
  CHECK(Lines[1] == "       e1, e2");
}

TEST_CASE("widths are code points") {
  CHECK(columnsOf("abc") == 3);
  CHECK(columnsOf("\xc2\xb5s") == 2);      // µs
  CHECK(columnsOf("\xe2\x86\x92 x") == 3); // → x
}
