//===- support/InputFile.h - Bounded reading of source files ----*- C++ -*-===//
//
// Every text file tacclc reads as input (a sketch, an imported file, a file
// to format) goes through readSourceFile. It refuses what is not a file (a
// directory, a device, a socket) and anything larger than a fixed limit
// before reading it into memory, reads pipes and standard input with the same
// bound, and remembers the identity (device and inode) of every file it read,
// so that an output about to replace one of them can be refused.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SUPPORT_INPUTFILE_H
#define TACCLC_SUPPORT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <sys/stat.h>

namespace tacclc {

/// The most bytes one source file may have. Sketches are a few kilobytes;
/// the limit keeps the parser's memory (a few hundred bytes per token) far
/// below what a workstation has.
inline constexpr uint64_t MaxSourceFileBytes = uint64_t(4) << 20;

/// Reads \p Path ("-" is standard input) into a buffer named \p Name (the
/// path when empty). Returns null and sets \p Error to a lower-case reason
/// ("it is a directory", "it is larger than 4 MiB, ...") when \p Path is not
/// a readable file or pipe of at most \p MaxBytes bytes.
std::unique_ptr<llvm::MemoryBuffer>
readSourceFile(llvm::StringRef Path, std::string &Error,
               uint64_t MaxBytes = MaxSourceFileBytes,
               llvm::StringRef Name = "");

/// Records \p Path as an input of this process when it is a regular file
/// (for inputs read by other means, such as TACCL-EF files).
void noteInputFile(llvm::StringRef Path);

/// True if this process has read the file \p St describes (the same device,
/// inode and modification time) as an input.
bool wasReadAsInput(const struct stat &St);

/// \p Bytes for a message: "4 MiB", "512 KiB", "100 bytes".
std::string describeBytes(uint64_t Bytes);

/// The lower-case text of errno value \p Errno ("permission denied").
std::string describeErrno(int Errno);

} // namespace tacclc

#endif // TACCLC_SUPPORT_INPUTFILE_H
