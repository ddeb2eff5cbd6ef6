//===- frontend/TacclImport.h - TACCL JSON sketches as sketches -*- C++ -*-===//
//
// `tacclc import-taccl`: TACCL's communication sketch JSON (and optionally
// its topology profile JSON) turned into the equivalent `.sketch` file, key
// by key as docs/import-taccl.md maps them. The machine is the standard
// library's for TACCL's topology name, or with a profile a copy of it with
// the profile's costs (frontend/TacclMachines.h). A key with no counterpart
// is a warning naming it; a malformed file, a missing key or a value out of
// range an error at its position in the JSON. The result is in the layout
// of `tacclc fmt` and has passed the front end's checks.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_TACCLIMPORT_H
#define TACCLC_FRONTEND_TACCLIMPORT_H

#include "support/Diagnostics.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tacclc {

/// What an import is asked for besides the two files.
struct TacclImportOptions {
  /// TACCL's topology name (`DGX2`, `NDv2`, ...); empty: found in the
  /// profile's name, else in the sketch file's name.
  std::string Machine;
  /// The collective (TACCL names it on its command line): one of the
  /// language's, or as TACCL spells it (`Allgather`, `ReduceScatter`).
  std::string Collective = "allgather";
  /// The root rank of a rooted collective.
  std::optional<int64_t> Root;
  /// The sketch's size; nothing: with a profile, the chunks of the larger
  /// buffer times the profile's size, else the language's default.
  std::optional<uint64_t> SizeBytes;
  /// The data size the profile's betas were multiplied by; nothing: from
  /// the profile's name.
  std::optional<uint64_t> ProfileBytes;
  /// The factor the profile's costs were multiplied by.
  double ProfileScale = 1;
  /// The file the result is written to (its imports are searched from its
  /// folder when it is checked); `-` or empty: standard output.
  std::string OutputPath;
  /// The standard library (stdlib-sketches/).
  std::string StdlibDir;
};

/// Imports the TACCL sketch in buffer \p SketchBuffer of \p Diags's
/// SourceMgr, with the topology profile in buffer \p ProfileBuffer (0: none).
/// Returns the sketch file's text, or nothing after errors (reported to
/// \p Diags).
std::optional<std::string> importTacclSketch(unsigned SketchBuffer,
                                             unsigned ProfileBuffer,
                                             const TacclImportOptions &Opts,
                                             DiagnosticEngine &Diags);

} // namespace tacclc

#endif // TACCLC_FRONTEND_TACCLIMPORT_H
