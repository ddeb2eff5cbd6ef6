//===- tools/taccl-profile/SimProber.h - A machine to profile without GPUs -*-
// C++ -*-===//
//
// A Prober whose timings come from a machine description (an instantiated
// ir::Topology, e.g. a stdlib machine) plus parts the profiler is not told
// about: GPU pairs without a link reach each other through the host (PCIe),
// one transfer at a time per node; a GPU's network path costs more latency
// when it is not the GPU next to its NIC; links can be removed and NICs
// merged into one shared NIC; and every timing carries seeded noise. The
// transfers of a together() call share what they have in common (a link, a
// switch port, a NIC side, the host path) equally.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PROFILE_SIMPROBER_H
#define TACCLC_PROFILE_SIMPROBER_H

#include "Prober.h"

#include "ir/Topology.h"

#include <cstdint>
#include <random>
#include <set>

namespace tacclc::profile {

/// What the simulated machine hides from the profiler.
struct SimOptions {
  /// Relative standard deviation of every timing.
  double Noise = 0.01;
  std::uint32_t Seed = 1;
  /// The host path of GPU pairs without a link.
  double HostAlphaUs = 5, HostBetaUsPerB = 1.0 / 12e3; // 12 GB/s
  /// Extra network latency of a GPU that is not next to its NIC.
  double FarNicAlphaUs = 0.4;
  /// The local GPU next to each NIC (-1: the NIC's first GPU).
  int NicNear = -1;
  /// Local GPU pairs whose links (both directions) are missing, on every
  /// node.
  std::vector<std::pair<unsigned, unsigned>> RemoveLinks;
  /// Local GPUs whose NICs are in fact one shared NIC.
  std::vector<unsigned> ShareNic;
};

/// Timings computed from a machine description.
class SimProber : public Prober {
public:
  SimProber(ir::Topology T, SimOptions O, std::string Name);
  unsigned gpusPerNode() const override { return G; }
  unsigned nodes() const override { return Nodes; }
  double sequential(unsigned A, unsigned B, double Bytes, unsigned N) override;
  double concurrent(unsigned A, unsigned B, double Bytes, unsigned N) override;
  double together(const std::vector<std::pair<unsigned, unsigned>> &Pairs,
                  double Bytes) override;
  std::string describe() const override;

private:
  /// One path: its costs and what it shares.
  struct Path {
    double AlphaUs = 0, BetaUsPerB = 0;
    std::set<std::string> Uses;
  };
  Path path(unsigned A, unsigned B) const;
  double noisy(double Seconds);

  ir::Topology T;
  SimOptions O;
  std::string Name;
  unsigned G = 1, Nodes = 1;
  std::vector<int> NicOf;       ///< Local GPU -> NIC (after merging), or -1.
  std::vector<unsigned> NearOf; ///< NIC -> the local GPU next to it.
  std::mt19937 Rng;
};

} // namespace tacclc::profile

#endif // TACCLC_PROFILE_SIMPROBER_H
