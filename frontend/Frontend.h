//===- frontend/Frontend.h - Public API of the sketch front end -*- C++ -*-===//
//
// Three steps: parse one buffer into an AST (syntax errors reported); load a
// main file with everything it imports (search path, cycles); analyse the
// loaded modules into a resolved ir::Sketch (every error of meaning
// reported: unknown names, bad ranks, wrong units, machine arguments). None
// throws; all report through the DiagnosticEngine and signal failure by
// returning nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_FRONTEND_H
#define TACCLC_FRONTEND_FRONTEND_H

#include "frontend/Ast.h"
#include "ir/Sketch.h"
#include "support/Diagnostics.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// Where imports are searched, after the importing file's own folder.
struct FrontendOptions {
  std::vector<std::string> IncludeDirs; ///< -I, in order.
  std::string StdlibDir;                ///< Searched last (after $TACCLC_PATH).
};

/// The folders an `import` in the file \p Importer is searched in, in
/// order: the file's own folder ("." when it has none), each -I folder,
/// each folder of $TACCLC_PATH, the standard library.
std::vector<std::string> importSearchDirs(llvm::StringRef Importer,
                                          const FrontendOptions &Opts);

/// One loaded file.
struct SourceModule {
  std::unique_ptr<ast::Module> Ast;
  std::string Name; ///< The qualifier: the file stem.
  std::string Path;
  std::vector<unsigned> Imports; ///< Indices of directly imported modules.
};

/// The main file (index 0) and every file it imports, transitively.
struct ModuleSet {
  std::vector<SourceModule> Modules;
};

/// A sketch of the main file, for `--list`.
struct SketchSummary {
  std::string Name;
  std::string On; ///< `machine(args)` or `from base`, as written.
  llvm::SMLoc Loc;
  const ast::SketchDecl *Decl = nullptr; ///< Its declaration.
};

/// Parses buffer \p BufferId of \p SM. Returns null after syntax errors.
std::unique_ptr<ast::Module> parseSketch(llvm::SourceMgr &SM, unsigned BufferId,
                                         DiagnosticEngine &Diags);

/// The file that `import "Path"` in the file \p Importer reads (".sketch"
/// added when \p Path has no extension): the first found next to
/// \p Importer (in "." when it has no folder), in Opts.IncludeDirs, in
/// $TACCLC_PATH, then in Opts.StdlibDir. Empty when there is none; then
/// \p Searched, when given, lists the folders searched.
std::string findImport(llvm::StringRef Path, llvm::StringRef Importer,
                       const FrontendOptions &Opts,
                       std::string *Searched = nullptr);

/// Parses \p MainBuffer and loads its imports (transitively).
std::optional<ModuleSet> loadModules(llvm::SourceMgr &SM, unsigned MainBuffer,
                                     const FrontendOptions &Opts,
                                     DiagnosticEngine &Diags);

/// Resolves the sketch named \p SketchName (or the only sketch of the main
/// file when the name is empty). Returns nothing after errors.
std::optional<ir::Sketch> analyzeSketch(const ModuleSet &Modules,
                                        llvm::StringRef SketchName,
                                        DiagnosticEngine &Diags);

/// Analyses a single module that imports nothing (tests, fuzzing).
std::optional<ir::Sketch> analyzeSketch(const ast::Module &M,
                                        llvm::StringRef SketchName,
                                        DiagnosticEngine &Diags);

/// Analyses sketches of a ModuleSet one at a time, collecting the
/// declarations only once (analyzeSketch collects them on every call): for
/// the many sketches of one file (the language server).
class SketchAnalyzer {
public:
  /// Collects the declarations of \p Modules, which must outlive the
  /// analyzer; redefinitions and import clashes are reported to \p Diags.
  SketchAnalyzer(const ModuleSet &Modules, DiagnosticEngine &Diags);
  ~SketchAnalyzer();
  /// What analyzeSketch(Modules, S.Name, Diags) returns for the sketch \p S
  /// of the modules, its problems reported to \p Diags; nothing, without a
  /// report, when collecting the declarations failed.
  std::optional<ir::Sketch> analyze(const ast::SketchDecl &S,
                                    DiagnosticEngine &Diags);

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

/// The sketches declared in the main file (or in module \p Module of the
/// set), in order.
std::vector<SketchSummary> listSketches(const ModuleSet &Modules,
                                        unsigned Module = 0);

/// Checks every machine and topology of the main file (or of module
/// \p Module) that needs no arguments (all parameters have defaults) by
/// instantiating it, and returns one line per declaration, e.g. `machine
/// ndv2(nodes = 1): 1 node x 8 GPUs, 32 links`. Errors are reported through
/// \p Diags.
std::vector<std::string> describeMachines(const ModuleSet &Modules,
                                          DiagnosticEngine &Diags,
                                          unsigned Module = 0);

} // namespace tacclc

#endif // TACCLC_FRONTEND_FRONTEND_H
