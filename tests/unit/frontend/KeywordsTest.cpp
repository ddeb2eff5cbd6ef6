//===- tests/unit/frontend/KeywordsTest.cpp - Keywords from the grammar ---===//
//
// The keyword tables read from the generated parser: every keyword rule of
// grammar/Sketch.g4 is a keyword and nothing else is; the keywords that
// start the items of each block; those after a keyword, and after a keyword
// and a name.
//
//===----------------------------------------------------------------------===//
#include "frontend/Keywords.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <regex>

using namespace tacclc;

namespace {

std::vector<std::string> list(llvm::ArrayRef<std::string> Words) {
  return std::vector<std::string>(Words.begin(), Words.end());
}

} // namespace

TEST_CASE("the keywords are the grammar's word tokens") {
  auto G = llvm::MemoryBuffer::getFile(TACCLC_GRAMMAR_FILE);
  REQUIRE(G);
  // Lexer rules such as `TOPOLOGY : 'topology' ;`.
  std::regex Rule(R"(\n[A-Z_]+\s*:\s*'([a-z]+)'\s*;)");
  std::string Text = (*G)->getBuffer().str();
  std::vector<std::string> Want;
  for (std::sregex_iterator It(Text.begin(), Text.end(), Rule), End; It != End;
       ++It)
    Want.push_back((*It)[1]);
  llvm::sort(Want);
  CHECK(Want.size() > 40);
  CHECK(list(sketchKeywords()) == Want);
  CHECK(isSketchKeyword("contiguous"));
  CHECK(!isSketchKeyword("allgather")); // a name Sema checks
  CHECK(!isSketchKeyword("Sketch"));
}

TEST_CASE("the keywords that start an item of each block") {
  using V = std::vector<std::string>;
  CHECK(list(itemKeywords(SketchBlock::TopLevel)) ==
        V{"import", "machine", "sketch", "topology"});
  CHECK(list(itemKeywords(SketchBlock::Topology)) == V{"link", "ranks"});
  CHECK(list(itemKeywords(SketchBlock::Machine)) ==
        V{"class", "for", "gpus", "link", "nic", "switch"});
  CHECK(list(itemKeywords(SketchBlock::Class)) == V{"alpha", "at", "beta"});
  V Sketch = list(itemKeywords(SketchBlock::Sketch));
  for (const char *K : {"collective", "chunks", "size", "links", "relay",
                        "sender", "policy", "symmetry", "time", "for"})
    CHECK(llvm::is_contained(Sketch, K));
  CHECK(!llvm::is_contained(Sketch, "root"));
}

TEST_CASE("what follows a keyword") {
  using V = std::vector<std::string>;
  CHECK(keywordFollowers("time").Keywords == V{"limit"});
  CHECK(keywordFollowers("relay").Keywords ==
        V{"all", "direct", "each", "gpus"}); // gpus: an expression
  CHECK(keywordFollowers("relay").Name);
  CHECK(keywordFollowers("on").Name);
  CHECK(keywordFollowers("on").Keywords.empty());
  CHECK(keywordFollowers("chunks").Number);
  CHECK(keywordFollowers("chunks").Name); // `chunks auto`
  CHECK(keywordFollowers("sketch").AfterName == V{"from", "on"});
  CHECK(keywordFollowers("collective").AfterName == V{"root"});
  CHECK(keywordFollowers("for").AfterName == V{"in"});
  CHECK(keywordFollowers("allgather").Keywords.empty()); // not a keyword
}
