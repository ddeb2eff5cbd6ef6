//===- format/PlanFile.h - Bounded reading of plan files --------*- C++ -*-===//
//
// Internal to the loader: reads a TACCL-EF file into memory without ever
// reading unbounded data. Only regular files are read (a character device
// such as /dev/zero, a FIFO or a socket is refused before any byte is read,
// without blocking), and never more than MaxPlanFileBytes bytes, even when
// the file grows while it is read. The checks are made on the opened file
// descriptor, so the file checked is the file read.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_PLANFILE_H
#define TACCLC_FORMAT_PLANFILE_H

#include <cstdint>
#include <optional>
#include <string>

namespace tacclrt {

/// Reads the regular file at \p Path into \p Text. Returns std::nullopt on
/// success, else the reason it was not read (a lower-case message without
/// the file name).
std::optional<std::string> readPlanText(const std::string &Path,
                                        std::string &Text);

/// The message for an input of \p Bytes bytes (more than \p Bytes when
/// \p MoreThan), over MaxPlanFileBytes.
std::string tooLargeMessage(std::uint64_t Bytes, bool MoreThan = false);

} // namespace tacclrt

#endif // TACCLC_FORMAT_PLANFILE_H
