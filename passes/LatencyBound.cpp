//===- passes/LatencyBound.cpp - The latency lower bound ------------------===//
//
// One Dijkstra per source rank and per cost model: alpha alone, or, per
// protocol, each link's alpha raised to the protocol's per-hop latency of its
// kind (NVLink inside a node, network between nodes, as the simulator tells
// them apart) with the protocol's launch latency added once.
//
//===----------------------------------------------------------------------===//
#include "passes/LatencyBound.h"

#include "format/Plan.h"
#include "sim/Simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

using namespace tacclc;

std::string tacclc::boundRankName(const ir::Topology &T, unsigned R) {
  if (T.getNumNodes() <= 1)
    return fmt::format("GPU {}", R);
  return fmt::format("GPU {}:{} (rank {})", T.nodeOf(ir::RankId(R)),
                     R % T.getGpusPerNode(), R);
}

namespace {
/// The farthest needed pair under \p Weight: its distance and ranks.
struct Farthest {
  double TimeUs = -1;
  unsigned From = 0, To = 0;
};

std::optional<Farthest> farthest(
    const ir::Topology &T, llvm::function_ref<bool(unsigned, unsigned)> Needed,
    llvm::function_ref<double(const ir::Link &)> Weight, std::string &Error) {
  const unsigned N = T.getNumRanks();
  Farthest F;
  for (unsigned S = 0; S < N; ++S) {
    std::vector<double> D = T.distancesFrom(ir::RankId(S), Weight);
    for (unsigned R = 0; R < N; ++R) {
      if (R == S || !Needed(S, R))
        continue;
      if (std::isinf(D[R])) {
        Error = fmt::format("{} cannot reach {}", boundRankName(T, S),
                            boundRankName(T, R));
        return std::nullopt;
      }
      if (D[R] > F.TimeUs)
        F = {D[R], S, R};
    }
  }
  if (F.TimeUs < 0)
    F.TimeUs = 0;
  return F;
}
} // namespace

std::optional<Bound>
tacclc::latencyBound(const ir::Topology &T,
                     llvm::function_ref<bool(unsigned, unsigned)> Needed,
                     const BoundsModel &Model, std::string &Error) {
  Bound B;
  if (!Model.ProtocolCosts) {
    auto F = farthest(
        T, Needed, [](const ir::Link &L) { return L.AlphaUs; }, Error);
    if (!F)
      return std::nullopt;
    B.TimeUs = F->TimeUs;
    B.Why = fmt::format("alpha-only shortest path {} -> {}",
                        boundRankName(T, F->From), boundRankName(T, F->To));
    return B;
  }
  // The fastest protocol's floor; ties go to the first in this order.
  bool First = true;
  for (tacclrt::Protocol P : {tacclrt::Protocol::LL, tacclrt::Protocol::LL128,
                              tacclrt::Protocol::Simple}) {
    const tacclrt::ProtocolCosts C = tacclrt::protocolCosts(P);
    auto Hop = [&](const ir::Link &L) {
      bool Net = T.nodeOf(L.Src) != T.nodeOf(L.Dst);
      return std::max(L.AlphaUs, C.HopUs[Net ? 1 : 0]);
    };
    auto F = farthest(T, Needed, Hop, Error);
    if (!F)
      return std::nullopt;
    double Time = C.LaunchUs + F->TimeUs;
    if (First || Time < B.TimeUs * (1 - 1e-12)) {
      B.TimeUs = Time;
      B.Why = fmt::format(
          "{} (the fastest protocol here): launch {:.4g} us + shortest path "
          "{} -> {} of {:.4g} us, each hop its alpha or the protocol's "
          "per-hop latency ({:.4g} us NVLink, {:.4g} us network) if larger",
          tacclrt::nameOf(P), C.LaunchUs, boundRankName(T, F->From),
          boundRankName(T, F->To), F->TimeUs, C.HopUs[0], C.HopUs[1]);
    }
    First = false;
  }
  return B;
}
