//===- tests/unit/lsp/CompletionTest.cpp - Completion and quick fixes -----===//
//
// The context of a position read from the text alone (comments, strings,
// blocks and their headers, loop variables); completion through the server
// at the places it knows (statement starts of each block, machines after
// `on` and `module.`, sketches after `from`, collectives, classes of the
// sketch's machine through `from`, switches, policies, protocols, units,
// a machine's parameters in its arguments and its definitions in its
// expressions, keywords after a keyword and a name, import paths from the
// search folders, details naming the file of an imported machine), names
// that survive a version that does not parse, positions out of range; and
// the quick fix of every kind of "did you mean" diagnostic, applied and
// analysed again.
//
//===----------------------------------------------------------------------===//
#include "Session.h"
#include "lsp/CompletionContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace tacclc;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

/// \p Marked without its '|', and the offset of the '|'.
std::pair<std::string, size_t> unmark(llvm::StringRef Marked) {
  size_t At = Marked.find('|');
  REQUIRE(At != std::string::npos);
  return {(Marked.take_front(At) + Marked.drop_front(At + 1)).str(), At};
}

CompletionContext contextOf(llvm::StringRef Marked) {
  auto [Text, At] = unmark(Marked);
  return completionContext(Text, At);
}

/// A session with one document, asked for completions and code actions.
struct Editor {
  Session S;
  std::string Uri, Text;
  int Version = 0;

  explicit Editor(FrontendOptions FO = FrontendOptions(),
                  std::string TheUri = "file:///t/doc.sketch")
      : S(std::move(FO)), Uri(std::move(TheUri)) {
    S.request("initialize", Object{});
  }
  /// Sets the text; its diagnostics.
  const Array &change(const std::string &New) {
    Text = New;
    S.notify(
        Version++ ? "textDocument/didChange" : "textDocument/didOpen",
        Object{{"textDocument",
                Object{{"uri", Uri}, {"version", Version}, {"text", Text}}},
               {"contentChanges", Array{Object{{"text", Text}}}}});
    REQUIRE(S.Sent.size() == 1);
    return *S.Sent[0].getAsObject()->getObject("params")->getArray(
        "diagnostics");
  }
  Object at(size_t Offset) const {
    llvm::StringRef Before = llvm::StringRef(Text).take_front(Offset);
    size_t LineStart = Before.rfind('\n') + 1; // npos + 1 == 0
    return position(int64_t(Before.count('\n')), int64_t(Offset - LineStart));
  }
  /// The items at the '|' of \p Marked (which becomes the text).
  Array items(llvm::StringRef Marked) {
    auto [New, At] = unmark(Marked);
    change(New);
    Object A = S.request(
        "textDocument/completion",
        Object{{"textDocument", Object{{"uri", Uri}}}, {"position", at(At)}});
    const Object *R = A.getObject("result");
    REQUIRE(R);
    CHECK(R->getBoolean("isIncomplete") == false);
    return *R->getArray("items");
  }
  /// The answer to a codeAction request at \p Offset.
  Object actions(size_t Offset) {
    return S.request(
        "textDocument/codeAction",
        Object{{"textDocument", Object{{"uri", Uri}}},
               {"range", Object{{"start", at(Offset)}, {"end", at(Offset)}}},
               {"context", Object{{"diagnostics", Array()}}}});
  }
  /// The labels of those items.
  std::vector<std::string> labels(llvm::StringRef Marked) {
    std::vector<std::string> Out;
    for (const Value &I : items(Marked))
      Out.push_back(I.getAsObject()->getString("label")->str());
    return Out;
  }
};

const Object &find(const Array &Items, llvm::StringRef Label) {
  for (const Value &I : Items)
    if (I.getAsObject()->getString("label") == Label)
      return *I.getAsObject();
  FAIL("no item " << Label.str());
  static const Object None;
  return None;
}

bool has(const std::vector<std::string> &Labels, llvm::StringRef L) {
  return llvm::is_contained(Labels, L);
}

const char *Machine = "// Two GPUs.\n"
                      "machine m(nodes: int = 1, spare: int = 0) {\n"
                      "  gpus per node = 2\n"
                      "  half = 1\n"
                      "  class nvl { alpha = 1 us; beta = 2 us/MB }\n"
                      "  switch sw nvl [0, 1]\n"
                      "}\n"
                      "sketch base on m {\n  collective allgather\n}\n";

} // namespace

TEST_CASE("the context of a position comes from the text before it") {
  CompletionContext C = contextOf("machine m(n: int) {\n"
                                  "  class c { alpha = 1 us }\n"
                                  "  for i in 0 .. n {\n    link |");
  CHECK(C.Where == CompletionContext::Code);
  CHECK(C.Block == SketchBlock::Machine);
  CHECK(C.Header == "m");
  CHECK(C.LoopVars == std::vector<std::string>{"i"});
  CHECK(C.backIs(0, "link"));
  CHECK(C.NewLine == false);

  C = contextOf("machine m { class c { al|");
  CHECK(C.Block == SketchBlock::Class);
  CHECK(C.WordStart == std::string("machine m { class c { ").size());

  C = contextOf("machine m {}\nsketch s on lib.m(nodes: 2) {\n  |");
  CHECK(C.Block == SketchBlock::Sketch);
  CHECK(C.Header == "s");
  CHECK(C.On == "lib.m");
  CHECK(C.NewLine);
  C = contextOf("sketch t from s { for k in 0 .. 1 { |");
  CHECK(C.From == "s");
  CHECK(C.LoopVars == std::vector<std::string>{"k"});
  CHECK(contextOf("machine m {}\n|").Block == SketchBlock::TopLevel);

  CHECK(contextOf("// a {\n|").Where == CompletionContext::Code);
  CHECK(contextOf("// a {|").Where == CompletionContext::Comment);
  CHECK(contextOf("/* a { */ |").Where == CompletionContext::Code);
  CHECK(contextOf("/* a { |").Where == CompletionContext::Comment);
  CHECK(contextOf("/* { */ machine m { |").Block == SketchBlock::Machine);
  C = contextOf("import \"topo|");
  CHECK(C.Where == CompletionContext::ImportString);
  CHECK(C.WordStart == 8);
  CHECK(contextOf("sketch \"x|").Where == CompletionContext::OtherString);
  CHECK(contextOf("sketch s on m { chunks 12|").Where ==
        CompletionContext::InNumber);
  CHECK(contextOf("import \"a{\"\n|").Block == SketchBlock::TopLevel);
  CHECK(scannedImports("import \"a\"\nmachine m { \"b\" }\nimport \"c\" x(") ==
        std::vector<std::string>{"\"a\"", "\"c\""});
}

TEST_CASE("completion offers what fits where the cursor is") {
  Editor E;
  std::string M = Machine;
  using V = std::vector<std::string>;
  REQUIRE(E.change(M).empty());
  CHECK(E.labels(M + "|") == V{"import", "machine", "sketch", "topology"});
  CHECK(E.labels(M + "sk|") == V{"import", "machine", "sketch", "topology"});
  CHECK(E.labels(M + "sketch s |") == V{"from", "on"});
  CHECK(E.labels(M + "// sketch |").empty());

  // A declared machine, with its detail and its comment.
  Array Items = E.items(M + "sketch s on |");
  const Object &Mi = find(Items, "m");
  CHECK(Mi.getInteger("kind") == int64_t(7));
  CHECK(Mi.getString("detail") ==
        llvm::StringRef("machine m(nodes: int = 1, spare: int = 0)"));
  CHECK(Mi.getObject("documentation")->getString("value") ==
        llvm::StringRef("Two GPUs."));
  CHECK(Items.size() == 1);
  // The text replaced is the word typed so far.
  Items = E.items(M + "sketch s on m|");
  const Object *Range =
      find(Items, "m").getObject("textEdit")->getObject("range");
  CHECK(*Range->get("start") == Value(E.at(E.Text.size() - 1)));
  CHECK(*Range->get("end") == Value(E.at(E.Text.size())));

  CHECK(E.labels(M + "sketch s on m(|") == V{"nodes", "spare"});
  CHECK(find(E.items(M + "sketch s on m(|"), "nodes")
            .getObject("textEdit")
            ->getString("newText") == llvm::StringRef("nodes: "));
  CHECK(E.labels(M + "sketch s on m(nodes: 1, |") == V{"nodes", "spare"});
  CHECK(E.labels(M + "sketch s from |") == V{"base"});
  V Collectives = E.labels(M + "sketch s on m {\n  collective |");
  CHECK(Collectives.size() == 8);
  CHECK(has(Collectives, "allgather"));
  CHECK(has(Collectives, "reducescatter"));
  CHECK(E.labels(M + "sketch s on m {\n  collective allgather |") == V{"root"});
  // The classes and switches of the sketch's machine, through `from`.
  CHECK(E.labels(M + "sketch s from base {\n  links |") == V{"nvl"});
  CHECK(E.labels(M + "sketch s from base {\n  contiguous nvl, |") == V{"nvl"});
  CHECK(E.labels(M + "sketch s from base {\n  policy |") == V{"sw"});
  CHECK(E.labels(M + "sketch s from base {\n  policy sw |") ==
        V{"uc-max", "uc-min", "free"});
  CHECK(E.labels(M + "sketch s on m {\n  protocol |") ==
        V{"Simple", "LL", "LL128"});
  V Sketch = E.labels(M + "sketch s on m {\n  |");
  CHECK(has(Sketch, "collective"));
  CHECK(!has(Sketch, "machine"));
  CHECK(E.labels(M + "sketch s on m {\n  time |") == V{"limit"});
}

TEST_CASE("completion inside a machine and after numbers") {
  Editor E;
  std::string M = Machine;
  using V = std::vector<std::string>;
  REQUIRE(E.change(M).empty());
  std::string Open = M.substr(0, M.find("  switch"));
  CHECK(E.labels(Open + "  |") ==
        V{"class", "for", "gpus", "link", "nic", "switch"});
  CHECK(E.labels(Open + "  link |") == V{"nvl"});
  CHECK(E.labels(Open + "  switch big |") == V{"nvl"});
  CHECK(E.labels(Open + "  switch |").empty()); // a new name
  CHECK(E.labels(Open + "  x = |") == V{"nodes", "spare", "half"});
  CHECK(E.labels(Open + "  for i in 0 .. 1 {\n    y = i + |") ==
        V{"nodes", "spare", "half", "i"});
  Array Scope = E.items(Open + "  x = |");
  const Object &Half = find(Scope, "half");
  CHECK(Half.getInteger("kind") == int64_t(21));
  CHECK(Half.getString("detail") == llvm::StringRef("half = 1 (machine m)"));

  V Times{"ns", "us", "ms", "s"};
  V Sizes{"B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"};
  CHECK(E.labels(Open + "  class c { alpha = 2 |") == Times);
  CHECK(E.labels(Open + "  class c { beta 2 us/|") == Sizes);
  CHECK(E.labels(Open + "  class c { beta 2 GB/|") == Times);
  CHECK(E.labels(M + "sketch s on m {\n  size 1 KB .. 4 |") == Sizes);
  CHECK(E.labels(M + "sketch s on m {\n  chunks 2 |").empty());
  CHECK(E.labels(M + "sketch s on m {\n  chunks 2|").empty());
  CHECK(find(E.items(Open + "  class c { alpha = 2 |"), "ms")
            .getString("detail") == llvm::StringRef("time: 1 ms = 1000 us"));
}

TEST_CASE("names survive a version that does not parse") {
  Editor E;
  std::string M = Machine;
  CHECK(E.change(M).empty());
  // `sketch s on m {` does not parse: the names are the last version's.
  CHECK(E.labels(M + "sketch s on |") == std::vector<std::string>{"m"});
  CHECK(E.labels(M + "sketch s on m {\n  links |") ==
        std::vector<std::string>{"nvl"});
  // A fresh session on a broken text knows none of its own names.
  Editor F;
  CHECK(F.labels(M + "sketch s on |").empty());
}

TEST_CASE("imports: paths from the search folders, imported machines") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("lsp-completion", Dir));
  auto Write = [&](llvm::StringRef Rel, llvm::StringRef Text) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Rel);
    REQUIRE(
        !llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P)));
    std::error_code EC;
    llvm::raw_fd_ostream(P, EC) << Text;
    REQUIRE(!EC);
  };
  Write("lib/topologies/net.sketch",
        "// A net.\nmachine net(nodes: int = 1) {\n  gpus per node = 2\n"
        "  class c { alpha = 1 us; beta = 2 us/MB }\n  link c 0 <-> 1\n}\n");
  Write("lib/.hidden/x.sketch", "");
  Write("lib/notes.txt", "");
  Write("work/local.sketch", "machine loc { gpus per node = 1 }\n");
  FrontendOptions FO;
  FO.StdlibDir = (Dir + "/lib").str();
  Editor E(FO, "file://" + (Dir + "/work/doc.sketch").str());
  using V = std::vector<std::string>;
  CHECK(E.labels("import \"|") == V{"local", "topologies/net"});
  Array Items = E.items("import |");
  CHECK(find(Items, "topologies/net")
            .getObject("textEdit")
            ->getString("newText") == llvm::StringRef("\"topologies/net\""));
  CHECK(find(Items, "topologies/net").getString("detail") ==
        llvm::StringRef("module stdlib/topologies/net.sketch"));
  // The text of the string is replaced, up to its closing quote.
  Items = E.items("import \"top|x\"\n");
  const Object *R =
      find(Items, "topologies/net").getObject("textEdit")->getObject("range");
  CHECK(*R->get("start") == Value(E.at(8)));
  CHECK(*R->get("end") == Value(E.at(12)));

  std::string Doc = "import \"topologies/net\"\nimport \"local\"\n";
  Items = E.items(Doc + "sketch s on |");
  const Object &Net = find(Items, "net");
  CHECK(Net.getString("detail") ==
        llvm::StringRef(
            "machine net(nodes: int = 1) from stdlib/topologies/net.sketch"));
  CHECK(Net.getObject("documentation")->getString("value") ==
        llvm::StringRef("A net."));
  CHECK(find(Items, "loc").getString("detail") ==
        llvm::StringRef("machine loc() from local.sketch"));
  CHECK(find(Items, "local").getInteger("kind") == int64_t(9)); // a module
  CHECK(E.labels(Doc + "sketch s on net.|") == V{"net"});
  CHECK(E.labels(Doc + "sketch s on net.net {\n  links |") == V{"c"});
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("every kind of did-you-mean has a quick fix that removes it") {
  const std::string Base = "machine m(nodes: int = 1) {\n"
                           "  gpus per node = 3\n"
                           "  half = 1\n"
                           "  class nvl { alpha = 1 us; beta = 2 us/MB }\n"
                           "  class ib { alpha = 2 us; beta = 9 us/MB }\n"
                           "  switch sw nvl [0, 1]\n"
                           "  link ib 1 <-> half + 1\n"
                           "}\n"
                           "sketch s on m {\n"
                           "  collective allgather\n"
                           "  links nvl, ib\n"
                           "  policy sw uc-max\n"
                           "}\n";
  Editor E;
  REQUIRE(E.change(Base).empty());
  struct Case {
    std::string Good, Bad, Code;
  };
  for (const Case &C :
       {Case{"on m {", "on mm {", "UnknownTopology"},
        Case{"<-> half", "<-> hlf", "UnknownName"},
        Case{"links nvl", "links nvk", "UnknownClassSuggest"},
        Case{"policy sw", "policy sx", "UnknownSwitchSuggest"}}) {
    CAPTURE(C.Code);
    std::string Bad = Base;
    size_t At = Bad.find(C.Good);
    Bad.replace(At, C.Good.size(), C.Bad);
    const Array &Diags = E.change(Bad);
    REQUIRE(Diags.size() == 1);
    CHECK(Diags[0].getAsObject()->getString("code")->str() == C.Code);
    // The code actions at the misspelled word (its second word).
    Object A = E.actions(At + C.Bad.find(' ') + 1);
    const Array *Actions = A.getArray("result");
    REQUIRE(Actions);
    REQUIRE(Actions->size() == 1);
    const Object &Fix = *(*Actions)[0].getAsObject();
    CHECK(Fix.getString("kind") == llvm::StringRef("quickfix"));
    CHECK(Fix.getString("title")->startswith("Change '"));
    CHECK(Fix.getArray("diagnostics")->size() == 1);
    const Array &Edits =
        *Fix.getObject("edit")->getObject("changes")->getArray(E.Uri);
    REQUIRE(Edits.size() == 1);
    const Object &Edit = *Edits[0].getAsObject();
    // Apply the edit: one line, from start to end character.
    const Object &R = *Edit.getObject("range");
    int64_t Line = *R.getObject("start")->getInteger("line");
    REQUIRE(R.getObject("end")->getInteger("line") == Line);
    size_t LineStart = 0;
    for (int64_t L = 0; L < Line; ++L)
      LineStart = Bad.find('\n', LineStart) + 1;
    size_t From = LineStart +
                  size_t(*R.getObject("start")->getInteger("character")),
           To =
               LineStart + size_t(*R.getObject("end")->getInteger("character"));
    std::string Fixed = Bad;
    Fixed.replace(From, To - From, Edit.getString("newText")->str());
    CHECK(Fixed == Base);
    CHECK(E.change(Fixed).empty());
  }
}

TEST_CASE("code actions only where a fix-it is, and only quick fixes") {
  Editor E;
  std::string Bad = std::string(Machine) + "sketch s on mm {}\n";
  REQUIRE(E.change(Bad).size() == 1);
  size_t At = Bad.find("mm {");
  auto Actions = [&](size_t From, size_t To, Value Only) {
    Object Params{{"textDocument", Object{{"uri", E.Uri}}},
                  {"range", Object{{"start", E.at(From)}, {"end", E.at(To)}}}};
    if (Only.kind() != Value::Null)
      Params["context"] = Object{{"only", std::move(Only)}};
    Object A = E.S.request("textDocument/codeAction", std::move(Params));
    REQUIRE(A.getArray("result"));
    return A.getArray("result")->size();
  };
  CHECK(Actions(At, At + 2, nullptr) == 1);
  CHECK(Actions(0, Bad.size(), nullptr) == 1);  // the whole document
  CHECK(Actions(At + 2, At + 2, nullptr) == 1); // the word's end
  CHECK(Actions(0, 3, nullptr) == 0);
  Object Past = E.S.request(
      "textDocument/codeAction",
      Object{{"textDocument", Object{{"uri", E.Uri}}},
             {"range", Object{{"start", position(0, 0)},
                              {"end", position(int64_t(1) << 40, 0)}}}});
  CHECK(Past.getArray("result")->size() == 1); // past the last line
  CHECK(Actions(At, At, Array{"quickfix"}) == 1);
  CHECK(Actions(At, At, Array{"refactor"}) == 0);
  Object Missing = E.S.request("textDocument/codeAction",
                               Object{{"textDocument", Object{{"uri", E.Uri}}},
                                      {"range", Object{{"start", E.at(0)}}}});
  CHECK(errorCode(Missing) == -32602);
  // A diagnostic without a suggestion has no action.
  std::string Far = std::string(Machine) + "sketch s on qqqqq {}\n";
  REQUIRE(E.change(Far).size() == 1);
  CHECK(Actions(0, Far.size(), nullptr) == 0);
}

TEST_CASE("completion at positions out of range, or without one") {
  Editor E;
  E.change(Machine);
  for (auto [Line, Char] : {std::pair<int64_t, int64_t>{-1, 0},
                            {0, -3},
                            {int64_t(1) << 40, 0},
                            {INT64_MAX, INT64_MAX}}) {
    CAPTURE(Line);
    Object A = E.S.request("textDocument/completion",
                           Object{{"textDocument", Object{{"uri", E.Uri}}},
                                  {"position", position(Line, Char)}});
    REQUIRE(A.getObject("result"));
    CHECK(A.getObject("result")->getArray("items")->empty() ==
          (Line != 0)); // column -3 is the line's start: keywords
  }
  CHECK(errorCode(E.S.request(
            "textDocument/completion",
            Object{{"textDocument", Object{{"uri", E.Uri}}}})) == -32602);
  CHECK(errorCode(E.S.request(
            "textDocument/completion",
            Object{{"textDocument", Object{{"uri", "file:///other"}}},
                   {"position", position(0, 0)}})) == -32602);
}

TEST_CASE("initialize advertises completion and quick fixes") {
  Session S;
  Object A = S.request("initialize", Object{});
  const Object *Caps = A.getObject("result")->getObject("capabilities");
  const Object *C = Caps->getObject("completionProvider");
  REQUIRE(C);
  CHECK(*C->get("triggerCharacters") == Value(Array{".", "\"", "/"}));
  CHECK(*Caps->getObject("codeActionProvider")->get("codeActionKinds") ==
        Value(Array{"quickfix"}));
}
