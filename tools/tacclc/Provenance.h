//===- tools/tacclc/Provenance.h - What a program records -------*- C++ -*-===//
//
// The provenance attributes tacclc writes on a program's <algo> (the
// version, the machine as --topology names it, the sketch, the sizes;
// format/Plan.h) and their use by the commands that read a program: `sim`
// and `bounds` take the machine a program records when --topology is not
// given, and every command that expects a program refuses a sketch with the
// command that compiles it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_PROVENANCE_H
#define TACCLC_TOOLS_TACCLC_PROVENANCE_H

#include "ir/Sketch.h"

#include "format/Plan.h"

#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tacclc {

/// The folder of the program written to \p Output: its parent folder, or
/// "." for standard output (empty, "-" or a device under /dev).
std::string programFolder(const std::string &Output);

/// The sizes \p S is built for, as `tacclc sim --sizes` reads them: its
/// range `LO:HI`, else its size.
std::string sketchSizes(const ir::Sketch &S);

/// What the program compiled from \p S (declared in buffers of \p SM) and
/// written to \p Output records.
tacclrt::Provenance compiledProvenance(const ir::Sketch &S,
                                       const llvm::SourceMgr &SM,
                                       const std::string &Output);

/// What a baseline program for the machine \p MachineRef (as
/// machineReference() writes it), timed at \p SizeBytes, records.
tacclrt::Provenance baselineProvenance(const std::string &MachineRef,
                                       uint64_t SizeBytes);

/// False, after an error that says how to compile it, when \p Path names a
/// sketch rather than a TACCL-EF program.
bool expectProgram(const std::string &Path);

/// The machine to use for the program \p A read from \p Path: \p Topology
/// when given, else the machine \p A records (recordedMachineRef()), with
/// a note saying so. Nothing, after an error, when there is neither.
std::optional<std::string> programMachine(const std::string &Topology,
                                          const tacclrt::Algo &A,
                                          const std::string &Path);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_PROVENANCE_H
