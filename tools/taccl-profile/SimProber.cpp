//===- tools/taccl-profile/SimProber.cpp - A machine to profile without GPUs
//---===//
//
// SimProber (SimProber.h). Paths: a link of the description (the fastest if
// several, its beta divided by its multiplicity; through a switch it uses
// the source's out-port and the destination's in-port, else the link
// itself); the host path where there is none; between nodes the sender's
// NIC send side and the receiver's NIC receive side. Noise is Box-Muller on
// std::mt19937, whose sequence the standard fixes, so a seed gives the same
// timings everywhere.
//
//===----------------------------------------------------------------------===//
#include "SimProber.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace tacclc;
using namespace tacclc::profile;

SimProber::SimProber(ir::Topology Topo, SimOptions Opts, std::string TheName)
    : T(std::move(Topo)), O(std::move(Opts)), Name(std::move(TheName)),
      Rng(O.Seed) {
  G = T.getGpusPerNode();
  // The network path exists only through NICs.
  Nodes = T.nics().empty() ? 1 : std::min(T.getNumNodes(), 2u);
  NicOf.assign(G, -1);
  for (size_t K = 0; K < T.nics().size(); ++K)
    for (ir::RankId R : T.nics()[K].Ranks)
      if (R.index() < G)
        NicOf[R.index()] = int(K);
  // Hidden sharing: the listed GPUs' NICs are one.
  int Merged = -1;
  for (unsigned Gpu : O.ShareNic)
    if (Gpu < G && NicOf[Gpu] >= 0) {
      if (Merged < 0)
        Merged = NicOf[Gpu];
      int Old = NicOf[Gpu];
      for (int &N : NicOf)
        if (N == Old)
          N = Merged;
    }
  NearOf.assign(T.nics().size(), 0);
  for (size_t K = 0; K < T.nics().size(); ++K) {
    std::vector<unsigned> Members;
    for (unsigned Gpu = 0; Gpu < G; ++Gpu)
      if (NicOf[Gpu] == int(K))
        Members.push_back(Gpu);
    if (Members.empty())
      continue;
    NearOf[K] = Members.front();
    if (O.NicNear >= 0 && std::find(Members.begin(), Members.end(),
                                    unsigned(O.NicNear)) != Members.end())
      NearOf[K] = unsigned(O.NicNear);
  }
}

SimProber::Path SimProber::path(unsigned A, unsigned B) const {
  Path P;
  const unsigned NodeA = A / G, NodeB = B / G, GpuA = A % G, GpuB = B % G;
  if (NodeA != NodeB) {
    const ir::Link *Best = nullptr;
    for (const ir::Link &L : T.links())
      if (L.Src.index() == A && L.Dst.index() == B)
        Best = &L;
    const int Nic = NicOf[GpuA];
    P.AlphaUs = Best ? Best->AlphaUs : 10;
    P.BetaUsPerB = Best ? Best->BetaUsPerB : 1e-3;
    if (Nic >= 0 && NearOf[size_t(Nic)] != GpuA)
      P.AlphaUs += O.FarNicAlphaUs;
    P.Uses = {fmt::format("nic-send {} {}", NodeA, Nic),
              fmt::format("nic-recv {} {}", NodeB, NicOf[GpuB])};
    return P;
  }
  for (auto [X, Y] : O.RemoveLinks)
    if ((X == GpuA && Y == GpuB) || (X == GpuB && Y == GpuA)) {
      P.AlphaUs = O.HostAlphaUs;
      P.BetaUsPerB = O.HostBetaUsPerB;
      P.Uses = {fmt::format("host {}", NodeA)};
      return P;
    }
  const ir::Link *Best = nullptr;
  for (const ir::Link &L : T.links())
    if (L.Src.index() == A && L.Dst.index() == B &&
        (!Best ||
         L.BetaUsPerB / L.Multiplicity < Best->BetaUsPerB / Best->Multiplicity))
      Best = &L;
  if (!Best) {
    P.AlphaUs = O.HostAlphaUs;
    P.BetaUsPerB = O.HostBetaUsPerB;
    P.Uses = {fmt::format("host {}", NodeA)};
    return P;
  }
  P.AlphaUs = Best->AlphaUs;
  P.BetaUsPerB = Best->BetaUsPerB / std::max(1u, Best->Multiplicity);
  if (Best->Switch >= 0)
    P.Uses = {fmt::format("out {} {}", Best->Switch, A),
              fmt::format("in {} {}", Best->Switch, B)};
  else
    P.Uses = {fmt::format("link {} {}", A, B)};
  return P;
}

double SimProber::noisy(double Seconds) {
  const double U1 = (double(Rng()) + 1) / 4294967297.0;
  const double U2 = (double(Rng()) + 1) / 4294967297.0;
  const double Z =
      std::sqrt(-2 * std::log(U1)) * std::cos(6.283185307179586 * U2);
  return Seconds * std::max(0.5, 1 + O.Noise * Z);
}

double SimProber::sequential(unsigned A, unsigned B, double Bytes, unsigned N) {
  Path P = path(A, B);
  return noisy(N * (P.AlphaUs + P.BetaUsPerB * Bytes) * 1e-6);
}

double SimProber::concurrent(unsigned A, unsigned B, double Bytes, unsigned N) {
  Path P = path(A, B);
  return noisy((P.AlphaUs + N * P.BetaUsPerB * Bytes) * 1e-6);
}

double
SimProber::together(const std::vector<std::pair<unsigned, unsigned>> &Pairs,
                    double Bytes) {
  std::vector<Path> Ps;
  std::map<std::string, unsigned> Count;
  for (auto [A, B] : Pairs) {
    Ps.push_back(path(A, B));
    for (const std::string &U : Ps.back().Uses)
      ++Count[U];
  }
  double Slowest = 0;
  for (const Path &P : Ps) {
    unsigned Load = 1;
    for (const std::string &U : P.Uses)
      Load = std::max(Load, Count[U]);
    Slowest = std::max(Slowest, P.AlphaUs + P.BetaUsPerB * Bytes * Load);
  }
  return noisy(Slowest * 1e-6);
}

std::string SimProber::describe() const {
  return fmt::format("simulated {} ({} GPUs per node, {} node(s) measured, "
                     "noise {:g}%)",
                     Name, G, Nodes, O.Noise * 100);
}
