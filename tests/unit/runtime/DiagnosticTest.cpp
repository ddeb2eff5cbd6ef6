//===- tests/unit/runtime/DiagnosticTest.cpp - Issue formatting -----------===//
//
// The exact rendering of runtime issues and the Report helpers.
//
//===----------------------------------------------------------------------===//
#include "format/Diagnostic.h"

#include <doctest/doctest.h>

using namespace tacclrt;

TEST_CASE("format renders every part of an issue") {
  Issue I;
  I.File = "a.xml";
  I.Line = 12;
  I.Col = 7;
  I.Rank = 2;
  I.Tb = 1;
  I.Step = 3;
  I.Message = "blocked waiting for a message from rank 1 on chan 0";
  CHECK(format(I) == "a.xml:12:7: error: rank 2 tb 1 step 3: blocked waiting "
                     "for a message from rank 1 on chan 0");
}

TEST_CASE("format omits unknown parts") {
  Issue I;
  I.File = "a.xml";
  I.Message = "no <algo> element";
  CHECK(format(I) == "a.xml: error: no <algo> element");
  I.Line = 4;
  CHECK(format(I) == "a.xml:4: error: no <algo> element");
  I.Rank = 2;
  I.Sev = Issue::Warning;
  CHECK(format(I) == "a.xml:4: warning: rank 2: no <algo> element");
  I.File.clear();
  I.Line = 0;
  I.Sev = Issue::Note;
  CHECK(format(I) == "note: rank 2: no <algo> element");
}

TEST_CASE("format appends the iteration to the context") {
  Issue I;
  I.File = "f";
  I.Line = 3;
  I.Col = 5;
  I.Rank = 0;
  I.Tb = 0;
  I.Step = 2;
  I.Iteration = 4;
  I.Message = "m";
  CHECK(format(I) == "f:3:5: error: rank 0 tb 0 step 2 (iteration 4): m");
}

TEST_CASE("report counts severities") {
  Report R;
  CHECK_FALSE(R.hasErrors());
  Issue W;
  W.Sev = Issue::Warning;
  R.add(W);
  CHECK_FALSE(R.hasErrors());
  R.add(Issue());
  CHECK(R.hasErrors());
  CHECK(R.count(Issue::Error) == 1);
  CHECK(R.count(Issue::Warning) == 1);
  CHECK(R.size() == 2);
}
