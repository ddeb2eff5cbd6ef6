//===- frontend/MachineRef.cpp - Machines named on the command line -------===//
//
// A machine reference is resolved in two steps. locate() finds the file
// that declares the machine (FILE of `FILE.sketch:NAME(args)`, else the
// standard library's topologies/NAME.sketch, else NAME.sketch, each searched
// like an import), loads it alone and checks that it declares the machine
// named (or, for `FILE.sketch`, exactly one), so that a reference that
// cannot work is refused with what to write instead. instantiate() then
// builds the machine through the front end from a small sketch that
// imports the file and uses it, the user's text on a line of its own so
// that a diagnostic about the arguments quotes just that; a machine of
// several nodes is instantiated with `relay all`, so that every GPU pair
// between nodes is joined over the NICs, whose sides then appear as shared
// resources.
//
//===----------------------------------------------------------------------===//
#include "frontend/MachineRef.h"

#include "frontend/Frontend.h"
#include "support/Stdlib.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <utility>

using namespace tacclc;

namespace {
/// \p Ref split at the colon that ends its file part (the first one before
/// any parenthesis): FILE (empty when none) and the machine's use.
std::pair<std::string, std::string> splitRef(llvm::StringRef Ref) {
  size_t Colon = Ref.find(':');
  size_t Paren = Ref.find('(');
  if (Colon != llvm::StringRef::npos &&
      (Paren == llvm::StringRef::npos || Colon < Paren))
    return {Ref.substr(0, Colon).str(), Ref.substr(Colon + 1).str()};
  return {std::string(), Ref.str()};
}

/// \p Text as a message quotes it: cut after 60 characters.
std::string shown(llvm::StringRef Text) {
  return Text.size() <= 60 ? Text.str() : Text.take_front(57).str() + "...";
}

/// \p Path absolute, with symbolic links resolved where it exists.
std::string canonicalPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Path, Real))
    return Real.str().str();
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return Abs.str().str();
}

/// \p Path relative to the folder \p Base ("." for the current folder).
std::string relativePath(llvm::StringRef Path, llvm::StringRef Base) {
  std::string To = canonicalPath(Path);
  std::string From = canonicalPath(Base.empty() ? "." : Base);
  auto TI = llvm::sys::path::begin(To), TE = llvm::sys::path::end(To);
  auto FI = llvm::sys::path::begin(From), FE = llvm::sys::path::end(From);
  while (TI != TE && FI != FE && *TI == *FI) {
    ++TI;
    ++FI;
  }
  llvm::SmallString<256> Out;
  for (; FI != FE; ++FI)
    llvm::sys::path::append(Out, "..");
  for (; TI != TE; ++TI)
    llvm::sys::path::append(Out, *TI);
  return Out.empty() ? std::string(".") : Out.str().str();
}

/// The FILE of a reference to the file \p Path: relative to the standard
/// library when it lies there (\p InStdlib set), else to \p BaseDir. Empty
/// when \p Path is not a file (a buffer read from standard input).
std::string fileReference(llvm::StringRef Path, llvm::StringRef BaseDir,
                          bool &InStdlib) {
  InStdlib = false;
  if (!llvm::sys::fs::is_regular_file(Path))
    return std::string();
  std::string InLib = relativePath(Path, stdlibDir());
  if (!llvm::StringRef(InLib).startswith("..")) {
    InStdlib = true;
    return InLib;
  }
  return relativePath(Path, BaseDir);
}

/// The path of the buffer that holds \p Loc, or empty.
llvm::StringRef bufferPath(const llvm::SourceMgr &SM, llvm::SMLoc Loc) {
  if (!Loc.isValid())
    return llvm::StringRef();
  unsigned Id = SM.FindBufferContainingLoc(Loc);
  return Id ? SM.getMemoryBuffer(Id)->getBufferIdentifier() : llvm::StringRef();
}

/// A machine located: the file to import (an absolute path) and its use,
/// `NAME(args)`.
struct Target {
  std::string File;
  std::string Use;
};

/// The machines and topologies \p M declares, as "machine NAME" or
/// "topology NAME", and their names.
std::vector<std::pair<std::string, std::string>>
declaredMachines(const ast::Module &M) {
  std::vector<std::pair<std::string, std::string>> Out;
  for (const auto &D : M.Decls) {
    if (llvm::isa<ast::MachineDecl>(D.get()))
      Out.emplace_back("machine " + D->Name, D->Name);
    else if (llvm::isa<ast::TopologyDecl>(D.get()))
      Out.emplace_back("topology " + D->Name, D->Name);
  }
  return Out;
}

/// Checks that the file \p T.File declares the machine that \p T.Use names;
/// with \p OnlyOne, that it declares exactly one, whose name then starts
/// \p T.Use (\p Args follow it). \p Shown is the file as the user named it.
bool pickMachine(Target &T, bool OnlyOne, const std::string &Args,
                 const std::string &Shown, const FrontendOptions &FO,
                 llvm::raw_ostream &Errs) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          fmt::format("import \"{}\"\n", T.File), "<--topology>"),
      llvm::SMLoc());
  std::optional<ModuleSet> Mods = loadModules(SM, Id, FO, Diags);
  if (!Mods || Mods->Modules.size() < 2) {
    Diags.flush(Errs);
    return false;
  }
  auto Declared = declaredMachines(*Mods->Modules[1].Ast);
  std::string List; // the first eight
  for (size_t I = 0; I < Declared.size() && I < 8; ++I)
    List += (I ? ", " : "") + shown(Declared[I].first);
  if (Declared.size() > 8)
    List += ", ...";
  std::string Name =
      llvm::StringRef(T.Use).substr(0, T.Use.find('(')).trim().str();
  bool Found = OnlyOne ? Declared.size() == 1
                       : Name.find('.') != std::string::npos ||
                             llvm::any_of(Declared, [&](const auto &D) {
                               return D.second == Name;
                             });
  if (OnlyOne && Found)
    T.Use = Declared.front().second + Args;
  if (Found)
    return true;
  if (Declared.empty())
    Diags.report(DiagId::NoMachineInFile, llvm::SMRange(), Shown);
  else if (OnlyOne)
    Diags.report(DiagId::SeveralMachinesInFile, llvm::SMRange(), Shown,
                 Declared.size(), List,
                 shown(Shown + ":" + Declared.front().second + Args));
  else
    Diags.report(DiagId::MachineNotInFile, llvm::SMRange(), Shown, shown(Name),
                 List);
  Diags.flush(Errs);
  return false;
}

/// Finds the file that declares the machine \p Ref names (see the file
/// comment). Nothing after printing why to \p Errs.
std::optional<Target> locate(const std::string &Ref, const FrontendOptions &FO,
                             llvm::raw_ostream &Errs) {
  auto [File, Use] = splitRef(Ref);
  size_t Paren = Use.find('(');
  std::string Head = llvm::StringRef(Use).substr(0, Paren).trim().str();
  std::string Args = Paren == std::string::npos ? "" : Use.substr(Paren);
  bool OnlyOne = File.empty() && llvm::StringRef(Head).endswith(".sketch");
  if (OnlyOne)
    File = Head;
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::string Searched, Found;
  if (!File.empty()) {
    Found = findImport(File, "", FO, &Searched);
    if (Found.empty())
      Diags.report(DiagId::ImportNotFound, llvm::SMRange(), shown(File),
                   Searched);
  } else {
    if (!Head.empty())
      Found = findImport("topologies/" + Head, "", FO, &Searched);
    if (Found.empty() && !Head.empty())
      Found = findImport(Head, "", FO);
    if (Found.empty()) {
      std::string Name = shown(Head);
      Diagnostic &D = Diags.report(DiagId::MachineNotFound, llvm::SMRange(),
                                   Name, Name, Name, Searched);
      Diags.note(D, DiagId::MachineRefForm, llvm::SMRange(),
                 shown("FILE.sketch:" + (Head.empty() ? "NAME" + Args : Use)));
    }
  }
  if (Found.empty()) {
    Diags.flush(Errs);
    return std::nullopt;
  }
  llvm::SmallString<256> Abs(Found);
  llvm::sys::fs::make_absolute(Abs);
  Target T{Abs.str().str(), Use};
  if (!pickMachine(T, OnlyOne, Args, shown(File.empty() ? Found : File), FO,
                   Errs))
    return std::nullopt;
  return T;
}

/// Instantiates the machine \p T; with \p AllPairs, joins every GPU pair
/// between nodes (over the NICs). Diagnostics go to \p Errs, or nowhere.
std::optional<ir::Topology> instantiate(const std::string &Ref, const Target &T,
                                        const FrontendOptions &FO,
                                        bool AllPairs, llvm::raw_ostream *Errs,
                                        std::string *Reference,
                                        llvm::StringRef BaseDir) {
  // The use on a line of its own: a diagnostic about it quotes only it.
  std::string Text = fmt::format(
      "import \"{}\"\nsketch tacclc_sim on\n{}\n{{ collective allgather {}}}\n",
      T.File, T.Use, AllPairs ? "relay all " : "");
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          Text, "<--topology " +
                    (Ref.size() <= 60 ? Ref : Ref.substr(0, 57) + "...") + ">"),
      llvm::SMLoc());
  std::optional<ir::Sketch> S;
  if (auto Modules = loadModules(SM, Id, FO, Diags))
    S = analyzeSketch(*Modules, "", Diags);
  if (!S) {
    llvm::raw_null_ostream Null;
    Diags.flush(Errs ? *Errs : Null);
    return std::nullopt;
  }
  if (Reference)
    *Reference = machineReference(S->On, SM, BaseDir);
  return std::move(S->Topo);
}

} // namespace

std::optional<ir::Topology> tacclc::instantiateMachine(
    const std::string &Ref, const std::vector<std::string> &IncludeDirs,
    llvm::raw_ostream &Errs, std::string *Reference, llvm::StringRef BaseDir) {
  FrontendOptions FO;
  FO.IncludeDirs = IncludeDirs;
  FO.StdlibDir = stdlibDir();
  std::optional<Target> T = locate(Ref, FO, Errs);
  if (!T)
    return std::nullopt;
  // Several nodes: every pair joined (a machine of one GPU per node has no
  // other links). One node: `relay all` is an error, so without it, and
  // that attempt reports what is wrong with the reference.
  if (auto Topo = instantiate(Ref, *T, FO, true, nullptr, Reference, BaseDir))
    return Topo;
  return instantiate(Ref, *T, FO, false, &Errs, Reference, BaseDir);
}

std::string tacclc::machineReference(const ir::MachineUse &On,
                                     const llvm::SourceMgr &SM,
                                     llvm::StringRef BaseDir) {
  bool InStdlib = false;
  std::string File =
      fileReference(bufferPath(SM, On.DeclLoc.Start), BaseDir, InStdlib);
  if (File.empty() || On.Name.empty())
    return std::string();
  std::string Use = On.Name;
  for (size_t I = 0; I < On.Args.size(); ++I)
    Use += fmt::format("{}{}: {}", I ? ", " : "(", On.Args[I].first,
                       On.Args[I].second);
  if (!On.Args.empty())
    Use += ")";
  if (InStdlib && File == "topologies/" + On.Name + ".sketch")
    return Use;
  return File + ":" + Use;
}

std::string tacclc::sketchReference(llvm::StringRef Name, llvm::SMRange Loc,
                                    const llvm::SourceMgr &SM,
                                    llvm::StringRef BaseDir) {
  bool InStdlib = false;
  std::string File =
      fileReference(bufferPath(SM, Loc.Start), BaseDir, InStdlib);
  if (File.empty() || Name.empty())
    return std::string();
  return File + ":" + Name.str();
}

std::string tacclc::recordedMachineRef(llvm::StringRef Recorded,
                                       llvm::StringRef ProgramPath) {
  auto [File, Use] = splitRef(Recorded);
  llvm::StringRef Dir = llvm::sys::path::parent_path(ProgramPath);
  if (File.empty() || llvm::sys::path::is_absolute(File) || Dir.empty())
    return Recorded.str();
  llvm::SmallString<256> Beside(Dir);
  llvm::sys::path::append(Beside, File);
  if (!llvm::sys::fs::is_regular_file(Beside))
    return Recorded.str();
  // `out/../m.sketch` reads better as `m.sketch`, where that is the file.
  llvm::SmallString<256> Short(Beside);
  llvm::sys::path::remove_dots(Short, /*remove_dot_dot=*/true);
  if (Short.empty() || !llvm::sys::fs::equivalent(Short, Beside))
    Short = Beside;
  return Short.str().str() + ":" + Use;
}
