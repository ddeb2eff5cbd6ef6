//===- tools/tacclc/Subcommands.h - Options of the subcommands --*- C++ -*-===//
//
// What the driver's main() needs of the subcommands' options
// (Subcommands.cpp): their help categories, the shared --dialect and
// --diag-names, what --help says before the options, and the run of the
// subcommand named on the command line.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_SUBCOMMANDS_H
#define TACCLC_TOOLS_TACCLC_SUBCOMMANDS_H

#include "llvm/Support/CommandLine.h"

#include <optional>
#include <vector>

namespace tacclc {

/// The option categories of the subcommands, for --help.
std::vector<const llvm::cl::OptionCategory *> subcommandCategories();

/// Whether --dialect names the legacy MSCCL runtime.
bool legacyDialect();

/// Whether --diag-names asks for message names (every command).
bool diagNames();

/// What --help prints before the options for the command line \p Argv: the
/// overview of every command, or the paragraph of the subcommand that
/// Argv[1] names (Help.cpp).
llvm::StringRef helpOverview(int Argc, const char *const *Argv);

/// Runs the subcommand named on the command line (after parsing); its exit
/// status, or nothing when the command line names none (a compile).
std::optional<int> runSubcommand();

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_SUBCOMMANDS_H
