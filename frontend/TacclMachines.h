//===- frontend/TacclMachines.h - TACCL topologies as machines --*- C++ -*-===//
//
// The machine side of `tacclc import-taccl` (frontend/TacclImport.h). TACCL
// names a node topology on its command line (`taccl solve DGX2 ...`) and
// reads its costs from a topology profile JSON. Here each name maps to a
// machine of the standard library (stdlib-sketches/topologies/), and a
// profile to a copy of that machine whose link classes carry the profile's
// costs: the standard library's declaration with its class statements
// replaced, so that the wiring is written down only once.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_TACCLMACHINES_H
#define TACCLC_FRONTEND_TACCLMACHINES_H

#include "frontend/TacclJson.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// A standard-library machine that a TACCL topology name stands for.
struct TacclMachine {
  const char *Name;   ///< The machine and the name matched: `dgx2`.
  const char *Module; ///< Its file: `topologies/dgx2`.
  unsigned Gpus;      ///< GPUs per node.
  unsigned Nics;      ///< NICs per node.
  /// The intra-node link classes, in the order of a profile's
  /// `node_betas_list`.
  llvm::ArrayRef<const char *> NodeClasses;
  const char *NicClass; ///< The class of the NICs (`remote_*`).
  const char *Switch;   ///< The switch joining all GPUs, or null.
};

/// Every machine an import can name.
llvm::ArrayRef<TacclMachine> tacclMachines();

/// The machine for TACCL topology name \p Name (any case: `DGX2`, `ndv2`),
/// or null.
const TacclMachine *findTacclMachine(llvm::StringRef Name);

/// The one machine that a file or profile name mentions as a word
/// (`sk1-dgx2-n2.json`, `NDv2_1MB`), or null when it mentions none or
/// several.
const TacclMachine *machineInName(llvm::StringRef Name);

/// The accepted names, for messages: `dgx2, ndv2, ...`.
std::string tacclMachineNames();

/// How a profile's numbers become costs.
struct ProfileUnits {
  /// Bytes the profile's betas were multiplied by; nothing: read from the
  /// profile's name (`NDv2_32KB`).
  std::optional<uint64_t> Bytes;
  /// The factor every cost was multiplied by (TACCL's input guide scales
  /// costs so that their integer parts keep them apart).
  double Scale = 1;
};

/// A profile's machine: a copy of the standard library's with its costs.
struct ProfileMachine {
  std::string Name;       ///< The machine's name in the imported file.
  std::string Definition; ///< Its declaration.
  uint64_t Bytes = 0;     ///< The size the profile's betas were for.
  /// Sentences for the imported file's header comment.
  std::vector<std::string> Notes;
};

/// Reads the topology profile \p Profile for machine \p M and writes the
/// machine with its costs, from the standard library's declaration in
/// \p StdlibDir. Problems are reported through \p Profile; nothing after
/// errors.
std::optional<ProfileMachine> profileMachine(const TacclMachine &M,
                                             JsonReader &Profile,
                                             const ProfileUnits &Units,
                                             llvm::StringRef StdlibDir,
                                             DiagnosticEngine &Diags);

/// \p Text made a name of the language: characters other than letters,
/// digits and `_` become `_`, a leading digit gets a `_` before it, and a
/// keyword gets one after it.
std::string sketchIdentifier(llvm::StringRef Text);

} // namespace tacclc

#endif // TACCLC_FRONTEND_TACCLMACHINES_H
