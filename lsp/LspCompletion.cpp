//===- lsp/LspCompletion.cpp - What may be written at a position ----------===//
//
// completeAt() (LspCompletion.h) reads the context of the position
// (CompletionContext.h) and offers, the first that applies:
//   - nothing in a comment, a number, a string other than an import's, or
//     where a new name is declared (`machine NAME`);
//   - the files an import may name, in its string or after `import`;
//   - units after a number, by what it measures (`alpha 2` a time, `size 1`
//     a size, `beta 46` either, then the other one after the '/');
//   - after `module.`: that module's machines, sketches or declarations;
//   - the names a keyword refers to: machines after `on`, sketches after
//     `from`, collectives, protocols, link classes after `link`, `nic`,
//     `switch NAME`, `links` and `contiguous` (of the block's machine),
//     switches after `policy`, then the policies; a machine's parameters in
//     its arguments;
//   - the keywords that start an item of the block (at a statement's
//     start), or that the grammar allows after the keyword (and a name)
//     before the position, with the names in scope where a name may follow;
//   - in an expression: the names in scope; elsewhere at the top level,
//     every keyword and declaration in view.
//
//===----------------------------------------------------------------------===//
#include "lsp/LspCompletion.h"
#include "lsp/CompletionContext.h"

#include "frontend/Units.h"
#include "ir/Collective.h"
#include "ir/Topology.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <fmt/format.h>

#include <set>

using namespace tacclc;

namespace {

// LSP CompletionItemKind.
enum ItemKind {
  FunctionItem = 3,
  FieldItem = 5,
  VariableItem = 6,
  ClassItem = 7,
  InterfaceItem = 8,
  ModuleItem = 9,
  UnitItem = 11,
  KeywordItem = 14,
  FileItem = 17,
  EnumMemberItem = 20,
  ConstantItem = 21
};

int itemKind(SymbolDecl::KindT K) {
  switch (K) {
  case SymbolDecl::Machine:
  case SymbolDecl::Topology:
    return ClassItem;
  case SymbolDecl::Sketch:
    return FunctionItem;
  case SymbolDecl::Class:
    return FieldItem;
  case SymbolDecl::Switch:
    return InterfaceItem;
  case SymbolDecl::Param:
    return VariableItem;
  case SymbolDecl::Let:
    return ConstantItem;
  }
  return VariableItem;
}

/// How deep, and over how many entries, import folders are listed.
constexpr unsigned MaxImportDepth = 4, MaxImportEntries = 4000;

/// A declaration found in one of the two tables.
struct Found {
  const CompletionNames *Table = nullptr;
  int Index = -1;
  explicit operator bool() const { return Table != nullptr; }
};

class Completer {
public:
  Completer(const CompletionContext &C, const CompletionSources &S,
            std::vector<CompletionItem> &Items)
      : C(C), S(S), Items(Items) {}

  /// Adds the items of C, in code.
  void code();
  /// Adds the files an import may name, quoted when \p Quoted.
  void importPaths(bool Quoted);

private:
  const CompletionContext &C;
  const CompletionSources &S;
  std::vector<CompletionItem> &Items;

  void add(std::string Label, int Kind, std::string Detail,
           std::string Doc = "") {
    std::string NewText = Label;
    Items.push_back({std::move(Label), std::move(Detail), std::move(Doc),
                     std::move(NewText), Kind});
  }
  void add(const CompletionName &N) {
    add(N.Name, itemKind(N.Kind), N.Detail, N.Doc);
  }
  void keywords(llvm::ArrayRef<std::string> Words) {
    for (const std::string &W : Words)
      add(W, KeywordItem, "keyword");
  }
  /// Every declaration in view whose kind \p Want accepts (unqualified),
  /// except \p Skip.
  template <typename Pred> void inView(Pred Want, llvm::StringRef Skip = "") {
    for (const CompletionNames *T : {S.Names.Own.get(), S.Names.Imported.get()})
      for (size_t I = 0; T && I < T->Names.size(); ++I) {
        const CompletionName &N = T->Names[I];
        if (N.Parent < 0 && N.Visible && Want(N.Kind) && N.Name != Skip)
          add(N);
      }
  }
  void modules() {
    if (S.Names.Imported)
      for (const std::string &M : S.Names.Imported->Imports)
        add(M, ModuleItem, "module (write " + M + ".NAME)");
  }
  // Each adds the items of one kind of place; those returning bool do
  // nothing and return false when the position is not such a place.
  void everything();
  bool units();
  bool named(llvm::StringRef Keyword);
  bool arguments();
  bool statementStart() const;
  void qualified(llvm::StringRef Module);
  void scope();
  /// The members of kind \p Kind of the declaration \p Of.
  void members(Found Of, SymbolDecl::KindT Kind);
  /// The declaration of kind \p Kind that \p Qualified (`name` or
  /// `module.name`) names, as Sema would find it.
  Found find(llvm::StringRef Qualified, SymbolDecl::KindT Kind) const;
  /// The machine the current block is about: the machine itself, or the
  /// sketch's machine (following `from`).
  Found blockMachine() const;
};

bool isMachine(SymbolDecl::KindT K) {
  return K == SymbolDecl::Machine || K == SymbolDecl::Topology;
}

Found Completer::find(llvm::StringRef Qualified, SymbolDecl::KindT Kind) const {
  auto [Module, Name] = Qualified.rsplit('.');
  if (Name.empty())
    std::swap(Module, Name);
  auto In = [&](const CompletionNames *T, bool Qualify) -> Found {
    if (T)
      for (size_t I = 0; I < T->Names.size(); ++I) {
        const CompletionName &N = T->Names[I];
        if (N.Parent < 0 && N.Name == Name && N.Kind == Kind &&
            (Qualify ? N.Module == Module : N.Visible))
          return {T, int(I)};
      }
    return {};
  };
  if (!Module.empty())
    return In(S.Names.Imported.get(), true);
  if (Found F = In(S.Names.Own.get(), false))
    return F;
  return In(S.Names.Imported.get(), false);
}

Found Completer::blockMachine() const {
  if (C.Block == SketchBlock::Machine || C.Block == SketchBlock::Class)
    return find(C.Header, SymbolDecl::Machine);
  if (C.Block != SketchBlock::Sketch)
    return {};
  if (!C.On.empty())
    return find(C.On, SymbolDecl::Machine);
  // The sketch as analysed last, else its base.
  Found Sk = find(C.Header, SymbolDecl::Sketch);
  if (!Sk || Sk.Table->Names[size_t(Sk.Index)].OnName.empty())
    Sk = find(C.From, SymbolDecl::Sketch);
  if (!Sk)
    return {};
  const CompletionName &N = Sk.Table->Names[size_t(Sk.Index)];
  if (N.OnName.empty())
    return {};
  return find(N.OnModule.empty() ? N.OnName : N.OnModule + "." + N.OnName,
              SymbolDecl::Machine);
}

void Completer::members(Found Of, SymbolDecl::KindT Kind) {
  if (!Of)
    return;
  for (const CompletionName &N : Of.Table->Names)
    if (N.Parent == Of.Index && N.Kind == Kind)
      add(N);
}

void Completer::everything() {
  keywords(sketchKeywords());
  inView([](SymbolDecl::KindT) { return true; });
  modules();
}

void Completer::scope() {
  Found M = C.Block == SketchBlock::Machine || C.Block == SketchBlock::Class
                ? blockMachine()
                : Found();
  members(M, SymbolDecl::Param);
  members(M, SymbolDecl::Let);
  for (const std::string &V : C.LoopVars)
    if (!V.empty())
      add(V, VariableItem, "loop variable");
}

bool Completer::units() {
  const ContextToken *P1 = C.back(0), *P2 = C.back(1), *P3 = C.back(2);
  if (C.NewLine || !P1)
    return false;
  auto Times = [&] {
    for (llvm::StringRef U : timeUnitNames())
      add(U.str(), UnitItem,
          fmt::format("time: 1 {} = {:g} us", U.str(), *timeUnitInUs(U)));
  };
  auto Sizes = [&] {
    for (llvm::StringRef U : sizeUnitNames()) {
      uint64_t Bytes = uint64_t(*sizeUnitInBytes(U));
      add(U.str(), UnitItem,
          fmt::format("size: 1 {} = {} byte{}", U.str(), Bytes,
                      Bytes == 1 ? "" : "s"));
    }
  };
  if (P1->Text == "/" && P2 && P2->Kind == ContextToken::Word && P3 &&
      P3->Kind == ContextToken::Number) {
    if (timeUnitInUs(P2->Text))
      Sizes(); // us/MB: time per size
    else if (sizeUnitInBytes(P2->Text))
      Times(); // GB/s: size per time
    return true;
  }
  if (P1->Kind != ContextToken::Number)
    return false;
  // What the number measures: the keyword before it (`size 1 KB .. 4`).
  for (size_t N = 1; N < 8; ++N) {
    const ContextToken *T = C.back(N);
    if (!T || T->Kind != ContextToken::Word || !isSketchKeyword(T->Text))
      continue;
    if (T->Text == "alpha" || T->Text == "limit")
      Times();
    else if (T->Text == "size" || T->Text == "at")
      Sizes();
    else if (T->Text == "beta") {
      Times();
      Sizes();
    }
    return true;
  }
  return true; // a number in an expression takes no unit
}

void Completer::qualified(llvm::StringRef Module) {
  const CompletionNames *T = S.Names.Imported.get();
  if (!T || !llvm::is_contained(T->Imports, Module))
    return;
  const bool Machines = C.backIs(2, "on"), Sketches = C.backIs(2, "from");
  for (const CompletionName &N : T->Names)
    if (N.Parent < 0 && N.Module == Module &&
        (Machines   ? isMachine(N.Kind)
         : Sketches ? N.Kind == SymbolDecl::Sketch
                    : true))
      add(N);
}

bool Completer::named(llvm::StringRef K) {
  const bool InMachine = C.Block == SketchBlock::Machine,
             InSketch = C.Block == SketchBlock::Sketch;
  if (K == "on") {
    inView(isMachine);
    modules();
  } else if (K == "from" && C.Block == SketchBlock::TopLevel) {
    // Not the sketch being declared (`sketch s from `).
    llvm::StringRef Self = C.backIs(2, "sketch") ? C.back(1)->Text : "";
    inView([](SymbolDecl::KindT Kind) { return Kind == SymbolDecl::Sketch; },
           Self);
    modules();
  } else if (K == "collective") {
    for (ir::CollectiveKind Kind : ir::allCollectives())
      add(ir::collectiveName(Kind).str(), EnumMemberItem,
          ir::isRooted(Kind) ? "collective (needs a root)" : "collective");
  } else if (K == "protocol") {
#define TACCLRT_PROTOCOL(E, Name, Slice) add(Name, EnumMemberItem, "protocol");
#include "format/Vocabulary.def"
  } else if ((InMachine &&
              (K == "link" || K == "nic" || C.backIs(1, "switch"))) ||
             (InSketch && (K == "links" || K == "contiguous"))) {
    members(blockMachine(), SymbolDecl::Class);
  } else if (InSketch && K == "policy") {
    members(blockMachine(), SymbolDecl::Switch);
  } else if (InSketch && C.backIs(1, "policy")) {
    for (ir::SwitchPolicy P : {ir::SwitchPolicy::UcMax, ir::SwitchPolicy::UcMin,
                               ir::SwitchPolicy::Free})
      add(ir::switchPolicyName(P).str(), EnumMemberItem, "switch policy");
  } else if (K == "machine" || K == "topology" || K == "sketch" ||
             K == "class" || K == "for" || (InMachine && K == "switch")) {
    // A new name: nothing to offer.
  } else {
    return false;
  }
  return true;
}

bool Completer::arguments() {
  // `on NAME(` or `on module.NAME(`, then arguments up to the position.
  for (size_t N = 0; const ContextToken *T = C.back(N); ++N) {
    if (T->Text == ")")
      return false;
    if (T->Text != "(")
      continue;
    const ContextToken *Name = C.back(N + 1);
    if (!Name || Name->Kind != ContextToken::Word)
      return false;
    std::string Q = Name->Text.str();
    size_t Up = N + 2;
    if (C.backIs(Up, ".") && C.back(Up + 1)) {
      Q = C.back(Up + 1)->Text.str() + "." + Q;
      Up += 2;
    }
    if (!C.backIs(Up, "on"))
      return false;
    if (!C.backIs(0, "(") && !C.backIs(0, ","))
      return true; // a value: nothing to offer
    Found M = find(Q, SymbolDecl::Machine);
    if (M)
      for (const CompletionName &P : M.Table->Names)
        if (P.Parent == M.Index && P.Kind == SymbolDecl::Param)
          Items.push_back(
              {P.Name, P.Detail, P.Doc, P.Name + ": ", VariableItem});
    return true;
  }
  return false;
}

bool Completer::statementStart() const {
  const ContextToken *P1 = C.back(0);
  if (!P1 || P1->Text == "{" || P1->Text == "}" || P1->Text == ";")
    return true;
  if (!C.NewLine)
    return false;
  if (P1->Kind == ContextToken::Word && isSketchKeyword(P1->Text)) {
    const KeywordFollowers &F = keywordFollowers(P1->Text);
    return F.Keywords.empty() && !F.Name && !F.Number;
  }
  return P1->Kind != ContextToken::Punct || P1->Text == ")" || P1->Text == "]";
}

void Completer::code() {
  const ContextToken *P1 = C.back(0), *P2 = C.back(1);
  if (units())
    return;
  if (P1 && P1->Text == "." && P2 && P2->Kind == ContextToken::Word)
    return qualified(P2->Text);
  if (C.backIs(0, "import"))
    return importPaths(true);
  if (P1 && P1->Kind == ContextToken::Word && named(P1->Text))
    return;
  if (C.Block == SketchBlock::TopLevel && arguments())
    return;
  if (C.backIs(0, ",") && C.Block == SketchBlock::Sketch) {
    // `links a, b, ` and `contiguous a, `: more classes.
    size_t N = 0;
    while (C.backIs(N, ",") && C.back(N + 1) &&
           C.back(N + 1)->Kind == ContextToken::Word)
      N += 2;
    if (C.backIs(N, "links") || C.backIs(N, "contiguous"))
      return members(blockMachine(), SymbolDecl::Class);
  }
  if (statementStart())
    return keywords(itemKeywords(C.Block));
  if (P1 && P1->Kind == ContextToken::Word && isSketchKeyword(P1->Text)) {
    const KeywordFollowers &F = keywordFollowers(P1->Text);
    keywords(F.Keywords);
    if (F.Name)
      scope();
    return;
  }
  if (P1 && P1->Kind == ContextToken::Word && P2 &&
      P2->Kind == ContextToken::Word && isSketchKeyword(P2->Text) &&
      !keywordFollowers(P2->Text).AfterName.empty())
    return keywords(keywordFollowers(P2->Text).AfterName); // `sketch s `
  if (C.Block != SketchBlock::TopLevel)
    return scope();
  everything();
}

void Completer::importPaths(bool Quoted) {
  namespace fs = llvm::sys::fs;
  std::set<std::string> Seen;
  std::vector<CompletionItem> Found;
  for (const std::string &Dir : S.ImportDirs) {
    std::error_code EC;
    unsigned Entries = 0;
    for (fs::recursive_directory_iterator It(Dir, EC), End;
         It != End && !EC && ++Entries <= MaxImportEntries; It.increment(EC)) {
      llvm::StringRef Path = It->path();
      llvm::StringRef Name = llvm::sys::path::filename(Path);
      if (Name.startswith(".") || It.level() + 1 >= int(MaxImportDepth)) {
        It.no_push();
        if (Name.startswith("."))
          continue;
      }
      if (llvm::sys::path::extension(Name) != ".sketch" ||
          !fs::is_regular_file(Path) || fs::equivalent(Path, S.Self))
        continue;
      llvm::SmallString<128> Rel(Path);
      llvm::sys::path::replace_path_prefix(Rel, Dir, "");
      llvm::sys::path::replace_extension(Rel, "");
      llvm::sys::path::native(Rel, llvm::sys::path::Style::posix);
      std::string Label = llvm::StringRef(Rel).ltrim("/").str();
      if (!Seen.insert(Label).second)
        continue; // the loader finds the first one
      Found.push_back({Label, "module " + S.Shown(Path), "",
                       Quoted ? "\"" + Label + "\"" : Label, FileItem});
    }
  }
  llvm::sort(Found, [](const CompletionItem &A, const CompletionItem &B) {
    return A.Label < B.Label;
  });
  Items.insert(Items.end(), Found.begin(), Found.end());
}

} // namespace

CompletionNames
tacclc::collectNames(const ModuleSet &Set, const SymbolIndex &Index,
                     bool Imported,
                     llvm::function_ref<std::string(llvm::StringRef)> Shown) {
  CompletionNames Out;
  const std::vector<unsigned> &Direct = Set.Modules[0].Imports;
  if (Imported)
    for (unsigned M : Direct)
      if (!llvm::is_contained(Out.Imports, Set.Modules[M].Name))
        Out.Imports.push_back(Set.Modules[M].Name);
  std::vector<int> At(Index.Decls.size(), -1);
  for (size_t I = 0; I < Index.Decls.size(); ++I) {
    const SymbolDecl &D = Index.Decls[I];
    if ((D.Module != 0) != Imported)
      continue;
    CompletionName N;
    N.Name = D.Name;
    N.Kind = D.Kind;
    N.Module = Set.Modules[D.Module].Name;
    N.Visible = D.Module == 0 || llvm::is_contained(Direct, D.Module);
    N.Parent = D.Parent >= 0 ? At[size_t(D.Parent)] : -1;
    // The detail's first line says what it is; the comment above the
    // declaration follows an empty line.
    llvm::StringRef Detail(D.Detail);
    N.Detail = Detail.take_until([](char C) { return C == '\n'; }).str();
    if (D.Module != 0)
      N.Detail += " from " + Shown(Set.Modules[D.Module].Path);
    size_t Doc = Detail.find("\n\n");
    if (Doc != llvm::StringRef::npos)
      N.Doc = Detail.substr(Doc + 2).trim().str();
    if (D.On >= 0) {
      const SymbolDecl &M = Index.Decls[size_t(D.On)];
      N.OnName = M.Name;
      if (M.Module != 0)
        N.OnModule = Set.Modules[M.Module].Name;
    }
    At[I] = int(Out.Names.size());
    Out.Names.push_back(std::move(N));
  }
  return Out;
}

Completions tacclc::completeAt(llvm::StringRef Text, size_t Offset,
                               const CompletionSources &Sources) {
  Offset = std::min(Offset, Text.size());
  CompletionContext C = completionContext(Text, Offset);
  Completions Out;
  Out.From = std::min(C.WordStart, Offset);
  Out.To = Offset;
  Completer Add(C, Sources, Out.Items);
  switch (C.Where) {
  case CompletionContext::Code:
    Add.code();
    break;
  case CompletionContext::ImportString:
    // The whole text of the string is replaced.
    Out.To = std::min(Text.find_first_of("\"\r\n", Offset), Text.size());
    Add.importPaths(false);
    break;
  case CompletionContext::Comment:
  case CompletionContext::OtherString:
  case CompletionContext::InNumber:
    break;
  }
  return Out;
}
