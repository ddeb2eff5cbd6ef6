//===- frontend/SemaInternal.h - Pieces of semantic analysis ----*- C++ -*-===//
//
// Internal to frontend/: the parts of Sema that live in their own files.
// Sema.cpp resolves names and sketches; SketchMerge.cpp merges the items of a
// `from` chain; TopologySema.cpp checks costs and flat topologies;
// MachineEval.cpp instantiates machine templates; SketchEval.cpp builds a
// sketch's logical topology.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_SEMAINTERNAL_H
#define TACCLC_FRONTEND_SEMAINTERNAL_H

#include "frontend/Ast.h"
#include "frontend/Eval.h"
#include "ir/Sketch.h"
#include "ir/Topology.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <optional>

namespace tacclc {

/// An instantiated machine (or a flat topology): the physical links.
struct Machine {
  std::string Name;
  /// The arguments given, by parameter name, evaluated (ir::MachineUse).
  std::vector<std::pair<std::string, int64_t>> Args;
  ir::Topology Physical;
  int NicClass = -1;   ///< Class of the first NIC, or -1 without NICs.
  bool IsFlat = false; ///< Declared with `topology` (no nodes, no classes).
  llvm::SMRange NameRange;
};

/// Checks a time quantity (alpha); returns microseconds.
std::optional<double> checkTime(const ast::Quantity &Q, llvm::StringRef What,
                                DiagnosticEngine &Diags);
/// Checks an inverse bandwidth or bandwidth (beta); returns us per byte.
std::optional<double> checkBeta(const ast::Quantity &Q,
                                DiagnosticEngine &Diags);
/// Checks that \p Attrs hold exactly one alpha and one beta; \p What names
/// the owner in messages (e.g. "link '0 -> 1'").
bool checkCosts(const std::vector<ast::LinkAttr> &Attrs, llvm::SMRange Owner,
                llvm::StringRef Kind, llvm::StringRef What,
                DiagnosticEngine &Diags, double &AlphaUs, double &BetaUsPerB);

/// Checks a flat `topology` declaration.
/// A size such as `1 MB` in bytes (a whole number from 1 B to 1 PB).
std::optional<uint64_t> checkSizeBytes(const ast::Quantity &Q,
                                       llvm::StringRef What,
                                       DiagnosticEngine &Diags);

/// Checks a class's `at SIZE { ... }` measurements into \p C's profile.
bool checkProfile(const ast::ClassStmt &Stmt, ir::LinkClass &C,
                  DiagnosticEngine &Diags);

/// One element of an evaluated GPU list: a local GPU (Node unset) or a
/// node:gpu address, not yet checked against the machine's shape.
struct GpuRef {
  std::optional<int64_t> Node;
  int64_t Gpu = 0;
  llvm::SMRange Range;
};

/// Evaluates `[0, 2 .. 4]`, expanding ranges; rejects mixed forms,
/// empty ranges and repeated GPUs.
std::optional<std::vector<GpuRef>>
evalGpuList(const ast::GpuList &L, const Scope &S, DiagnosticEngine &Diags);

/// A `nic` statement as evaluated (GPUs unchecked).
struct PendingNic {
  int Class;
  std::optional<std::vector<GpuRef>> Gpus; ///< Absent: the whole node.
  const ast::NicStmt *Stmt;
};

/// A `switch` statement as evaluated (GPUs unchecked).
struct PendingSwitch {
  int Class;
  std::vector<GpuRef> Gpus;
  const ast::SwitchStmt *Stmt;
};

/// Links seen so far (source, destination) and where each was declared.
using LinkDecls = std::map<std::pair<unsigned, unsigned>, llvm::SMRange>;

/// Adds each switch's groups and links (one group per node for local GPU
/// lists) to \p T; false after a diagnostic.
bool layOutSwitches(const std::vector<PendingSwitch> &Switches,
                    const std::vector<ir::LinkClass> &Classes, ir::Topology &T,
                    LinkDecls &Seen, llvm::StringRef MachineName,
                    DiagnosticEngine &Diags);

/// Adds the NICs, the same layout on every node, to \p T; false after a
/// diagnostic.
bool layOutNics(const std::vector<PendingNic> &Nics, ir::Topology &T,
                llvm::StringRef MachineName, DiagnosticEngine &Diags);

std::optional<Machine> checkFlatTopology(const ast::TopologyDecl &T,
                                         DiagnosticEngine &Diags);

/// Instantiates machine \p M with \p Args (used at \p UseLoc).
std::optional<Machine> instantiateMachine(const ast::MachineDecl &M,
                                          llvm::ArrayRef<ast::Arg> Args,
                                          llvm::SMRange UseLoc,
                                          DiagnosticEngine &Diags);

/// The items of a sketch that shape its logical topology, already merged
/// along `from` chains.
struct TopologyItems {
  const ast::LinksItem *Links = nullptr;
  /// relay, relay each/direct/all, exclude, sender items, or loops of them.
  std::vector<const ast::Node *> RelayAndExclude;
};

/// Inter-node relay rules of a sketch: which local GPUs' chunks each
/// sender carries to other nodes (empty: no restriction).
struct RelayRules {
  std::vector<std::vector<bool>> Carries; ///< [sender][source], local GPUs.
  const ast::Node *FirstSender = nullptr;
};

/// The items of a sketch's `from` chain, sorted by how they merge.
struct ChainItems {
  /// Single-valued items (collective, chunks, ...), most derived first.
  std::vector<const ast::Node *> Singles;
  /// Switch policies, most derived first.
  std::vector<const ast::PolicyItem *> Policies;
  /// The `links` item and the relay/exclude/sender group that wins.
  TopologyItems Topo;
};

/// Sorts the items of \p Chain (most derived sketch first) by how they
/// merge: the most derived `links` item and the relay/exclude/sender items
/// of the most derived sketch that has any.
ChainItems mergeChainItems(llvm::ArrayRef<const ast::SketchDecl *> Chain);

/// Reports single items and policies repeated within one sketch of
/// \p Chain.
void checkDuplicateItems(llvm::ArrayRef<const ast::SketchDecl *> Chain,
                         DiagnosticEngine &Diags);

/// The most derived of each kind of item among \p Singles (most derived
/// first).
std::vector<const ast::Node *>
effectiveItems(const std::vector<const ast::Node *> &Singles);

/// Builds the logical topology of a sketch on machine \p M.
std::optional<ir::Topology>
buildLogicalTopology(const Machine &M, const TopologyItems &Items,
                     llvm::StringRef SketchName, llvm::SMRange SketchLoc,
                     DiagnosticEngine &Diags, RelayRules &Rules);

/// Checks the collective, chunks, size, instances, `contiguous` and
/// `sender first` items into \p Out (whose topology and relay rules are
/// set), then resolves cost profiles at the chunk size.
bool checkSketchItems(const std::vector<const ast::Node *> &Items,
                      llvm::SMRange Loc, llvm::StringRef Name,
                      llvm::StringRef MachineName, const RelayRules &Rules,
                      ir::Sketch &Out, DiagnosticEngine &Diags);

/// Applies `policy SWITCH VALUE` items (most derived sketch first) to the
/// logical topology's switches.
bool applyPolicies(const std::vector<const ast::PolicyItem *> &Items,
                   ir::Topology &T, llvm::StringRef MachineName,
                   DiagnosticEngine &Diags);

/// Runs the `for` loop \p F: binds its variable in a new frame of \p S for
/// each value and calls \p Body on each statement while it returns true.
/// \p Iterations counts iterations across all loops of one declaration;
/// the loop nest is bounded by MaxLoopIterations and MaxEvalWork. Returns
/// false after an error.
bool runLoop(const ast::ForStmt &F, Scope &S, uint64_t &Iterations,
             DiagnosticEngine &Diags,
             llvm::function_ref<bool(const ast::Node &)> Body);

/// Checks protocol, solver settings and symmetries among \p Items (the
/// merged single items of a sketch) into \p Out, whose Topo is set.
/// Checks a `protocol` item into \p Out (after the size range is known):
/// one protocol, `auto`, or a protocol per part of the size range.
bool checkProtocol(const ast::ProtocolItem &P, ir::Sketch &Out,
                   DiagnosticEngine &Diags);

bool checkSketchOptions(const std::vector<const ast::Node *> &Items,
                        ir::Sketch &Out, DiagnosticEngine &Diags);

/// Reports that machine \p MachineName has no link class \p Name, with the
/// closest of \p Classes as a suggestion when one is close.
void reportUnknownClass(llvm::StringRef MachineName, llvm::StringRef Name,
                        llvm::SMRange Range,
                        llvm::ArrayRef<ir::LinkClass> Classes,
                        DiagnosticEngine &Diags);

/// The innermost of \p Loops (outermost first) whose variable neither end
/// of \p P uses, or null: each iteration of that loop declares the same
/// link again.
const ast::ForStmt *loopNotUsedBy(llvm::ArrayRef<const ast::ForStmt *> Loops,
                                  const ast::EndpointPair &P);

/// Reports the link \p P (\p Src -> \p Dst), repeated by each iteration of
/// loop \p F because it does not use F's variable, with the fix: in a loop
/// over the nodes, \p P on node VAR (`n:0 <-> n:1`).
void reportLinkRepeatedByLoop(const ast::ForStmt &F, const ast::EndpointPair &P,
                              unsigned Src, unsigned Dst,
                              DiagnosticEngine &Diags);

/// Evaluates an address to a rank of \p T, reporting out-of-range parts.
std::optional<unsigned> evalAddress(const ast::Address &A, const Scope &S,
                                    const ir::Topology &T,
                                    llvm::StringRef MachineName,
                                    DiagnosticEngine &Diags);

/// The most iterations all loops of one declaration may run.
inline constexpr uint64_t MaxLoopIterations = 1000000;
/// The most expression nodes one declaration may evaluate.
inline constexpr uint64_t MaxEvalWork = 20000000;
/// The most ranks a machine may have.
inline constexpr unsigned MaxRanks = 1024;
inline constexpr unsigned MaxMultiplicity = 64;

} // namespace tacclc

#endif // TACCLC_FRONTEND_SEMAINTERNAL_H
