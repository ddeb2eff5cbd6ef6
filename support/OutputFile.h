//===- support/OutputFile.h - Safe, all-or-none output files ----*- C++ -*-===//
//
// How tacclc writes what it produces. A command names its outputs (an XML
// file, a JSON report, a plot) and writes them together: either every one is
// written or none is touched. Regular files are replaced atomically (the text
// goes to an unnamed temporary file in the target's folder, which is given a
// name only to be renamed over the target), keeping the owner and mode of the
// file replaced. A symbolic link is followed and its target written; a device,
// a pipe and standard output ("-" or no path) are written through. A file that
// this process read as input is never replaced unless the caller allows it
// (`fmt -i`). Temporary files are removed on signals, and a temporary file
// left by a killed run (no longer locked by it) is removed by the next run
// that writes beside it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_OUTPUTFILE_H
#define TACCLC_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tacclc {

/// One output: where ("" or "-": standard output) and what.
struct OutputFile {
  std::string Path;
  std::string Text;
};

/// Why an output could not be written.
struct OutputError {
  std::string Path;   ///< The output as named; `<stdout>` for standard output.
  std::string Reason; ///< Lower case: "permission denied", ...
};

/// How outputs may be written.
struct OutputOptions {
  /// Allow replacing a file this process read as input (`fmt -i`).
  bool MayReplaceInputs = false;
};

/// Checks, without writing anything, that every path of \p Paths could be
/// written now (its folder exists and is writable, it is not a folder, not
/// an input, not named twice). Meant for commands to call before long work.
/// Returns false with \p Err set.
bool checkOutputPaths(llvm::ArrayRef<std::string> Paths,
                      const OutputOptions &Opts, OutputError &Err);

/// Writes every file of \p Files or, when one of them cannot be written,
/// none (standard output and devices are written last, after every file was
/// replaced). Returns false with \p Err naming the first output that failed
/// and why.
bool writeOutputFiles(llvm::ArrayRef<OutputFile> Files,
                      const OutputOptions &Opts, OutputError &Err);

/// The name of the temporary file a run with process id \p Pid uses while
/// writing \p Target: `.NAME.PID.tacclc-tmp` in the same folder.
std::string temporaryPathFor(llvm::StringRef Target, long Pid);

} // namespace tacclc

#endif // TACCLC_SUPPORT_OUTPUTFILE_H
