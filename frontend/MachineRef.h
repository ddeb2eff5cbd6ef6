//===- frontend/MachineRef.h - Machines named on the command line -*- C++ -*-//
//
// `--topology REF` of the sim, bounds and baseline commands: a stdlib
// machine with arguments (`ndv2(nodes: 2)`, found as topologies/ndv2), a
// machine of a file of one's own (`mybox(nodes: 2)` for mybox.sketch found
// like an import, `mybox.sketch` for the only machine of that file), or
// `FILE.sketch:NAME(args)`, instantiated as the physical machine: its links,
// and between nodes every GPU pair over the NICs. The references a program
// records (format/Plan.h, Provenance) are written and read back here too.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_MACHINEREF_H
#define TACCLC_FRONTEND_MACHINEREF_H

#include "ir/Sketch.h"
#include "ir/Topology.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// The machine \p Ref names, or nothing after printing the front end's
/// diagnostics to \p Errs. Files are searched as imports are: in the
/// current folder, in \p IncludeDirs, in $TACCLC_PATH, then in the standard
/// library. With \p Reference, also sets it to machineReference() of the
/// machine for a program written in the folder \p BaseDir.
std::optional<ir::Topology> instantiateMachine(
    const std::string &Ref, const std::vector<std::string> &IncludeDirs,
    llvm::raw_ostream &Errs = llvm::errs(), std::string *Reference = nullptr,
    llvm::StringRef BaseDir = ".");

/// How `--topology` names the machine \p On, whose declaration is in a
/// buffer of \p SM, from a program in the folder \p BaseDir: `NAME(args)`
/// for the standard library's topologies/NAME.sketch, else
/// `FILE.sketch:NAME(args)` with FILE relative to the standard library when
/// it is there (found wherever tacclc runs), else relative to \p BaseDir.
/// No absolute path of this checkout enters it, so that two compiles of
/// one sketch write the same text.
std::string machineReference(const ir::MachineUse &On,
                             const llvm::SourceMgr &SM,
                             llvm::StringRef BaseDir);

/// `FILE.sketch:NAME` for the sketch \p Name declared at \p Loc in a buffer
/// of \p SM, FILE as in machineReference().
std::string sketchReference(llvm::StringRef Name, llvm::SMRange Loc,
                            const llvm::SourceMgr &SM, llvm::StringRef BaseDir);

/// The machine reference \p Recorded, as the program file \p ProgramPath
/// records it, made usable from the current folder: a relative FILE that
/// lies next to the program is named through the program's folder; other
/// references are returned as they are.
std::string recordedMachineRef(llvm::StringRef Recorded,
                               llvm::StringRef ProgramPath);

} // namespace tacclc

#endif // TACCLC_FRONTEND_MACHINEREF_H
