//===- tools/tacclc/LspDocument.cpp - One open document, analysed ---------===//
//
// LspDocument (LspDocument.h). The analysis runs the front end as `tacclc`
// does: loadModules (syntax, imports), describeMachines (every machine of
// the file that needs no arguments), analyzeSketch for every sketch; the
// diagnostics are collected instead of printed, duplicates (one machine
// checked for several sketches) dropped. When loading fails, the file alone
// is indexed so that its symbols still show.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/LspDocument.h"

#include "tools/tacclc/Fmt.h"

#include "llvm/Support/FileSystem.h"

#include "llvm/Support/MemoryBuffer.h"

#include <fmt/format.h>

#include <set>

using namespace tacclc;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

/// UTF-16 code units of UTF-8 text.
int64_t utf16Units(llvm::StringRef S) {
  int64_t N = 0;
  for (unsigned char C : S)
    N += (C & 0xC0) == 0x80 ? 0 : (C >= 0xF0 ? 2 : 1);
  return N;
}

bool sameDiagnostic(const Diagnostic &A, const Diagnostic &B) {
  return A.Id == B.Id && A.Range.Start == B.Range.Start &&
         A.Message == B.Message;
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
                         const FrontendOptions &FO)
    : Uri(std::move(TheUri)), Text(std::move(TheText)),
      SM(std::make_unique<llvm::SourceMgr>()) {
  std::string Path = uriToPath(Uri);
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
    for (const SketchSummary &S : listSketches(*Modules))
      if (std::optional<ir::Sketch> Ir =
              analyzeSketch(*Modules, S.Name, Fresh())) {
        const ir::Topology &T = Ir->Topo;
        SketchMachine[S.Name] =
            fmt::format("{}: {} ranks ({} node(s) x {} GPUs), {} links", S.On,
                        T.getNumRanks(), T.getNumNodes(), T.getGpusPerNode(),
                        T.links().size());
      }
    Index = buildSymbolIndex(*Modules, *SM);
  } else {
    // The file alone, for its symbols.
    DiagnosticEngine Quiet(*SM);
    if (std::unique_ptr<ast::Module> Ast = parseSketch(*SM, Main, Quiet)) {
      ModuleSet Alone;
      Alone.Modules.push_back({std::move(Ast), "main", Path, {}});
      Index = buildSymbolIndex(Alone, *SM);
    }
  }
  std::vector<const DiagnosticEngine *> All{&D};
  for (const auto &E : Engines)
    All.push_back(E.get());
  for (const DiagnosticEngine *E : All)
    for (const Diagnostic &X : E->pending()) {
      bool Seen = false;
      for (const Diagnostic &Y : Diags)
        Seen = Seen || sameDiagnostic(X, Y);
      if (!Seen)
        Diags.push_back(X);
    }
}

llvm::SMLoc LspDocument::locAt(int64_t Line, int64_t Char) const {
  llvm::StringRef Buf = SM->getMemoryBuffer(Main)->getBuffer();
  size_t At = 0;
  for (int64_t L = 0; L < Line; ++L) {
    size_t Nl = Buf.find('\n', At);
    if (Nl == std::string::npos)
      return llvm::SMLoc();
    At = Nl + 1;
  }
  for (int64_t Units = 0; At < Buf.size() && Buf[At] != '\n';) {
    unsigned char C = static_cast<unsigned char>(Buf[At]);
    int64_t W = C >= 0xF0 ? 2 : 1;
    if (Units + W > Char)
      break;
    Units += W;
    ++At;
    while (At < Buf.size() &&
           (static_cast<unsigned char>(Buf[At]) & 0xC0) == 0x80)
      ++At;
  }
  return llvm::SMLoc::getFromPointer(Buf.data() + At);
}

Object LspDocument::position(llvm::SMLoc L) const {
  unsigned Buf = SM->FindBufferContainingLoc(L);
  if (!Buf)
    return Object{{"line", 0}, {"character", 0}};
  auto [Line, Col] = SM->getLineAndColumn(L, Buf);
  llvm::StringRef Prefix(L.getPointer() - (Col - 1), Col - 1);
  return Object{{"line", int64_t(Line) - 1}, {"character", utf16Units(Prefix)}};
}

Object LspDocument::range(llvm::SMRange R) const {
  if (!R.isValid())
    return Object{{"start", position(llvm::SMLoc())},
                  {"end", position(llvm::SMLoc())}};
  return Object{{"start", position(R.Start)}, {"end", position(R.End)}};
}

std::string LspDocument::uriOf(llvm::SMLoc L) const {
  unsigned Buf = SM->FindBufferContainingLoc(L);
  if (Buf == Main || !Buf)
    return Uri;
  return pathToUri(SM->getMemoryBuffer(Buf)->getBufferIdentifier());
}

Object LspDocument::diagnostic(const Diagnostic &D) const {
  Object Out;
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
  Out["range"] = range(R);
  Out["severity"] = D.Sev == Severity::Error     ? 1
                    : D.Sev == Severity::Warning ? 2
                                                 : 3;
  Out["source"] = "tacclc";
  Out["code"] = nameOf(D.Id).str();
  Out["message"] = Message;
  Array Related;
  for (const Diagnostic &N : D.Notes)
    if (N.Range.isValid())
      Related.push_back(
          Object{{"location", Object{{"uri", uriOf(N.Range.Start)},
                                     {"range", range(N.Range)}}},
                 {"message", N.Message}});
  if (!Related.empty())
    Out["relatedInformation"] = std::move(Related);
  return Out;
}

Array LspDocument::diagnostics() const {
  Array Out;
  for (const Diagnostic &D : Diags)
    Out.push_back(diagnostic(D));
  return Out;
}

Value LspDocument::hover(int64_t Line, int64_t Char) const {
  llvm::SMLoc L = locAt(Line, Char);
  int D = Index.declAt(L);
  if (D < 0)
    return nullptr;
  const SymbolDecl &S = Index.Decls[unsigned(D)];
  std::string Text = S.Detail;
  auto Add = [&](const std::string &Line) { Text = Line + "\n" + Text; };
  if (S.Kind == SymbolDecl::Machine || S.Kind == SymbolDecl::Topology) {
    // At a sketch's `on NAME(...)`: the machine that sketch instantiates.
    bool InSketch = false;
    for (const SymbolDecl &Sk : Index.Decls)
      if (Sk.Kind == SymbolDecl::Sketch && Sk.Module == 0 &&
          Sk.Range.isValid() && Sk.Range.Start.getPointer() <= L.getPointer() &&
          L.getPointer() <= Sk.Range.End.getPointer() &&
          SketchMachine.count(Sk.Name)) {
        Add(SketchMachine.at(Sk.Name));
        InSketch = true;
      }
    if (!InSketch && S.Module == 0 && MachineLine.count(S.Name))
      Add(MachineLine.at(S.Name));
  } else if (S.Kind == SymbolDecl::Sketch && S.Module == 0 &&
             SketchMachine.count(S.Name)) {
    Text += "\n" + SketchMachine.at(S.Name);
  }
  return Object{{"contents", Object{{"kind", "plaintext"}, {"value", Text}}}};
}

Value LspDocument::definition(int64_t Line, int64_t Char) const {
  llvm::SMLoc L = locAt(Line, Char);
  if (int M = Index.importAt(L); Modules && M >= 0)
    return Object{
        {"uri", pathToUri(Modules->Modules[unsigned(M)].Path)},
        {"range", Object{{"start", Object{{"line", 0}, {"character", 0}}},
                         {"end", Object{{"line", 0}, {"character", 0}}}}}};
  int D = Index.declAt(L);
  if (D < 0)
    return nullptr;
  const SymbolDecl &S = Index.Decls[unsigned(D)];
  return Object{{"uri", uriOf(S.NameRange.Start)},
                {"range", range(S.NameRange)}};
}

Array LspDocument::symbols() const {
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
    }
    return 5;
  };
  auto Symbol = [&](const SymbolDecl &S) {
    llvm::StringRef First = llvm::StringRef(S.Detail).split('\n').first;
    return Object{{"name", S.Name},
                  {"detail", First.str()},
                  {"kind", Kind(S.Kind)},
                  {"range", range(S.Range)},
                  {"selectionRange", range(S.NameRange)}};
  };
  Array Out;
  for (size_t I = 0; I < Index.Decls.size(); ++I) {
    const SymbolDecl &S = Index.Decls[I];
    if (S.Module != 0 || S.Parent >= 0)
      continue;
    Object Top = Symbol(S);
    Array Children;
    for (const SymbolDecl &C : Index.Decls)
      if (C.Parent == int(I))
        Children.push_back(Symbol(C));
    if (!Children.empty())
      Top["children"] = std::move(Children);
    Out.push_back(std::move(Top));
  }
  return Out;
}

std::optional<Array> LspDocument::formatting() const {
  llvm::SourceMgr Fresh;
  DiagnosticEngine Quiet(Fresh);
  FormatOutcome Outcome;
  std::optional<std::string> Formatted =
      formatChecked(Text, "format", Quiet, Outcome);
  if (!Formatted)
    return std::nullopt;
  Array Edits;
  if (*Formatted != Text) {
    llvm::StringRef Buf = SM->getMemoryBuffer(Main)->getBuffer();
    llvm::SMRange All(llvm::SMLoc::getFromPointer(Buf.begin()),
                      llvm::SMLoc::getFromPointer(Buf.end()));
    Edits.push_back(Object{{"range", range(All)}, {"newText", *Formatted}});
  }
  return Edits;
}
