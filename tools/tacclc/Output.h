//===- tools/tacclc/Output.h - Writing outputs ------------------*- C++ -*-===//
//
// What every command that writes files shares: the safe, all-or-none write
// of support/OutputFile.h with its failures reported as diagnostics, checked
// before long work starts.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_OUTPUT_H
#define TACCLC_TOOLS_TACCLC_OUTPUT_H

#include "support/Diagnostics.h"
#include "support/OutputFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tacclc {

/// Writes every file of \p Files or none (support/OutputFile.h); flushes
/// \p Diags first and reports a failure, naming the path and the reason.
/// Returns the exit status.
int writeOutputs(llvm::ArrayRef<OutputFile> Files, DiagnosticEngine &Diags,
                 const OutputOptions &Opts = OutputOptions());

/// Writes \p Text to \p Path (stdout when empty or "-"), atomically for
/// files; flushes \p Diags first. Returns the exit status.
int writeOutput(const std::string &Path, const std::string &Text,
                DiagnosticEngine &Diags,
                const OutputOptions &Opts = OutputOptions());

/// Checks, before long work, that every path of \p Paths (empty ones are
/// standard output) could be written; reports the first that cannot.
bool checkOutputs(llvm::ArrayRef<std::string> Paths, DiagnosticEngine &Diags);

/// \p S as a JSON string literal (quotes, backslashes and control
/// characters escaped).
std::string jsonQuote(llvm::StringRef S);

/// What \p Print prints.
std::string toText(llvm::function_ref<void(llvm::raw_ostream &)> Print);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_OUTPUT_H
