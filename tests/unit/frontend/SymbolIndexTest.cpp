//===- tests/unit/frontend/SymbolIndexTest.cpp - Names and references -----===//
//
// buildSymbolIndex on one module: declarations (parameters, definitions,
// classes and switches inside machines, loops included), references from
// machine statements and from sketches (through `from` to the machine, which
// each sketch records), hover details with the comment above a declaration,
// and what declAt finds at a location; a `from` chain of 3,000 sketches and a
// cycle, and declarations that share one line.
//
//===----------------------------------------------------------------------===//
#include "frontend/SymbolIndex.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

using namespace tacclc;

namespace {

const char *Source = R"(// A small machine.
machine m(nodes: int = 1) {
  gpus per node = 2
  half = gpus / 2
  class c { alpha = 1 us; beta = 2 us/MB }
  for n in 0..nodes {
    switch sw c [n:0, n:1]
  }
  link c 0 <-> 1
}
sketch base on m(nodes: 1) {
  collective allgather
}
sketch derived from base {
  links c
  policy sw uc-min
}
)";

struct Indexed {
  llvm::SourceMgr SM;
  ModuleSet Set;
  SymbolIndex Ix;
  llvm::StringRef Text;

  explicit Indexed(const std::string &Src = Source) {
    unsigned Id = SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Src, "m.sketch"), llvm::SMLoc());
    Text = SM.getMemoryBuffer(Id)->getBuffer();
    DiagnosticEngine Diags(SM);
    Set.Modules.push_back({parseSketch(SM, Id, Diags), "m", "m.sketch", {}});
    REQUIRE(Set.Modules[0].Ast);
    Ix = buildSymbolIndex(Set, SM);
  }
  /// The location of the \p Nth occurrence of \p Needle.
  llvm::SMLoc at(llvm::StringRef Needle, unsigned Nth = 0) {
    size_t Pos = Text.find(Needle);
    for (unsigned K = 0; K < Nth; ++K)
      Pos = Text.find(Needle, Pos + 1);
    REQUIRE(Pos != std::string::npos);
    return llvm::SMLoc::getFromPointer(Text.data() + Pos);
  }
  const SymbolDecl &declAt(llvm::StringRef Needle, unsigned Nth = 0) {
    int D = Ix.declAt(at(Needle, Nth));
    REQUIRE(D >= 0);
    return Ix.Decls[unsigned(D)];
  }
  /// What declAt finds \p Offset bytes into the text.
  int declAtOffset(size_t Offset) const {
    return Ix.declAt(llvm::SMLoc::getFromPointer(Text.data() + Offset));
  }
};

} // namespace

TEST_CASE("declarations, members and their details") {
  Indexed I;
  CHECK(I.Ix.Decls.size() == 7); // m, nodes, half, c, sw, base, derived
  const SymbolDecl &M = I.declAt("m(");
  CHECK(M.Kind == SymbolDecl::Machine);
  CHECK(M.Detail.find("machine m(nodes: int = 1)") == 0);
  CHECK(M.Detail.find("A small machine.") != std::string::npos);
  const SymbolDecl &Nodes = I.declAt("nodes:");
  CHECK(Nodes.Kind == SymbolDecl::Param);
  CHECK(Nodes.Detail == "parameter nodes: int = 1 (machine m)");
  CHECK(I.Ix.Decls[unsigned(Nodes.Parent)].Name == "m");
  const SymbolDecl &Half = I.declAt("half");
  CHECK(Half.Kind == SymbolDecl::Let);
  CHECK(Half.Detail == "half = (gpus / 2) (machine m)");
  CHECK(I.Ix.Decls[unsigned(Half.Parent)].Name == "m");
  // Each sketch knows its machine, through `from` too.
  CHECK(I.declAt("base on").On == I.Ix.declAt(I.at("m(")));
  CHECK(I.declAt("derived").On == I.Ix.declAt(I.at("m(")));
  CHECK(M.On == -1);
  const SymbolDecl &C = I.declAt("c {");
  CHECK(C.Kind == SymbolDecl::Class);
  CHECK(C.Detail.find("alpha 1 us, beta 2 us/MB") != std::string::npos);
  CHECK(I.Ix.Decls[unsigned(C.Parent)].Name == "m");
  CHECK(I.declAt("sw c").Kind == SymbolDecl::Switch); // inside the loop
}

TEST_CASE("references resolve to their declarations") {
  Indexed I;
  CHECK(&I.declAt("c [") == &I.declAt("c {"));           // switch's class
  CHECK(&I.declAt("c 0 <->") == &I.declAt("c {"));       // link's class
  CHECK(&I.declAt("m(nodes: 1)") == &I.declAt("m("));    // sketch's machine
  CHECK(&I.declAt("base {", 0) == &I.declAt("base on")); // from base
  // Through `from`, the derived sketch's names are the machine's.
  CHECK(I.declAt("c\n  policy").Kind == SymbolDecl::Class);
  CHECK(I.declAt("sw uc-min").Kind == SymbolDecl::Switch);
  CHECK(I.Ix.declAt(I.at("collective")) == -1);
}

namespace {

const char *Machine = "machine m { gpus per node = 2\n"
                      "  class c { alpha = 1 us; beta = 2 us/MB }\n"
                      "  link c 0 <-> 1 }\n";

} // namespace

TEST_CASE("a long `from` chain resolves every sketch's names") {
  std::string Chain = Machine;
  Chain += "sketch s0 on m { links c }\n";
  const int Count = 3000;
  for (int I = 1; I < Count; ++I)
    Chain += "sketch s" + std::to_string(I) + " from s" +
             std::to_string(I - 1) + " { links c }\n";
  // A cycle has no machine: its `c` stays unresolved.
  Chain += "sketch x from y { links c }\nsketch y from x { links c }\n";
  Indexed I(Chain);
  const int C = I.declAtOffset(I.Text.find("c {"));
  REQUIRE(C >= 0);
  CHECK(I.Ix.Decls[unsigned(C)].Kind == SymbolDecl::Class);
  for (size_t At = I.Text.find("links c"), N = 0; N < size_t(Count);
       At = I.Text.find("links c", At + 1), ++N)
    CHECK(I.declAtOffset(At + 6) == C);
  CHECK(I.declAtOffset(I.Text.rfind("links c") + 6) == -1);
  CHECK(I.declAtOffset(I.Text.find("from s2998") + 6) ==
        I.declAtOffset(I.Text.find("s2998 from") + 1));
  CHECK(I.Ix.Children[unsigned(I.declAtOffset(I.Text.find("m {")))].size() ==
        1);
}

TEST_CASE("declarations sharing one line share its comment") {
  Indexed I(std::string(Machine) +
            "// Two sketches.\n// On one line.\n"
            "sketch a on m { links c } sketch b on m { links c }\n");
  for (const char *Name : {"a on", "b on"}) {
    int D = I.declAtOffset(I.Text.find(Name));
    REQUIRE(D >= 0);
    CHECK(I.Ix.Decls[unsigned(D)].Detail.find("Two sketches.\nOn one line.") !=
          std::string::npos);
    CHECK(I.Ix.sketchAt(llvm::SMLoc::getFromPointer(
              I.Text.data() + I.Text.find(Name) + 6)) == D);
  }
}
