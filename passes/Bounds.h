//===- passes/Bounds.h - Lower bounds on collective time --------*- C++ -*-===//
//
// Lower bounds on the time of a collective on a machine in the alpha-beta
// model, to judge synthesised and baseline algorithms against
// (the per-rank bounds of nccl-tests' doc/PERFORMANCE.md, generalised): the cut
// (bandwidth) bound computed exactly by max-flow on a network where every
// shared port (a NIC side, a switch port) is a vertex of its own, so its
// capacity counts once however many logical links pass through it; the per-rank
// injection and ejection bound; the latency bound from alpha-weighted shortest
// paths, or, where the protocols' costs are charged as `tacclc sim` charges
// them, the fastest protocol's launch latency plus its per-hop latencies along
// the shortest path; and their maximum, which is itself a lower bound.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PASSES_BOUNDS_H
#define TACCLC_PASSES_BOUNDS_H

#include "ir/Topology.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// The collectives bounds are computed for.
enum class BoundCollective {
  AllGather,
  ReduceScatter,
  AllReduce,
  AllToAll,
  Broadcast,
  Reduce
};

/// The collective named \p Name (`allgather`, `reducescatter`, `allreduce`,
/// `alltoall`, `broadcast`, `reduce`), or nothing.
std::optional<BoundCollective> parseBoundCollective(llvm::StringRef Name);
/// The name parseBoundCollective accepts for \p C.
llvm::StringRef boundCollectiveName(BoundCollective C);
/// nccl-tests' bus bandwidth factor for \p C on \p N ranks: 2(N-1)/N for
/// ALLREDUCE, 1 for BROADCAST and REDUCE, (N-1)/N for the others.
double busBandwidthFactor(BoundCollective C, unsigned N);

/// What a cut separates, for tests and for the words of Cut::Description.
enum class CutKind {
  Rank,  ///< One rank against the rest.
  Nodes, ///< Whole nodes (one or several) against the rest.
  Other, ///< Any other set of ranks.
};

/// A set S of vertices of the flow network (ranks and port vertices) and the
/// capacity B+(S) of the edges leaving it.
struct Cut {
  /// Ranks inside S (sorted).
  std::vector<unsigned> Inside;
  /// B+(S) in bytes per microsecond (1e-3 GB/s).
  double Capacity = 0;
  /// The side Description names: the ranks in S (data leaves them), or,
  /// when \c Into, the ranks outside S (data enters them).
  CutKind Kind = CutKind::Other;
  bool Into = false;
  /// What crosses the cut, largest first: a port's name or a link class's,
  /// with its share of the capacity in GB/s.
  std::vector<std::pair<std::string, double>> Through;
  /// In words, e.g. "into GPU 1:3 (rank 11): 137.5 GB/s through switch nvs
  /// port into 1:3 (125 GB/s), nic of 1:2,3 (receive) (12.5 GB/s)".
  std::string Description;
};

/// One bound: a time and why.
struct Bound {
  double TimeUs = 0;
  /// What limits it, in words (a cut, a rank's port, a path).
  std::string Why;
};

/// The bounds on one collective of one size on one machine.
struct CollectiveBounds {
  BoundCollective Collective = BoundCollective::AllGather;
  double Bytes = 0; ///< M, as nccl-tests counts it (the larger buffer).
  unsigned Ranks = 0;
  unsigned Root = 0;
  Bound CutBound, PerRank, Latency;
  /// The binding cut of CutBound (for ALLREDUCE, the allgather's; the
  /// reduce-scatter's is ReduceCut).
  Cut Binding;
  std::optional<Cut> ReduceCut;
  /// False where the ALLTOALL cut was maximised over candidate sets only
  /// (exhaustively when there are at most 16 ranks; see Bounds.cpp).
  bool CutExact = true;
  /// The maximum of the three, and which one it is ("cut", "per-rank",
  /// "latency").
  Bound Combined;
  std::string LimitedBy;
};

/// What the bounds charge beyond the links' alpha and beta.
struct BoundsModel {
  /// Charge NCCL's protocol costs as the simulator does (tacclrt's
  /// protocolCosts): every call starts with its protocol's launch latency
  /// and every hop costs at least the protocol's per-hop latency, so the
  /// latency bound is the least over the protocols of launch plus the
  /// shortest path under those hop costs. Off: alpha only.
  bool ProtocolCosts = false;
};

/// Computes every bound on \p C moving \p Bytes on \p Topo (class costs
/// taken at one rank's share, \p Bytes / ranks). \p Root is the root of
/// BROADCAST and REDUCE. Returns nothing with \p Error set when a rank
/// cannot reach another that it must.
std::optional<CollectiveBounds> computeBounds(const ir::Topology &Topo,
                                              BoundCollective C, double Bytes,
                                              unsigned Root, std::string &Error,
                                              const BoundsModel &Model = {});

} // namespace tacclc

#endif // TACCLC_PASSES_BOUNDS_H
