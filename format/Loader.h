//===- format/Loader.h - TACCL-EF XML loader --------------------*- C++ -*-===//
//
// Reads a TACCL-EF / MSCCL XML file into a Plan (Plan.h) and validates
// everything the MSCCL runtimes require or silently rely on: the lexical
// rules of NCCL's hand-written XML lexer, required and integer attributes,
// the rank / threadblock / step structure, peers, channels, buffer bounds,
// dependencies and the limits of the chosen runtime dialect. Every problem
// becomes an Issue with its XML line; errors are collected (at most 50)
// rather than stopping at the first one, and repeated warnings are counted
// rather than listed. Loading takes time and memory linear in the size of
// the input, which is at most MaxPlanFileBytes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_LOADER_H
#define TACCLC_FORMAT_LOADER_H

#include "format/Diagnostic.h"
#include "format/Dialect.h"
#include "format/Plan.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tacclrt {

/// Options of loadPlan() and validatePlan().
struct LoadOptions {
  /// The runtime whose rules apply.
  Dialect D = Dialect::Executor;
};

/// Maximum number of errors collected before the loader stops reporting.
constexpr unsigned MaxReportedErrors = 50;

/// Largest TACCL-EF input accepted, in bytes (512 MiB: a 1,024-rank
/// allgather is about 270 MB, and loading takes about five times the file's
/// size in memory). Larger inputs are refused with an error before they are
/// parsed; loadPlanFile() never reads more than this (plus one byte) from a
/// file.
constexpr std::size_t MaxPlanFileBytes = std::size_t(512) << 20;

/// Parses and validates the XML text \p Text. \p FileName only labels the
/// issues. Returns the plan when no error was found (warnings allowed), with
/// Gpus sorted by rank and Tbs sorted by id; otherwise std::nullopt. All
/// issues are appended to \p Out.
std::optional<Algo> loadPlan(std::string_view Text, std::string_view FileName,
                             const LoadOptions &Opts, Report &Out);

/// Reads the file at \p Path and loads it like loadPlan(). A missing or
/// unreadable file, anything but a regular file (a directory, a device such
/// as /dev/zero, a FIFO, a socket) and a file over MaxPlanFileBytes are
/// reported as an Issue (never thrown) without reading the data.
std::optional<Algo> loadPlanFile(const std::string &Path,
                                 const LoadOptions &Opts, Report &Out);

/// Runs the semantic rules of the loader (ranks, threadblocks, peers,
/// channels, steps, bounds, dependencies, limits) on an already built plan,
/// e.g. one constructed in memory. Lexical and attribute-syntax rules are not
/// part of it. Gpus and Tbs may be in any order.
Report validatePlan(const Algo &A, const LoadOptions &Opts,
                    std::string_view FileName);

} // namespace tacclrt

#endif // TACCLC_FORMAT_LOADER_H
