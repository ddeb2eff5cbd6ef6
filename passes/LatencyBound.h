//===- passes/LatencyBound.h - The latency lower bound ----------*- C++ -*-===//
//
// The latency part of passes/Bounds.h: no collective ends before its data has
// crossed the path between the farthest pair of ranks that must communicate.
// In the alpha-beta model a hop costs at least its alpha. Where the protocols'
// costs are charged, as `tacclc sim` charges them by default, a call also
// starts with its protocol's launch latency and a hop costs at least the
// protocol's per-hop latency (tacclrt::protocolCosts); the bound is then the
// least, over NCCL's protocols, of launch plus that farthest path, since a
// program runs under one protocol.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_LATENCYBOUND_H
#define TACCLC_PASSES_LATENCYBOUND_H

#include "ir/Topology.h"
#include "passes/Bounds.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace tacclc {

/// A rank in words: "GPU 3" on one node, "GPU 1:3 (rank 11)" on several.
std::string boundRankName(const ir::Topology &T, unsigned R);

/// The latency bound on \p T (costs already applied) for a collective in
/// which rank S must reach rank R where \p Needed(S, R). Returns nothing with
/// \p Error set when such a pair has no path.
std::optional<Bound>
latencyBound(const ir::Topology &T,
             llvm::function_ref<bool(unsigned, unsigned)> Needed,
             const BoundsModel &Model, std::string &Error);

} // namespace tacclc

#endif // TACCLC_PASSES_LATENCYBOUND_H
