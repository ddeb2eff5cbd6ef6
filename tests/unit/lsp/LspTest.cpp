//===- tests/unit/lsp/LspTest.cpp - The language server's core ------------===//
//
// The pieces of `tacclc lsp` without its process: the JSON depth pre-scan,
// the transport on hostile byte streams (bodies nested too deep, not UTF-8,
// over the size limit, cut short; Content-Length headers that are not a
// length), and an LspServer driven message by message: the lifecycle, ids
// that cannot be answered, params of the wrong type, positions out of
// range, and a document with many sketches answered right.
//
//===----------------------------------------------------------------------===//
#include "Session.h"
#include "lsp/LspTransport.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace tacclc;
using llvm::json::Object;
using llvm::json::Value;

namespace {

std::string framed(llvm::StringRef Body) {
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" +
         Body.str();
}

/// What the transport makes of \p Bytes: one line per read, until the end.
std::vector<std::string> reads(const std::string &Bytes) {
  LspMemoryInput In(Bytes);
  LspTransport T(In, llvm::nulls());
  std::vector<std::string> Out;
  for (;;) {
    Value Msg = nullptr;
    std::string Why;
    switch (T.read(Msg, Why)) {
    case LspTransport::Read::End:
      return Out;
    case LspTransport::Read::Malformed:
      Out.push_back("malformed: " + Why);
      break;
    case LspTransport::Read::Message:
      Out.push_back(llvm::formatv("{0}", Msg).str());
      break;
    }
  }
}

} // namespace

TEST_CASE("the JSON depth pre-scan skips strings and their escapes") {
  CHECK(jsonDepthAtMost("[[1]]", 2));
  CHECK(!jsonDepthAtMost("[[1]]", 1));
  CHECK(jsonDepthAtMost(R"({"a": [{"b": 1}]})", 3));
  CHECK(!jsonDepthAtMost(R"({"a": [{"b": 1}]})", 2));
  CHECK(jsonDepthAtMost(R"(["[[[[{{{{"])", 1));
  CHECK(jsonDepthAtMost(R"(["\"[[[[", "\\"])", 1)); // escaped quote, backslash
  CHECK(!jsonDepthAtMost(R"(["\\", [[1]]])", 2));   // the string ended
  CHECK(jsonDepthAtMost("]]]]][", 1)); // unbalanced: the parser's to report
  CHECK(!jsonDepthAtMost(std::string(100000, '['), MaxJsonDepth));
}

TEST_CASE("the transport refuses hostile bodies and reads on") {
  const std::string Ok = framed(R"({"ok": 1})");
  std::vector<std::string> R =
      reads(framed(std::string(50000, '[') + std::string(50000, ']')) + Ok);
  REQUIRE(R.size() == 2);
  CHECK(R[0].find("malformed: a body nested deeper than 128") == 0);
  CHECK(R[1] == R"({"ok":1})");
  std::string Nested;
  for (unsigned I = 0; I < MaxJsonDepth; ++I)
    Nested = "[" + Nested + "]";
  CHECK(reads(framed(Nested)) == std::vector<std::string>{Nested});

  R = reads(framed("{\"a\": \"\xff\xfe\"}") + framed("[1,") + Ok);
  REQUIRE(R.size() == 3);
  CHECK(R[0].find("malformed: a body that is not JSON") == 0);
  CHECK(R[1].find("malformed: a body that is not JSON") == 0);
  CHECK(R[2] == R"({"ok":1})");

  // A body over the limit is refused and skipped; a declared length is
  // never reserved before the bytes arrive.
  R = reads("Content-Length: 67108865\r\n\r\n" + std::string(67108865, ' ') +
            Ok);
  REQUIRE(R.size() == 2);
  CHECK(R[0].find("malformed: a message body of 67108865 bytes") == 0);
  CHECK(R[1] == R"({"ok":1})");
  CHECK(reads("Content-Length: 1000000000000\r\n\r\n{}").size() == 1);
  CHECK(reads("Content-Length: 60000000\r\n\r\n{}").empty()); // cut short

  // Bodies read in pieces arrive whole.
  std::string Big = "\"" + std::string(3 << 20, 'x') + "\"";
  R = reads(framed(Big));
  REQUIRE(R.size() == 1);
  CHECK(R[0].size() == Big.size());
}

TEST_CASE("Content-Length headers that are not a length") {
  const std::string Ok = framed("{}");
  for (const char *H :
       {"Content-Length: -5", "Content-Length: 0x10", "Content-Length: 1e3",
        "Content-Length: 99999999999999999999999",
        "Content-Length:", "Content-Type: text/plain"}) {
    CAPTURE(H);
    std::vector<std::string> R = reads(std::string(H) + "\r\n\r\n" + Ok);
    REQUIRE(R.size() == 2);
    CHECK(R[0].find("malformed: a message") == 0);
    CHECK(R[1] == "{}");
  }
  // Headers are case-insensitive, lines may end in \n alone; a header line
  // longer than any header is ignored.
  CHECK(reads("content-LENGTH:  2\n\n{}") == std::vector<std::string>{"{}"});
  CHECK(reads("X-Long: " + std::string(100000, 'y') + "\r\n" + Ok) ==
        std::vector<std::string>{"{}"});
}

TEST_CASE("the server answers every request, bad ones with an error") {
  Session S;
  Object A = S.request("textDocument/hover", Object{});
  CHECK(errorCode(A) == -32002); // before initialize
  CHECK(S.request("initialize", Object{}).getObject("result"));

  // Ids the answer cannot carry: an error with id null.
  for (const char *Id :
       {"1e400", "123456789012345678901234567890", "1.5", "2147483648",
        "-2147483649", "null", "[1]", "{}", "true"}) {
    CAPTURE(Id);
    std::vector<Value> Out =
        S.send(std::string(R"({"jsonrpc":"2.0","method":"shutdown","id":)") +
               Id + "}");
    REQUIRE(Out.size() == 1);
    CHECK(errorCode(*Out[0].getAsObject()) == -32600);
    CHECK(*Out[0].getAsObject()->get("id") == Value(nullptr));
  }
  for (const char *Body :
       {"[]", "5", R"("x")", R"({"id": 3})", R"({"id": 3, "method": 7})"}) {
    CAPTURE(Body);
    std::vector<Value> Out = S.send(Body);
    REQUIRE(Out.size() == 1);
    CHECK(errorCode(*Out[0].getAsObject()) == -32600);
  }
  CHECK(S.send(R"({"id": 3, "result": null})").empty()); // a response

  // Params of the wrong type.
  const std::string Uri = "file:///t.sketch";
  S.open(Uri, "topology t { ranks 2 link 0 -> 1 alpha 1 us beta 1 us/MB }\n");
  for (Value P : {Value(5), Value("x"), Value(Object{{"textDocument", 7}}),
                  Value(Object{{"textDocument", Object{{"uri", 7}}}}),
                  Value(Object{{"textDocument", Object{{"uri", Uri}}}}),
                  Value(Object{{"textDocument", Object{{"uri", Uri}}},
                               {"position", Object{{"line", "0"}}}})}) {
    CAPTURE(P);
    CHECK(errorCode(S.request("textDocument/hover", std::move(P))) == -32602);
  }
  CHECK(errorCode(S.request("textDocument/hover",
                            Object{{"textDocument", Object{{"uri", "x:"}}},
                                   {"position", position(0, 0)}})) == -32602);
  // Positions out of range: no symbol there.
  for (auto [Line, Char] : {std::pair<int64_t, int64_t>{-1, 0},
                            {0, -3},
                            {int64_t(1) << 40, 0},
                            {INT64_MAX, INT64_MAX},
                            {1, 0}}) {
    Object A = S.request("textDocument/hover",
                         Object{{"textDocument", Object{{"uri", Uri}}},
                                {"position", position(Line, Char)}});
    CHECK(A.get("result"));
    CHECK(*A.get("result") == Value(nullptr));
  }
  CHECK(S.request("textDocument/hover",
                  Object{{"textDocument", Object{{"uri", Uri}}},
                         {"position", position(0, 9)}})
            .getObject("result"));
  CHECK(errorCode(S.request("workspace/symbol", Object{})) == -32601);

  // Notifications with unusable params: logged, nothing sent.
  S.Sent.clear();
  S.notify("textDocument/didOpen", Object{{"textDocument", Object{}}});
  S.notify("textDocument/didOpen",
           Object{{"textDocument", Object{{"uri", Uri}}}});
  S.notify("textDocument/didChange",
           Object{{"textDocument", Object{{"uri", Uri}}},
                  {"contentChanges", llvm::json::Array{5}}});
  CHECK(S.Sent.empty());
  CHECK(S.Log.str().find("ignored textDocument/didChange") !=
        std::string::npos);

  CHECK(S.request("shutdown", nullptr).get("result"));
  CHECK(errorCode(S.request("textDocument/hover", Object{})) == -32600);
  CHECK(S.Server.handle(Object{{"jsonrpc", "2.0"}, {"method", "exit"}}) == 0);
}

TEST_CASE("exit without shutdown ends with status 1") {
  Session S;
  S.request("initialize", Object{});
  CHECK(S.Server.handle(Object{{"jsonrpc", "2.0"}, {"method", "exit"}}) == 1);
}

TEST_CASE("a document with many sketches: every answer is the right one") {
  std::string Text = "machine m {\n  gpus per node = 2\n"
                     "  class c { alpha = 1 us; beta = 2 us/MB }\n"
                     "  link c 0 <-> 1\n}\n";
  const int Count = 2000;
  for (int I = 0; I < Count; ++I)
    Text += I % 2 ? "sketch s" + std::to_string(I) + " from s" +
                        std::to_string(I - 1) + " { size 2 KB }\n"
                  : "// Sketch " + std::to_string(I) + ".\nsketch s" +
                        std::to_string(I) +
                        " on m { collective allgather\n links c }\n";
  Session S;
  S.request("initialize", Object{});
  const std::string Uri = "file:///many.sketch";
  S.open(Uri, Text);
  REQUIRE(S.Sent.size() == 1);
  CHECK(S.Sent[0]
            .getAsObject()
            ->getObject("params")
            ->getArray("diagnostics")
            ->empty());
  auto LineOf = [&](const std::string &Needle) {
    size_t At = Text.find(Needle);
    REQUIRE(At != std::string::npos);
    return int64_t(std::count(Text.begin(), Text.begin() + At, '\n'));
  };
  auto Hover = [&](int64_t Line, int64_t Char) {
    Object A = S.request("textDocument/hover",
                         Object{{"textDocument", Object{{"uri", Uri}}},
                                {"position", position(Line, Char)}});
    const Object *R = A.getObject("result");
    REQUIRE(R);
    return R->getObject("contents")->getString("value")->str();
  };
  for (int I : {0, 1, 998, 999, 1998, 1999}) {
    CAPTURE(I);
    const std::string Name = "s" + std::to_string(I);
    std::string H = Hover(LineOf("sketch " + Name + " "), 8);
    CHECK(H.find("sketch " + Name + " ") == 0);
    if (I % 2 == 0) {
      CHECK(H.find("Sketch " + std::to_string(I) + ".") != std::string::npos);
      // The class in this sketch's `links c`.
      CHECK(Hover(LineOf("sketch " + Name + " ") + 1, 7).find("class c") == 0);
    } else {
      // Go to the base sketch.
      Object D =
          S.request("textDocument/definition",
                    Object{{"textDocument", Object{{"uri", Uri}}},
                           {"position", position(LineOf("sketch " + Name + " "),
                                                 int64_t(Name.size()) + 14)}});
      const Object *Start =
          D.getObject("result")->getObject("range")->getObject("start");
      CHECK(Start->getInteger("line") ==
            LineOf("sketch s" + std::to_string(I - 1) + " "));
    }
  }
  Object Syms = S.request("textDocument/documentSymbol",
                          Object{{"textDocument", Object{{"uri", Uri}}}});
  const llvm::json::Array *All = Syms.getArray("result");
  REQUIRE(All);
  CHECK(All->size() == size_t(Count) + 1);
  CHECK((*All)[1500].getAsObject()->getString("name") ==
        llvm::StringRef("s1499"));
  CHECK((*All)[0].getAsObject()->getArray("children")->size() == 1);
}
