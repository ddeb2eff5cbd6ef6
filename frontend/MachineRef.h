//===- frontend/MachineRef.h - Machines named on the command line -*- C++ -*-//
//
// `--topology REF` of the sim, bounds and baseline commands: a stdlib
// machine with arguments (`ndv2(nodes: 2)`, found as topologies/ndv2) or
// `FILE.sketch:NAME(args)`, instantiated as the physical machine: its links,
// and between nodes every GPU pair over the NICs.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_MACHINEREF_H
#define TACCLC_FRONTEND_MACHINEREF_H

#include "ir/Topology.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// The machine \p Ref names, or nothing after printing the front end's
/// diagnostics to \p Errs. Imports are searched in \p IncludeDirs, then
/// the standard library.
std::optional<ir::Topology>
instantiateMachine(const std::string &Ref,
                   const std::vector<std::string> &IncludeDirs,
                   llvm::raw_ostream &Errs = llvm::errs());

} // namespace tacclc

#endif // TACCLC_FRONTEND_MACHINEREF_H
