//===- tests/unit/runtime/IssueSinkTest.cpp - Capped issue collection -----===//
//
// The runtime's issue collector keeps reports bounded whatever the input:
// warnings and notes are grouped by kind, the first few of a kind are kept
// and the rest counted in one note placed after them, the kept total is
// capped, errors stop at their own cap, and input text quoted in a message
// is shortened.
//
//===----------------------------------------------------------------------===//
#include "format/IssueSink.h"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>

using namespace tacclrt;

namespace {
/// A name made of letters only, distinct for every \p N (numbers would not
/// make distinct kinds).
std::string letters(unsigned N) {
  std::string S;
  do {
    S += static_cast<char>('a' + N % 26);
    N /= 26;
  } while (N);
  return S;
}
} // namespace

TEST_CASE("warnings of one kind are kept up to the cap, then counted") {
  Report R;
  IssueSink Sink(R, "f.xml");
  Where W;
  W.Line = 3;
  for (unsigned I = 0; I < 1000000; ++I)
    Sink.report<MsgId::UnknownAttribute>(W, fmt::format("x{}", I), "step");
  REQUIRE(R.size() == MaxIssuesPerKind + 1);
  CHECK(R.count(Issue::Warning) == MaxIssuesPerKind);
  const Issue &Last = R[MaxIssuesPerKind];
  CHECK(Last.Sev == Issue::Note);
  CHECK(Last.Line == 0);
  CHECK(format(Last) == "f.xml: note: ... and 999,980 more warnings like this");
  CHECK(Sink.errors() == 0);
}

TEST_CASE("the count note stays after the kept issues of its kind") {
  Report R;
  IssueSink Sink(R, "f.xml");
  for (unsigned I = 0; I < MaxIssuesPerKind + 1; ++I)
    Sink.report<MsgId::MoreTabLines>(Where(), I);
  Sink.report<MsgId::UnknownElement>(Where(), "x");
  Sink.report<MsgId::MoreTabLines>(Where(), 99);
  REQUIRE(R.size() == MaxIssuesPerKind + 2);
  CHECK(R[MaxIssuesPerKind].Message == "... and 2 more notes like this");
  CHECK(R[MaxIssuesPerKind + 1].Message ==
        "unknown element <x> is ignored by the runtime");
  CHECK(R[MaxIssuesPerKind].Id == MsgId::MoreLikeThis);
}

TEST_CASE("one more of a kind is counted in the singular") {
  Report R;
  IssueSink Sink(R, "");
  for (unsigned I = 0; I <= MaxIssuesPerKind; ++I)
    Sink.report<MsgId::TrailingNop>(Where());
  CHECK(R.Issues.back().Message == "... and 1 more warning like this");
}

TEST_CASE("warnings and notes of many kinds are capped in total") {
  Report R;
  IssueSink Sink(R, "f.xml");
  for (unsigned I = 0; I < MaxReportedRemarks + 700; ++I)
    Sink.report<MsgId::RootIgnored>(Where(), 0, letters(I));
  REQUIRE(R.size() == MaxReportedRemarks + 1);
  CHECK(R.Issues.back().Message ==
        fmt::format("... and 700 more warnings and notes (at most {} are "
                    "shown)",
                    MaxReportedRemarks));
  // Errors are still reported after the warnings are capped.
  Sink.report<MsgId::NoAlgo>(Where());
  CHECK(R.Issues.back().Message == "no <algo> element");
  CHECK(Sink.errors() == 1);
}

TEST_CASE("errors stop at their cap with one note") {
  Report R;
  IssueSink Sink(R, "f.xml", 3);
  for (unsigned I = 0; I < 10; ++I)
    Sink.report<MsgId::NegativeTbId>(Where(), I);
  REQUIRE(R.size() == 4);
  CHECK(R.count(Issue::Error) == 3);
  CHECK(R[3].Message == "too many errors; stopping after 3");
  CHECK(Sink.full());
  Sink.report<MsgId::TrailingNop>(Where());
  CHECK(R.size() == 4);
}

TEST_CASE("kinds ignore numbers and quoted input") {
  CHECK(issueKind(Issue::Warning, "deps=3 is ignored because depid=-1") ==
        issueKind(Issue::Warning, "deps=12 is ignored because depid=-1"));
  CHECK(issueKind(Issue::Warning, "unknown attribute 'a' on <algo>") ==
        issueKind(Issue::Warning, "unknown attribute 'bb' on <step>"));
  CHECK(issueKind(Issue::Warning, "unknown element <x> is ignored") ==
        issueKind(Issue::Warning, "unknown element <yyy> is ignored"));
  CHECK(issueKind(Issue::Warning, "same") != issueKind(Issue::Note, "same"));
  // An apostrophe in a word is no quote: the rest of the message counts.
  CHECK(issueKind(Issue::Warning, "the call's size is wrong") !=
        issueKind(Issue::Warning, "the call's root is wrong"));
  CHECK(issueKind(Issue::Warning, "one thing") !=
        issueKind(Issue::Warning, "another thing"));
}

TEST_CASE("numbers get thousands separators") {
  CHECK(withSeparators(0) == "0");
  CHECK(withSeparators(999) == "999");
  CHECK(withSeparators(1000) == "1,000");
  CHECK(withSeparators(999980) == "999,980");
  CHECK(withSeparators(18446744073709551615ull) ==
        "18,446,744,073,709,551,615");
}

TEST_CASE("long input text is shortened in messages") {
  CHECK(excerpt("short") == "short");
  std::string Exact(MaxQuotedChars, 'x');
  CHECK(excerpt(Exact) == Exact);
  std::string Long(1000000, 'y');
  std::string E = excerpt(Long);
  CHECK(E.size() < MaxQuotedChars + 40);
  CHECK(E == std::string(MaxQuotedChars, 'y') + "... (1,000,000 characters)");
}
