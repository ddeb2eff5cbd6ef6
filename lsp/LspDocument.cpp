//===- lsp/LspDocument.cpp - One open document, analysed ------------------===//
//
// LspDocument (LspDocument.h). The analysis runs the front end as `tacclc`
// does: loadModules (syntax, imports), describeMachines (every machine of
// the file that needs no arguments), analyzeSketch for every sketch; the
// diagnostics are collected instead of printed, duplicates (one machine
// checked for several sketches) dropped. When loading fails, the file alone
// is indexed so that its symbols still show. The names completion offers
// are copied out of the index (lsp/LspCompletion.h), so that a version that
// does not parse can keep those of the last version that did.
//
//===----------------------------------------------------------------------===//
#include "lsp/LspDocument.h"

#include "frontend/FormatChecked.h"
#include "lsp/CompletionContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <fmt/format.h>

#include <set>
#include <tuple>

using namespace tacclc;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

/// \p S as a JSON string: text read from files may not be valid UTF-8.
Value text(std::string S) {
  if (!llvm::json::isUTF8(S))
    S = llvm::json::fixUTF8(S);
  return Value(std::move(S));
}

} // namespace

std::string tacclc::pathToUri(llvm::StringRef Relative) {
  llvm::SmallString<256> Path(Relative);
  llvm::sys::fs::make_absolute(Path); // file://inc/x would name a host
  std::string Out = "file://";
  for (unsigned char C : Path) {
    if (std::isalnum(C) || llvm::StringRef("/-._~").contains(char(C)))
      Out += char(C);
    else
      Out += fmt::format("%{:02X}", unsigned(C));
  }
  return Out;
}

std::string tacclc::uriToPath(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return "";
  std::string Out;
  for (size_t I = 0; I < Uri.size(); ++I) {
    unsigned V = 0;
    if (Uri[I] == '%' && I + 2 < Uri.size() + 0 &&
        !Uri.substr(I + 1, 2).getAsInteger(16, V)) {
      Out += char(V);
      I += 2;
    } else {
      Out += Uri[I];
    }
  }
  return Out;
}

LspDocument::LspDocument(std::string TheUri, std::string TheText,
                         const FrontendOptions &TheFO,
                         const DocumentNames &Previous)
    : Uri(std::move(TheUri)), Text(std::move(TheText)), Path(uriToPath(Uri)),
      FO(TheFO), SM(std::make_unique<llvm::SourceMgr>()) {
  auto Shown = [this](llvm::StringRef P) { return shown(P); };
  Main = SM->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, Path.empty() ? Uri : Path),
      llvm::SMLoc());
  DiagnosticEngine D(*SM);
  Modules = loadModules(*SM, Main, FO, D);
  // Sema stops at the first error it meets, so each machine description and
  // each sketch is analysed with an engine of its own.
  std::vector<std::unique_ptr<DiagnosticEngine>> Engines;
  auto Fresh = [&]() -> DiagnosticEngine & {
    Engines.push_back(std::make_unique<DiagnosticEngine>(*SM));
    return *Engines.back();
  };
  if (Modules) {
    for (const std::string &Line : describeMachines(*Modules, Fresh())) {
      llvm::StringRef Rest(Line);
      if (Rest.consume_front("machine ") || Rest.consume_front("topology "))
        MachineLine.try_emplace(
            Rest.take_until([](char C) { return C == '(' || C == ':'; }).str(),
            Line);
    }
    // The declarations are collected once for all the sketches.
    SketchAnalyzer Analyzer(*Modules, Fresh());
    for (const SketchSummary &S : listSketches(*Modules))
      if (std::optional<ir::Sketch> Ir = Analyzer.analyze(*S.Decl, Fresh())) {
        const ir::Topology &T = Ir->Topo;
        SketchMachine[S.Name] =
            fmt::format("{}: {} ranks ({} node(s) x {} GPUs), {} links", S.On,
                        T.getNumRanks(), T.getNumNodes(), T.getGpusPerNode(),
                        T.links().size());
      }
    Index = buildSymbolIndex(*Modules, *SM);
    Names.Own = std::make_shared<const CompletionNames>(
        collectNames(*Modules, Index, false, Shown));
    Names.Imported = std::make_shared<const CompletionNames>(
        collectNames(*Modules, Index, true, Shown));
  } else {
    // The file alone, for its symbols; completion keeps the names of the
    // imports (and of the file, when it does not parse) of the last version
    // that had them.
    DiagnosticEngine Quiet(*SM);
    if (std::unique_ptr<ast::Module> Ast = parseSketch(*SM, Main, Quiet)) {
      ModuleSet Alone;
      Alone.Modules.push_back({std::move(Ast), "main", Path, {}});
      Index = buildSymbolIndex(Alone, *SM);
      Names.Own = std::make_shared<const CompletionNames>(
          collectNames(Alone, Index, false, Shown));
    } else {
      Names.Own = Previous.Own;
      Names.Imported = namesOfImports();
    }
    if (!Names.Imported)
      Names.Imported = Previous.Imported;
  }
  for (unsigned Buf = 1; Buf <= SM->getNumBuffers(); ++Buf)
    Lines.emplace_back(SM->getMemoryBuffer(Buf)->getBuffer());
  // Each diagnostic once (a machine checked for several sketches repeats
  // its problems).
  std::set<std::tuple<unsigned, const char *, std::string>> Seen;
  std::vector<const DiagnosticEngine *> All{&D};
  for (const auto &E : Engines)
    All.push_back(E.get());
  for (const DiagnosticEngine *E : All)
    for (const Diagnostic &X : E->pending())
      if (Seen.emplace(unsigned(X.Id), X.Range.Start.getPointer(), X.Message)
              .second)
        Diags.push_back(X);
}

llvm::SMLoc LspDocument::locAt(int64_t Line, int64_t Char) const {
  const char *At =
      Line >= 0 ? Lines[Main - 1].atUtf16(size_t(Line), Char) : nullptr;
  return At ? llvm::SMLoc::getFromPointer(At) : llvm::SMLoc();
}

void LspDocument::position(llvm::json::OStream &J, llvm::SMLoc L) const {
  int64_t Line = 0, Char = 0;
  if (unsigned Buf = L.isValid() ? SM->FindBufferContainingLoc(L) : 0) {
    const LineTable &Table = Lines[Buf - 1];
    Line = int64_t(Table.lineOf(L.getPointer()));
    Char = Table.utf16Column(L.getPointer());
  }
  J.object([&] {
    J.attribute("line", Line);
    J.attribute("character", Char);
  });
}

void LspDocument::range(llvm::json::OStream &J, llvm::SMRange R) const {
  J.object([&] {
    J.attributeBegin("start");
    position(J, R.isValid() ? R.Start : llvm::SMLoc());
    J.attributeEnd();
    J.attributeBegin("end");
    position(J, R.isValid() ? R.End : llvm::SMLoc());
    J.attributeEnd();
  });
}

void LspDocument::location(llvm::json::OStream &J, llvm::SMRange R) const {
  J.object([&] {
    J.attribute("uri", text(uriOf(R.Start)));
    J.attributeBegin("range");
    range(J, R);
    J.attributeEnd();
  });
}

std::string LspDocument::uriOf(llvm::SMLoc L) const {
  unsigned Buf = SM->FindBufferContainingLoc(L);
  if (Buf == Main || !Buf)
    return Uri;
  return pathToUri(SM->getMemoryBuffer(Buf)->getBufferIdentifier());
}

void LspDocument::diagnostic(llvm::json::OStream &J,
                             const Diagnostic &D) const {
  std::string Message = D.Message;
  llvm::SMRange R = D.Range;
  unsigned Buf = R.isValid() ? SM->FindBufferContainingLoc(R.Start) : 0;
  if (Buf && Buf != Main) {
    // Shown at the import (of this file) that led to the other file.
    auto [Line, Col] = SM->getLineAndColumn(R.Start, Buf);
    Message = fmt::format("{}:{}:{}: {}",
                          SM->getMemoryBuffer(Buf)->getBufferIdentifier().str(),
                          Line, Col, Message);
    llvm::SMLoc Inc = R.Start;
    while (Buf && Buf != Main) {
      Inc = SM->getParentIncludeLoc(Buf);
      Buf = Inc.isValid() ? SM->FindBufferContainingLoc(Inc) : 0;
    }
    R = Buf == Main ? llvm::SMRange(Inc, Inc) : llvm::SMRange();
  }
  J.object([&] {
    J.attributeBegin("range");
    range(J, R);
    J.attributeEnd();
    J.attribute("severity", D.Sev == Severity::Error     ? 1
                            : D.Sev == Severity::Warning ? 2
                                                         : 3);
    J.attribute("source", "tacclc");
    J.attribute("code", nameOf(D.Id));
    J.attribute("message", text(Message));
    if (llvm::none_of(D.Notes,
                      [](const Diagnostic &N) { return N.Range.isValid(); }))
      return;
    J.attributeArray("relatedInformation", [&] {
      for (const Diagnostic &N : D.Notes)
        if (N.Range.isValid())
          J.object([&] {
            J.attributeBegin("location");
            location(J, N.Range);
            J.attributeEnd();
            J.attribute("message", text(N.Message));
          });
    });
  });
}

void LspDocument::diagnostics(llvm::json::OStream &J) const {
  J.array([&] {
    for (const Diagnostic &D : Diags)
      diagnostic(J, D);
  });
}

void LspDocument::hover(int64_t Line, int64_t Char,
                        llvm::json::OStream &J) const {
  llvm::SMLoc L = locAt(Line, Char);
  int D = Index.declAt(L);
  if (D < 0)
    return J.value(nullptr);
  const SymbolDecl &S = Index.Decls[unsigned(D)];
  std::string Text = S.Detail;
  auto Add = [&](const std::string &Line) { Text = Line + "\n" + Text; };
  if (S.Kind == SymbolDecl::Machine || S.Kind == SymbolDecl::Topology) {
    // At a sketch's `on NAME(...)`: the machine that sketch instantiates.
    int Sk = Index.sketchAt(L);
    auto Sized = Sk >= 0 ? SketchMachine.find(Index.Decls[unsigned(Sk)].Name)
                         : SketchMachine.end();
    if (Sized != SketchMachine.end())
      Add(Sized->second);
    else if (S.Module == 0 && MachineLine.count(S.Name))
      Add(MachineLine.at(S.Name));
  } else if (S.Kind == SymbolDecl::Sketch && S.Module == 0 &&
             SketchMachine.count(S.Name)) {
    Text += "\n" + SketchMachine.at(S.Name);
  }
  J.object([&] {
    J.attributeObject("contents", [&] {
      J.attribute("kind", "plaintext");
      J.attribute("value", text(Text));
    });
  });
}

void LspDocument::definition(int64_t Line, int64_t Char,
                             llvm::json::OStream &J) const {
  llvm::SMLoc L = locAt(Line, Char);
  if (int M = Index.importAt(L); Modules && M >= 0)
    return J.object([&] {
      J.attribute("uri", text(pathToUri(Modules->Modules[unsigned(M)].Path)));
      J.attributeBegin("range");
      range(J, llvm::SMRange()); // the top of the file
      J.attributeEnd();
    });
  int D = Index.declAt(L);
  if (D < 0)
    return J.value(nullptr);
  location(J, Index.Decls[unsigned(D)].NameRange);
}

void LspDocument::symbols(llvm::json::OStream &J) const {
  // LSP SymbolKind: Class 5, Field 8, Function 12, Interface 11.
  auto Kind = [](SymbolDecl::KindT K) {
    switch (K) {
    case SymbolDecl::Machine:
    case SymbolDecl::Topology:
      return 5;
    case SymbolDecl::Sketch:
      return 12;
    case SymbolDecl::Class:
      return 8;
    case SymbolDecl::Switch:
      return 11;
    case SymbolDecl::Param:
    case SymbolDecl::Let:
      return 0; // not in the outline
    }
    return 5;
  };
  // The members of a declaration are its children.
  auto Symbol = [&](unsigned I, auto &Self) -> void {
    const SymbolDecl &S = Index.Decls[I];
    J.object([&] {
      J.attribute("name", text(S.Name));
      J.attribute("detail",
                  text(llvm::StringRef(S.Detail).split('\n').first.str()));
      J.attribute("kind", Kind(S.Kind));
      J.attributeBegin("range");
      range(J, S.Range);
      J.attributeEnd();
      J.attributeBegin("selectionRange");
      range(J, S.NameRange);
      J.attributeEnd();
      auto Shown = [&](unsigned C) { return Kind(Index.Decls[C].Kind) != 0; };
      if (llvm::any_of(Index.Children[I], Shown))
        J.attributeArray("children", [&] {
          for (unsigned C : Index.Children[I])
            if (Shown(C))
              Self(C, Self);
        });
    });
  };
  J.array([&] {
    for (unsigned I = 0; I < Index.Decls.size(); ++I)
      if (Index.Decls[I].Module == 0 && Index.Decls[I].Parent < 0)
        Symbol(I, Symbol);
  });
}

std::optional<std::string> LspDocument::formatted() const {
  llvm::SourceMgr Fresh;
  DiagnosticEngine Quiet(Fresh);
  FormatOutcome Outcome;
  return formatChecked(Text, "format", Quiet, Outcome);
}

void LspDocument::formatting(const std::string &Formatted,
                             llvm::json::OStream &J) const {
  J.array([&] {
    if (Formatted == Text)
      return;
    llvm::StringRef Buf = SM->getMemoryBuffer(Main)->getBuffer();
    J.object([&] {
      J.attributeBegin("range");
      range(J, llvm::SMRange(llvm::SMLoc::getFromPointer(Buf.begin()),
                             llvm::SMLoc::getFromPointer(Buf.end())));
      J.attributeEnd();
      J.attribute("newText", text(Formatted));
    });
  });
}

std::shared_ptr<const CompletionNames> LspDocument::namesOfImports() const {
  std::string Imports;
  for (const std::string &I : scannedImports(Text))
    Imports += "import " + I + "\n";
  if (Imports.empty())
    return nullptr;
  llvm::SourceMgr Alone;
  unsigned Buf = Alone.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Imports, Path.empty() ? Uri : Path),
      llvm::SMLoc());
  DiagnosticEngine Quiet(Alone);
  std::optional<ModuleSet> Set = loadModules(Alone, Buf, FO, Quiet);
  if (!Set)
    return nullptr;
  return std::make_shared<const CompletionNames>(
      collectNames(*Set, buildSymbolIndex(*Set, Alone), true,
                   [this](llvm::StringRef P) { return shown(P); }));
}

std::string LspDocument::shown(llvm::StringRef File) const {
  auto Under = [&](llvm::StringRef Dir, llvm::StringRef &Rest) {
    Rest = File;
    return !Dir.empty() && Rest.consume_front(Dir) && Rest.consume_front("/");
  };
  llvm::StringRef Rest;
  if (Under(FO.StdlibDir, Rest))
    return "stdlib/" + Rest.str();
  if (Under(llvm::sys::path::parent_path(Path), Rest))
    return Rest.str();
  return File.str();
}

void LspDocument::completion(int64_t Line, int64_t Char,
                             llvm::json::OStream &J) const {
  llvm::SMLoc L = locAt(Line, Char);
  llvm::StringRef Buf = SM->getMemoryBuffer(Main)->getBuffer();
  auto Shown = [this](llvm::StringRef P) { return shown(P); };
  CompletionSources Sources{
      Names, importSearchDirs(Path.empty() ? Uri : Path, FO), Path, Shown};
  Completions C;
  if (L.isValid())
    C = completeAt(Buf, size_t(L.getPointer() - Buf.begin()), Sources);
  llvm::SMRange Replaced(llvm::SMLoc::getFromPointer(Buf.begin() + C.From),
                         llvm::SMLoc::getFromPointer(Buf.begin() + C.To));
  J.object([&] {
    J.attribute("isIncomplete", false);
    J.attributeArray("items", [&] {
      for (const CompletionItem &I : C.Items)
        J.object([&] {
          J.attribute("label", text(I.Label));
          J.attribute("kind", I.Kind);
          J.attribute("detail", text(I.Detail));
          if (!I.Doc.empty())
            J.attributeObject("documentation", [&] {
              J.attribute("kind", "plaintext");
              J.attribute("value", text(I.Doc));
            });
          J.attributeObject("textEdit", [&] {
            J.attributeBegin("range");
            range(J, Replaced);
            J.attributeEnd();
            J.attribute("newText", text(I.NewText));
          });
        });
    });
  });
}

void LspDocument::codeActions(int64_t Line, int64_t Char, int64_t EndLine,
                              int64_t EndChar, llvm::json::OStream &J) const {
  // A range that runs past the last line ends at the end of the document.
  const char *From = locAt(Line, Char).getPointer();
  const char *To = locAt(EndLine, EndChar).getPointer();
  if (!To && EndLine >= 0)
    To = SM->getMemoryBuffer(Main)->getBufferEnd();
  auto InMain = [&](llvm::SMRange R) {
    return R.isValid() && SM->FindBufferContainingLoc(R.Start) == Main;
  };
  J.array([&] {
    if (!From || !To)
      return;
    for (const Diagnostic &D : Diags) {
      if (D.FixIts.empty() || !InMain(D.Range) ||
          D.Range.End.getPointer() < From || D.Range.Start.getPointer() > To)
        continue;
      for (const FixIt &F : D.FixIts) {
        if (!InMain(F.Range))
          continue;
        llvm::StringRef Old(
            F.Range.Start.getPointer(),
            size_t(F.Range.End.getPointer() - F.Range.Start.getPointer()));
        J.object([&] {
          J.attribute("title",
                      text(Old.empty() ? "Insert '" + F.Replacement + "'"
                                       : "Change '" + Old.str() + "' to '" +
                                             F.Replacement + "'"));
          J.attribute("kind", "quickfix");
          J.attribute("isPreferred", D.FixIts.size() == 1);
          J.attributeArray("diagnostics", [&] { diagnostic(J, D); });
          J.attributeObject("edit", [&] {
            J.attributeObject("changes", [&] {
              J.attributeArray(Uri, [&] {
                J.object([&] {
                  J.attributeBegin("range");
                  range(J, F.Range);
                  J.attributeEnd();
                  J.attribute("newText", text(F.Replacement));
                });
              });
            });
          });
        });
      }
    }
  });
}
