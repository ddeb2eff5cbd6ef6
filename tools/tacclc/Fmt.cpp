//===- tools/tacclc/Fmt.cpp - tacclc fmt ----------------------------------===//
//
// `tacclc fmt FILE...` prints each sketch file in its canonical layout
// (frontend/Format.h); `-i` rewrites the files that change, atomically,
// through symbolic links, keeping owner and mode; `--check` only says which
// files are not in the layout (exit 1). Before anything is printed or written,
// the result is checked: its syntax tree must equal the input's (locations
// aside) and formatting it again must change nothing. A file that fails either
// check is left alone and reported as an internal error, since it is a
// formatter bug (the checks are frontend/FormatChecked.h). `-` reads standard
// input.
//
//===----------------------------------------------------------------------===//
#include "frontend/FormatChecked.h"
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/Output.h"

#include "support/InputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tacclc;

namespace {

/// The line where \p A and \p B first differ (1-based).
unsigned firstDifference(llvm::StringRef A, llvm::StringRef B) {
  unsigned Line = 1;
  for (size_t I = 0; I < A.size() && I < B.size() && A[I] == B[I]; ++I)
    Line += A[I] == '\n';
  return Line;
}

/// Formats one file; the exit status for it.
int formatOne(const std::string &Path, const FmtOptions &Opts) {
  std::string Why;
  auto Buf = readSourceFile(Path, Why);
  if (!Buf) {
    llvm::errs() << "tacclc: error: cannot read '" << Path << "': " << Why
                 << "\n";
    return ExitUserError;
  }
  const std::string Original = Buf->getBuffer().str();
  const std::string Name = Path == "-" ? "<stdin>" : Path;
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  FormatOutcome Outcome;
  std::optional<std::string> Formatted =
      formatChecked(Original, Name, Diags, Outcome);
  if (Outcome == FormatOutcome::SyntaxError) {
    Diags.flush(llvm::errs());
    return ExitUserError;
  }
  if (Outcome == FormatOutcome::Unsafe) {
    llvm::errs() << "tacclc: internal error: formatting '" << Name
                 << "' would change its meaning or not be stable; it was "
                    "left as it is (please report this)\n";
    return ExitInternal;
  }
  if (Opts.Check) {
    if (*Formatted == Original)
      return ExitSuccess;
    llvm::outs() << Name << ": not formatted (first difference at line "
                 << firstDifference(Original, *Formatted)
                 << "; `tacclc fmt -i` rewrites it)\n";
    return ExitUserError;
  }
  if (!Opts.InPlace || Path == "-")
    return writeOutput("", *Formatted, Diags);
  if (*Formatted == Original)
    return ExitSuccess;
  // The file formatted is the file replaced (through a symbolic link, with
  // its owner and mode).
  OutputOptions InPlace;
  InPlace.MayReplaceInputs = true;
  return writeOutput(Path, *Formatted, Diags, InPlace);
}

} // namespace

int tacclc::runFmt(const FmtOptions &Opts) {
  if (Opts.InPlace && Opts.Check) {
    llvm::errs() << "tacclc: error: fmt takes -i or --check, not both\n";
    return ExitInternal;
  }
  int Worst = ExitSuccess;
  for (const std::string &Path : Opts.Inputs)
    Worst = std::max(Worst, formatOne(Path, Opts));
  return Worst;
}
