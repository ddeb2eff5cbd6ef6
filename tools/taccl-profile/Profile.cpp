//===- tools/taccl-profile/Profile.cpp - From timings to a machine --------===//
//
// profileMachine() (Profile.h): measurement, clustering, the interference
// tests and the renumbering search (a backtracking search for an
// automorphism, first candidate in ascending order, so the result is
// deterministic).
//
//===----------------------------------------------------------------------===//
#include "Profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

using namespace tacclc::profile;

namespace {

using Pair = std::pair<unsigned, unsigned>;

// Bandwidth-bound for interference, even on the fastest fabrics (16 MiB
// take about 35 us at 450 GB/s, well above launch overheads).
constexpr double ProbeBytes = 16 << 20;

PairFit measure(Prober &P, unsigned A, unsigned B, const ProfileOptions &O) {
  PairFit F;
  F.A = A;
  F.B = B;
  for (double S : O.Sizes)
    for (unsigned N : O.Counts) {
      F.Samples.push_back({false, N, S, P.sequential(A, B, S, N)});
      F.Samples.push_back({true, N, S, P.concurrent(A, B, S, N)});
    }
  F.Fit = fitAlphaBeta(F.Samples);
  return F;
}

double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  return V.size() % 2 ? V[V.size() / 2]
                      : (V[V.size() / 2 - 1] + V[V.size() / 2]) / 2;
}

/// Whether transfers on \p X and \p Y slow each other.
bool interfere(Prober &P, Pair X, Pair Y, double Threshold) {
  double Alone =
      std::max(P.together({X}, ProbeBytes), P.together({Y}, ProbeBytes));
  return P.together({X, Y}, ProbeBytes) > Threshold * Alone;
}

/// Up to three couples of pairs of \p Pairs chosen by \p Fits.
std::vector<std::pair<Pair, Pair>>
couples(const std::vector<Pair> &Pairs,
        const std::function<bool(Pair, Pair)> &Fits) {
  std::vector<std::pair<Pair, Pair>> Out;
  for (size_t I = 0; I < Pairs.size() && Out.size() < 3; ++I)
    for (size_t J = I + 1; J < Pairs.size() && Out.size() < 3; ++J)
      if (Fits(Pairs[I], Pairs[J])) {
        Out.push_back({Pairs[I], Pairs[J]});
        break;
      }
  return Out;
}

/// Majority vote of the interference test over \p Cs.
bool mostlyInterfere(Prober &P, const std::vector<std::pair<Pair, Pair>> &Cs,
                     double Threshold) {
  unsigned Yes = 0;
  for (auto [X, Y] : Cs)
    Yes += interfere(P, X, Y, Threshold);
  return !Cs.empty() && 2 * Yes > Cs.size();
}

/// Step 1: fits every ordered pair of node 0's GPUs, and each GPU to its
/// counterpart on node 1 when there are two nodes.
void measurePairs(Prober &P, const ProfileOptions &O, MachineModel &M) {
  const unsigned G = M.GpusPerNode;
  for (unsigned A = 0; A < G; ++A)
    for (unsigned B = 0; B < G; ++B)
      if (A != B)
        M.Intra.push_back(measure(P, A, B, O));
  if (M.Nodes > 1)
    for (unsigned A = 0; A < G; ++A)
      M.Inter.push_back(measure(P, A, G + A, O));
}

/// Step 2: clusters the intra-node pairs into classes by bandwidth (pairs
/// whose timings fit no alpha-beta line are left out, and said so); returns
/// the members (indices into M.Intra) of each class.
std::vector<std::vector<size_t>> clusterByBandwidth(const ProfileOptions &O,
                                                    MachineModel &M) {
  std::vector<size_t> Order;
  for (size_t I = 0; I < M.Intra.size(); ++I) {
    const PairFit &F = M.Intra[I];
    if (F.Fit.Ok && F.Fit.BetaUsPerB > 0)
      Order.push_back(I);
    else
      M.Notes.push_back(fmt::format("GPU {} to GPU {}: the timings fit no "
                                    "alpha and beta; left out.",
                                    F.A, F.B));
  }
  std::stable_sort(Order.begin(), Order.end(), [&](size_t X, size_t Y) {
    return M.Intra[X].Fit.BetaUsPerB < M.Intra[Y].Fit.BetaUsPerB;
  });
  std::vector<std::vector<size_t>> Members;
  for (size_t K = 0; K < Order.size(); ++K) {
    const double Beta = M.Intra[Order[K]].Fit.BetaUsPerB;
    if (K == 0 || Beta > O.ClassGap * M.Intra[Order[K - 1]].Fit.BetaUsPerB)
      Members.emplace_back();
    Members.back().push_back(Order[K]);
    M.Intra[Order[K]].Class = int(Members.size() - 1);
  }
  return Members;
}

/// How many classes of each kind have been named so far.
struct ClassCounts {
  unsigned Links = 0, Switches = 0, Paths = 0;
};

/// Step 3, for one class with members \p Ms: its median costs, and what
/// its transfers share (a path, a switch, or nothing: links).
MeasuredClass measureClass(Prober &P, const ProfileOptions &O,
                           const MachineModel &M, const std::vector<size_t> &Ms,
                           ClassCounts &N) {
  MeasuredClass C;
  std::vector<double> Alphas, Betas;
  std::vector<Pair> Pairs;
  std::vector<unsigned> Gpus;
  for (size_t I : Ms) {
    Alphas.push_back(M.Intra[I].Fit.AlphaUs);
    Betas.push_back(M.Intra[I].Fit.BetaUsPerB);
    C.WorstResidual = std::max(C.WorstResidual, M.Intra[I].Fit.Residual);
    Pairs.push_back({M.Intra[I].A, M.Intra[I].B});
    Gpus.push_back(M.Intra[I].A);
    Gpus.push_back(M.Intra[I].B);
  }
  std::sort(Gpus.begin(), Gpus.end());
  Gpus.erase(std::unique(Gpus.begin(), Gpus.end()), Gpus.end());
  C.AlphaUs = median(Alphas);
  C.BetaUsPerB = median(Betas);
  C.Pairs = unsigned(Ms.size());
  auto Disjoint = [](Pair X, Pair Y) {
    return X.first != Y.first && X.first != Y.second && X.second != Y.first &&
           X.second != Y.second;
  };
  auto SameSource = [](Pair X, Pair Y) {
    return X.first == Y.first && X.second != Y.second;
  };
  // Without two pairs that share no GPU, a pair and its reverse: a link
  // carries both directions at once, a shared path does not.
  auto Reverse = [](Pair X, Pair Y) {
    return X.first == Y.second && X.second == Y.first;
  };
  auto Shared = couples(Pairs, Disjoint);
  if (Shared.empty())
    Shared = couples(Pairs, Reverse);
  if (mostlyInterfere(P, Shared, O.Interference)) {
    C.Kind = MeasuredClass::SharedPath;
    C.Name = fmt::format("path{}", N.Paths++);
  } else if (Ms.size() == Gpus.size() * (Gpus.size() - 1) && Gpus.size() > 2 &&
             mostlyInterfere(P, couples(Pairs, SameSource), O.Interference)) {
    C.Kind = MeasuredClass::Switch;
    C.Name = fmt::format("switch{}", N.Switches++);
  } else {
    C.Kind = MeasuredClass::Links;
    C.Name = fmt::format("link{}", N.Links++);
  }
  return C;
}

/// The NICs: groups of local GPUs whose network transfers slow each other,
/// each in the order of its GPUs, into M.Nics.
void groupNics(Prober &P, const ProfileOptions &O, MachineModel &M) {
  const unsigned G = M.GpusPerNode;
  std::vector<unsigned> Group(G);
  std::iota(Group.begin(), Group.end(), 0);
  std::function<unsigned(unsigned)> Find = [&](unsigned X) {
    return Group[X] == X ? X : Group[X] = Find(Group[X]);
  };
  for (unsigned A = 0; A < G; ++A)
    for (unsigned B = A + 1; B < G; ++B)
      if (Find(A) != Find(B) &&
          interfere(P, {A, G + A}, {B, G + B}, O.Interference))
        Group[Find(B)] = Find(A);
  std::vector<int> NicOfRoot(G, -1);
  for (unsigned A = 0; A < G; ++A) {
    unsigned R = Find(A);
    if (NicOfRoot[R] < 0) {
      NicOfRoot[R] = int(M.Nics.size());
      M.Nics.emplace_back();
    }
    M.Nics[size_t(NicOfRoot[R])].push_back(A);
  }
}

/// The network class (without its latency) from the inter-node fits,
/// which it becomes the class of.
void addNetworkClass(MachineModel &M) {
  MeasuredClass Net;
  Net.Kind = MeasuredClass::Network;
  Net.Name = "net";
  std::vector<double> Betas;
  for (PairFit &F : M.Inter) {
    Betas.push_back(F.Fit.BetaUsPerB);
    Net.WorstResidual = std::max(Net.WorstResidual, F.Fit.Residual);
    F.Class = int(M.Classes.size());
  }
  Net.BetaUsPerB = median(Betas);
  Net.Pairs = unsigned(M.Inter.size());
  M.NetClass = int(M.Classes.size());
  M.Classes.push_back(Net);
}

/// The GPU next to each NIC (the first of its GPUs unless one is clearly
/// faster), and the network class's latency: the median of theirs.
void findNicNeighbours(MachineModel &M) {
  for (const std::vector<unsigned> &Nic : M.Nics) {
    unsigned Near = Nic.front();
    for (unsigned Gpu : Nic)
      if (M.Inter[Gpu].Fit.AlphaUs < M.Inter[Near].Fit.AlphaUs)
        Near = Gpu;
    // Not distinct unless clearly faster than the others' median.
    std::vector<double> Others;
    for (unsigned Gpu : Nic)
      if (Gpu != Near)
        Others.push_back(M.Inter[Gpu].Fit.AlphaUs);
    if (!Others.empty() && median(Others) < 1.08 * M.Inter[Near].Fit.AlphaUs)
      Near = Nic.front();
    M.NicNear.push_back(Near);
  }
  // The class's latency: the GPU next to each NIC (their median).
  std::vector<double> NearAlphas;
  for (unsigned Near : M.NicNear)
    NearAlphas.push_back(M.Inter[Near].Fit.AlphaUs);
  M.Classes[size_t(M.NetClass)].AlphaUs = median(NearAlphas);
}

/// The first automorphism of the link colouring \p Color (class per
/// ordered pair, -1 for none) that maps \p First to 0, trying GPUs in
/// ascending order; empty when there is none.
std::vector<int> findAutomorphism(const std::vector<std::vector<int>> &Color,
                                  unsigned First) {
  const unsigned G = unsigned(Color.size());
  std::vector<int> Map(G, -1);
  std::vector<bool> Used(G, false);
  std::vector<unsigned> Seq{First};
  for (unsigned X = 0; X < G; ++X)
    if (X != First)
      Seq.push_back(X);
  std::function<bool(size_t)> Place = [&](size_t K) {
    if (K == Seq.size())
      return true;
    const unsigned U = Seq[K];
    for (unsigned V = 0; V < G; ++V) {
      if (Used[V] || (K == 0 && V != 0))
        continue;
      bool Ok = true;
      for (size_t J = 0; J < K && Ok; ++J) {
        const unsigned W = Seq[J], Mw = unsigned(Map[W]);
        Ok = Color[U][W] == Color[V][Mw] && Color[W][U] == Color[Mw][V];
      }
      if (!Ok)
        continue;
      Map[U] = int(V);
      Used[V] = true;
      if (Place(K + 1))
        return true;
      Used[V] = false;
      Map[U] = -1;
    }
    return false;
  };
  if (!Place(0))
    return {};
  return Map;
}

/// Step 4: the identity numbering, or with one NIC an automorphism of the
/// links that puts the GPU next to the NIC at 0 (said in a note either way).
void renumber(MachineModel &M) {
  const unsigned G = M.GpusPerNode;
  M.Numbering.resize(G);
  std::iota(M.Numbering.begin(), M.Numbering.end(), 0);
  if (M.Nics.size() != 1 || M.NicNear[0] == 0)
    return;
  std::vector<std::vector<int>> Color(G, std::vector<int>(G, -1));
  for (const PairFit &F : M.Intra)
    if (F.Class >= 0 &&
        M.Classes[size_t(F.Class)].Kind != MeasuredClass::SharedPath)
      Color[F.A][F.B] = F.Class;
  std::vector<int> Map = findAutomorphism(Color, M.NicNear[0]);
  if (!Map.empty()) {
    for (unsigned X = 0; X < G; ++X)
      M.Numbering[X] = unsigned(Map[X]);
    M.Notes.push_back(fmt::format(
        "GPUs renumbered (measured GPU g is written as GPU n(g)): n = [{}], "
        "an automorphism of the links that puts the GPU next to the NIC "
        "at 0.",
        fmt::join(M.Numbering, ", ")));
  } else {
    M.Notes.push_back(fmt::format(
        "The GPU next to the NIC is GPU {}; no renumbering that keeps the "
        "links puts it at 0.",
        M.NicNear[0]));
  }
}

} // namespace

MachineModel tacclc::profile::profileMachine(Prober &P,
                                             const ProfileOptions &O) {
  MachineModel M;
  M.Name = O.Name;
  M.Date = O.Date;
  M.Source = P.describe();
  M.GpusPerNode = P.gpusPerNode();
  M.Nodes = P.nodes();
  measurePairs(P, O, M);
  std::vector<std::vector<size_t>> Members = clusterByBandwidth(O, M);
  ClassCounts Counts;
  for (const std::vector<size_t> &Ms : Members)
    M.Classes.push_back(measureClass(P, O, M, Ms, Counts));
  // The network: NICs are the GPUs whose transfers slow each other.
  if (!M.Inter.empty()) {
    groupNics(P, O, M);
    addNetworkClass(M);
    findNicNeighbours(M);
  }
  renumber(M);
  return M;
}
