//===- tests/unit/runtime/MessagesTest.cpp - Runtime message registry -----===//
//
// The registry of format/Messages.def: every message has a unique,
// non-empty kebab-case name and a well-formed format string, messages
// render as the call sites used to spell them, and format() shows names
// only when asked to.
//
//===----------------------------------------------------------------------===//
#include "format/Messages.h"
#include "format/IssueSink.h"

#include <doctest/doctest.h>
#include <fmt/args.h>

#include <set>
#include <string>

using namespace tacclrt;

namespace {
/// Every id but MsgId::None.
std::vector<MsgId> allIds() {
  std::vector<MsgId> Ids;
  for (std::size_t I = 1; I < NumMsgIds; ++I)
    Ids.push_back(static_cast<MsgId>(I));
  return Ids;
}
} // namespace

TEST_CASE("message names are unique, non-empty kebab-case") {
  std::set<std::string> Seen;
  for (MsgId Id : allIds()) {
    std::string Name = nameOf(Id);
    CAPTURE(Name);
    CHECK(!Name.empty());
    CHECK(Name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") ==
          std::string::npos);
    CHECK(Name.front() != '-');
    CHECK(Name.back() != '-');
    CHECK(Seen.insert(Name).second);
  }
  CHECK(Seen.size() == NumMsgIds - 1);
  CHECK(std::string(nameOf(MsgId::None)).empty());
}

TEST_CASE("format strings are well-formed and read like messages") {
  for (MsgId Id : allIds()) {
    std::string F = formatOf(Id);
    CAPTURE(nameOf(Id));
    CAPTURE(F);
    REQUIRE(!F.empty());
    // Rendering with as many arguments as placeholders must not throw.
    std::size_t N = detail::countPlaceholders(F.c_str());
    CHECK(N <= 12);
    fmt::dynamic_format_arg_store<fmt::format_context> Args;
    for (std::size_t I = 0; I < N; ++I)
      Args.push_back(std::string("x"));
    CHECK_NOTHROW((void)fmt::vformat(F, Args));
    // Lower-case first letter (or a placeholder or punctuation) and no
    // final period.
    CHECK(!(F[0] >= 'A' && F[0] <= 'Z' && F.compare(0, 4, "CUDA") != 0 &&
            F.compare(0, 3, "GPU") != 0));
    CHECK(F.back() != '.');
  }
}

TEST_CASE("placeholders are counted like fmt counts them") {
  CHECK(detail::countPlaceholders("") == 0);
  CHECK(detail::countPlaceholders("{} and {:>4}") == 2);
  CHECK(detail::countPlaceholders("key={{value}} {}") == 1);
}

TEST_CASE("messages render as the runtime always spelled them") {
  IssueText T = message<MsgId::MissingAttribute>("chan", "tb");
  CHECK(T.Id == MsgId::MissingAttribute);
  CHECK(T.Text == "attribute 'chan' of <tb> is missing");
  CHECK(std::string(nameOf(MsgId::MissingAttribute)) == "missing-attribute");
  CHECK(severityOf(MsgId::MissingAttribute) == Issue::Error);
  CHECK(severityOf(MsgId::UnknownAttribute) == Issue::Warning);
  CHECK(severityOf(MsgId::CopyIgnored) == Issue::Note);
  CHECK(message<MsgId::Deadlock>(2, "s").Text ==
        "deadlock: 2 threadblocks cannot make progress");
  // Doubled braces are literal.
  CHECK(message<MsgId::NoAlgo>().Text == "no <algo> element");
}

TEST_CASE("issues carry their message id and show its name on demand") {
  Report R;
  IssueSink Sink(R, "a.xml");
  Where W;
  W.Line = 3;
  W.Col = 5;
  Sink.report<MsgId::UnknownElement>(W, "foo");
  REQUIRE(R.size() == 1);
  CHECK(R[0].Id == MsgId::UnknownElement);
  CHECK(R[0].Sev == Issue::Warning);
  CHECK(format(R[0]) ==
        "a.xml:3:5: warning: unknown element <foo> is ignored by the runtime");
  setShowMessageNames(true);
  CHECK(format(R[0]) == "a.xml:3:5: warning: unknown element <foo> is "
                        "ignored by the runtime [unknown-element]");
  // An issue made without the registry has no name to show.
  Issue Plain;
  Plain.Message = "plain";
  CHECK(format(Plain) == "error: plain");
  setShowMessageNames(false);
  CHECK(format(R[0]).find('[') == std::string::npos);

  Issue Made = makeIssue<MsgId::TooManyErrors>(50);
  CHECK(Made.Sev == Issue::Note);
  CHECK(Made.Message == "too many errors; stopping after 50");
}
