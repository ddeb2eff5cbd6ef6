//===- frontend/Modules.cpp - Load a file and everything it imports -------===//
//
// Algorithm (depth-first from the main file):
//   1. parse the file; for each `import "p"`, look for p (".sketch" added when
//      it has no extension) next to the importing file, then in each -I
//      directory, then in each directory of $TACCLC_PATH, then in the
//      standard library;
//   2. a file already loaded is reused (identity by real path), so diamonds
//      load once; a file still being loaded means an import cycle, reported
//      at the import with the whole chain;
//   3. each module is named by its file stem (non-identifier characters
//      become '_'), which is the qualifier in `module.name`;
//   4. every file is read with readSourceFile's size limit, imports may nest
//      at most MaxImportDepth files deep (the loader recurses once per
//      level), and all files together may hold at most MaxTotalInputBytes.
//
//===----------------------------------------------------------------------===//
#include "frontend/Frontend.h"
#include "support/InputFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cctype>
#include <map>

using namespace tacclc;

namespace {
std::string moduleName(llvm::StringRef Path) {
  std::string Name = llvm::sys::path::stem(Path).str();
  for (char &C : Name)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      C = '_';
  if (Name.empty() || std::isdigit(static_cast<unsigned char>(Name[0])))
    Name.insert(0, "_");
  return Name;
}

/// How deeply imports may nest (the main file is level 1).
constexpr unsigned MaxImportDepth = 64;

/// How many bytes all the files of one compile may hold together.
constexpr uint64_t MaxTotalInputBytes = uint64_t(16) << 20;

class Loader {
public:
  Loader(llvm::SourceMgr &SM, const FrontendOptions &Opts,
         DiagnosticEngine &Diags)
      : SM(SM), Opts(Opts), Diags(Diags) {}

  std::optional<ModuleSet> run(unsigned MainBuffer);

private:
  /// Loads the module in \p BufferId; returns its index or nothing.
  std::optional<unsigned> load(unsigned BufferId, const std::string &Key);

  llvm::SourceMgr &SM;
  const FrontendOptions &Opts;
  DiagnosticEngine &Diags;
  ModuleSet Set;
  std::map<std::string, unsigned> ByKey; // real path -> module
  std::vector<std::string> Stack;        // paths being loaded (<= 64)
  uint64_t TotalBytes = 0;
  bool Ok = true;
};
} // namespace

std::vector<std::string> tacclc::importSearchDirs(llvm::StringRef Importer,
                                                  const FrontendOptions &Opts) {
  std::vector<std::string> Dirs;
  llvm::StringRef Parent = llvm::sys::path::parent_path(Importer);
  Dirs.push_back(Parent.empty() ? "." : Parent.str());
  for (const std::string &D : Opts.IncludeDirs)
    Dirs.push_back(D);
  if (auto Env = llvm::sys::Process::GetEnv("TACCLC_PATH")) {
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    llvm::StringRef(*Env).split(Parts, ':', -1, false);
    for (llvm::StringRef P : Parts)
      Dirs.push_back(P.str());
  }
  if (!Opts.StdlibDir.empty())
    Dirs.push_back(Opts.StdlibDir);
  return Dirs;
}

std::string tacclc::findImport(llvm::StringRef Path, llvm::StringRef Importer,
                               const FrontendOptions &Opts,
                               std::string *Searched) {
  std::string Rel = Path.str();
  if (llvm::sys::path::extension(Rel).empty())
    Rel += ".sketch";
  std::vector<std::string> Dirs = importSearchDirs(Importer, Opts);
  std::string Seen;
  for (size_t D = 0; D < Dirs.size(); ++D) {
    const std::string &Dir = Dirs[D];
    llvm::SmallString<256> Candidate(Dir == "." ? "" : Dir);
    llvm::sys::path::append(Candidate, Rel);
    if (llvm::sys::path::is_absolute(Rel))
      Candidate = Rel;
    bool IsStdlib = D + 1 == Dirs.size() && !Opts.StdlibDir.empty();
    Seen += (Seen.empty() ? "" : ", ") +
            (IsStdlib ? std::string("the standard library") : Dir);
    if (llvm::sys::fs::is_regular_file(Candidate))
      return Candidate.str().str();
  }
  if (Searched)
    *Searched = std::move(Seen);
  return std::string();
}

std::optional<unsigned> Loader::load(unsigned BufferId,
                                     const std::string &Key) {
  llvm::StringRef Path = SM.getMemoryBuffer(BufferId)->getBufferIdentifier();
  auto Ast = parseSketch(SM, BufferId, Diags);
  if (!Ast)
    return std::nullopt;
  unsigned Index = Set.Modules.size();
  ByKey[Key] = Index;
  Set.Modules.push_back({std::move(Ast), moduleName(Path), Path.str(), {}});
  Stack.push_back(Key);
  for (const auto &Imp : Set.Modules[Index].Ast->Imports) {
    std::string Searched;
    std::string Found = findImport(Imp->Path, Path, Opts, &Searched);
    if (Found.empty()) {
      std::string Rel = Imp->Path;
      if (llvm::sys::path::extension(Rel).empty())
        Rel += ".sketch";
      Diags.report(DiagId::ImportNotFound, Imp->PathRange, Rel, Searched);
      Ok = false;
      continue;
    }
    llvm::SmallString<256> Real;
    std::string ImpKey =
        llvm::sys::fs::real_path(Found, Real) ? Found : Real.str().str();
    auto Done = ByKey.find(ImpKey);
    if (Done != ByKey.end()) {
      if (llvm::is_contained(Stack, ImpKey)) {
        std::string Chain;
        bool In = false;
        for (const std::string &S : Stack) {
          In |= S == ImpKey;
          if (In)
            Chain += llvm::sys::path::filename(S).str() + " -> ";
        }
        Chain += llvm::sys::path::filename(ImpKey).str();
        Diags.report(DiagId::ImportCycle, Imp->PathRange, Chain);
        Ok = false;
        continue;
      }
      Set.Modules[Index].Imports.push_back(Done->second);
      continue;
    }
    if (Stack.size() >= MaxImportDepth) {
      Diags.report(DiagId::ImportTooDeep, Imp->PathRange, MaxImportDepth);
      Ok = false;
      break;
    }
    std::string Why;
    auto Buf = readSourceFile(Found, Why);
    if (!Buf) {
      Diags.report(DiagId::CannotOpenFile, Imp->PathRange, Found, Why);
      Ok = false;
      continue;
    }
    TotalBytes += Buf->getBufferSize();
    if (TotalBytes > MaxTotalInputBytes) {
      Diags.report(DiagId::InputTooLarge, Imp->PathRange,
                   describeBytes(MaxTotalInputBytes));
      Ok = false;
      break;
    }
    unsigned Id = SM.AddNewSourceBuffer(std::move(Buf), Imp->getLoc());
    if (auto Sub = load(Id, ImpKey))
      Set.Modules[Index].Imports.push_back(*Sub);
    else
      Ok = false;
  }
  Stack.pop_back();
  return Index;
}

std::optional<ModuleSet> Loader::run(unsigned MainBuffer) {
  std::string Path =
      SM.getMemoryBuffer(MainBuffer)->getBufferIdentifier().str();
  llvm::SmallString<256> Real;
  std::string Key =
      llvm::sys::fs::real_path(Path, Real) ? Path : Real.str().str();
  TotalBytes = SM.getMemoryBuffer(MainBuffer)->getBufferSize();
  if (!load(MainBuffer, Key) || !Ok)
    return std::nullopt;
  return std::move(Set);
}

std::optional<ModuleSet> tacclc::loadModules(llvm::SourceMgr &SM,
                                             unsigned MainBuffer,
                                             const FrontendOptions &Opts,
                                             DiagnosticEngine &Diags) {
  return Loader(SM, Opts, Diags).run(MainBuffer);
}
