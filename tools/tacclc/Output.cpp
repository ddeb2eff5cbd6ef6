//===- tools/tacclc/Output.cpp - Writing outputs --------------------------===//
//
// Outputs are written by support/OutputFile (all or none, atomically for
// regular files, never over an input); this file turns its failures into
// diagnostics.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Output.h"

#include "tools/tacclc/Commands.h"

#include <fmt/format.h>

using namespace tacclc;

int tacclc::writeOutputs(llvm::ArrayRef<OutputFile> Files,
                         DiagnosticEngine &Diags, const OutputOptions &Opts) {
  Diags.flush(llvm::errs()); // warnings of a successful run
  OutputError Err;
  if (writeOutputFiles(Files, Opts, Err))
    return ExitSuccess;
  Diags.report(DiagId::CannotWriteFile, llvm::SMRange(), Err.Path, Err.Reason);
  Diags.flush(llvm::errs());
  return ExitUserError;
}

int tacclc::writeOutput(const std::string &Path, const std::string &Text,
                        DiagnosticEngine &Diags, const OutputOptions &Opts) {
  return writeOutputs({OutputFile{Path, Text}}, Diags, Opts);
}

bool tacclc::checkOutputs(llvm::ArrayRef<std::string> Paths,
                          DiagnosticEngine &Diags) {
  OutputError Err;
  if (checkOutputPaths(Paths, OutputOptions(), Err))
    return true;
  Diags.report(DiagId::CannotWriteFile, llvm::SMRange(), Err.Path, Err.Reason);
  return false;
}

std::string tacclc::jsonQuote(llvm::StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (static_cast<unsigned char>(C) < 0x20)
      Out += fmt::format("\\u{:04x}", static_cast<unsigned>(C));
    else
      Out += C;
  }
  return Out + "\"";
}

std::string
tacclc::toText(llvm::function_ref<void(llvm::raw_ostream &)> Print) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Print(OS);
  OS.flush();
  return Text;
}
