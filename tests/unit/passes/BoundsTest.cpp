//===- tests/unit/passes/BoundsTest.cpp - Lower bounds on collectives -----===//
//
// Our bound table (NDv2, DGX-2, DGX-A100, DGX-H100 of 2 to 8 nodes and
// DGX-1, at the vendors' nominal link speeds):
// allgather, allreduce and alltoall algbw to the table's rounding and the
// cut it names; closed forms on a ring of 4 and a star through one switch.
//
//===----------------------------------------------------------------------===//
#include "passes/Bounds.h"
#include "passes/FlowNetwork.h"
#include "sim/Simulator.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
constexpr double GB = 1e3; // bytes per microsecond in one GB/s

double beta(double GBps) { return 1 / (GBps * GB); }

/// \p Nodes nodes of \p Gpus GPUs: intra-node links from \p Intra, and a
/// NIC of \p NicGBps per group of \p PerNic consecutive GPUs. Inter-node
/// links join every GPU pair of different nodes (as `relay all` does), or
/// only those \p Wired allows.
Topology machine(unsigned Nodes, unsigned Gpus, unsigned PerNic, double NicGBps,
                 const std::function<void(Topology &, unsigned)> &Intra,
                 const std::function<bool(unsigned, unsigned)> &Wired = {}) {
  Topology T("m", Nodes, Gpus);
  int Ib = T.addClass({"ib", 1.3, beta(NicGBps), {}});
  for (unsigned N = 0; N < Nodes; ++N) {
    Intra(T, N);
    for (unsigned G = 0; G < Gpus; G += PerNic) {
      Nic Nc{Ib, {}};
      for (unsigned I = 0; I < PerNic; ++I)
        Nc.Ranks.push_back(RankId(N * Gpus + G + I));
      T.addNic(Nc);
    }
  }
  for (unsigned A = 0; A < Nodes * Gpus; ++A)
    for (unsigned B = 0; B < Nodes * Gpus; ++B)
      if (A / Gpus != B / Gpus && (!Wired || Wired(A % Gpus, B % Gpus)))
        T.addLink({RankId(A), RankId(B), 1.3, beta(NicGBps), Ib});
  return T;
}

/// The DGX-1 / NDv2 hybrid cube-mesh of node \p N at 25 GB/s per NVLink.
void cubeMesh(Topology &T, unsigned N) {
  int Nv = -1;
  for (size_t C = 0; C < T.classes().size(); ++C)
    if (T.classes()[C].Name == "nvlink")
      Nv = static_cast<int>(C);
  if (Nv < 0)
    Nv = T.addClass({"nvlink", 0.7, beta(25), {}});
  const unsigned Pairs[][3] = {{0, 1, 2}, {0, 4, 2}, {1, 3, 2}, {2, 3, 2},
                               {2, 6, 2}, {4, 5, 2}, {5, 7, 2}, {6, 7, 2},
                               {0, 2, 1}, {0, 3, 1}, {1, 2, 1}, {1, 5, 1},
                               {3, 7, 1}, {4, 6, 1}, {4, 7, 1}, {5, 6, 1}};
  for (auto [A, B, X] : Pairs)
    for (auto [S, D] : {std::pair(A, B), std::pair(B, A)})
      T.addLink({RankId(N * 8 + S), RankId(N * 8 + D), 0.7, beta(25), Nv, X});
}

/// A switch of \p GBps per GPU port joining the GPUs of node \p N.
std::function<void(Topology &, unsigned)> nvSwitch(unsigned Gpus, double GBps) {
  return [=](Topology &T, unsigned N) {
    if (N == 0) {
      int C = T.addClass({"nvswitch", 0.7, beta(GBps), {}});
      Switch S{"nvs", C, {}, SwitchPolicy::Free};
      T.addSwitch(S);
    }
    Switch &S = T.switchAt(0);
    S.Groups.emplace_back();
    for (unsigned G = 0; G < Gpus; ++G)
      S.Groups.back().push_back(RankId(N * Gpus + G));
    for (unsigned A = 0; A < Gpus; ++A)
      for (unsigned B = 0; B < Gpus; ++B)
        if (A != B)
          T.addLink({RankId(N * Gpus + A), RankId(N * Gpus + B), 0.7,
                     beta(GBps), S.Class, 1, 0});
  };
}

/// algbw in GB/s of \p C's cut bound at 1 GB.
CollectiveBounds bounds(const Topology &T, BoundCollective C) {
  std::string Error;
  auto B = computeBounds(T, C, 1e9, 0, Error);
  REQUIRE(B);
  return *B;
}
double algbw(const Bound &B) { return 1e9 / B.TimeUs / GB; }

/// \p V printed with \p Decimals decimals is \p Want.
bool rounded(double V, double Want, int Decimals) {
  return std::fabs(V - Want) <= 0.5 * std::pow(10, -Decimals) + 1e-9;
}

bool through(const Cut &C, const std::string &Word) {
  for (const auto &[Name, GBps] : C.Through)
    if (Name.find(Word) != std::string::npos)
      return true;
  return false;
}

struct Row {
  const char *Name;
  Topology T;
  double AG, AR, A2A;
  int Decimals, A2ADecimals;
  CutKind Kind; ///< Of the allgather's binding cut.
  double CutGBps;
};

void checkRow(const Row &R) {
  std::string Name = R.Name;
  CAPTURE(Name);
  CollectiveBounds AG = bounds(R.T, BoundCollective::AllGather);
  CollectiveBounds AR = bounds(R.T, BoundCollective::AllReduce);
  CAPTURE(AG.CutBound.Why);
  CHECK(rounded(algbw(AG.CutBound), R.AG, R.Decimals));
  CHECK(rounded(algbw(AR.CutBound), R.AR, R.Decimals));
  CHECK(AG.LimitedBy == "cut");
  CHECK(AR.LimitedBy == "cut");
  CHECK(AG.Binding.Kind == R.Kind);
  CHECK(AG.Binding.Capacity == doctest::Approx(R.CutGBps * GB));
  if (R.Kind == CutKind::Rank) {
    CHECK(AG.Binding.Into); // ingress
    CHECK(through(AG.Binding, "switch nvs port into"));
  } else {
    CHECK(through(AG.Binding, "nic of"));
  }
  if (R.A2A > 0) {
    CollectiveBounds A2A = bounds(R.T, BoundCollective::AllToAll);
    CAPTURE(A2A.CutBound.Why);
    CHECK(rounded(algbw(A2A.CutBound), R.A2A, R.A2ADecimals));
    CHECK(A2A.Binding.Kind == CutKind::Nodes);
    CHECK(through(A2A.Binding, "nic of"));
    CHECK(A2A.CutExact == (R.T.getNumRanks() <= 16));
  }
}
} // namespace

TEST_CASE("bounds: NDv2 rows of the table (NIC of 12.5 GB/s per node)") {
  auto Nd = [](unsigned K) { return machine(K, 8, 8, 12.5, cubeMesh); };
  checkRow({"NDv2x2", Nd(2), 25.0, 12.5, 3.125, 1, 3, CutKind::Nodes, 12.5});
  checkRow({"NDv2x4", Nd(4), 16.7, 8.3, 2.08, 1, 2, CutKind::Nodes, 12.5});
  checkRow({"NDv2x8", Nd(8), 14.3, 7.1, 1.79, 1, 2, CutKind::Nodes, 12.5});
}

TEST_CASE("bounds: DGX-2 rows (TE-CCL wiring: odd GPU -> even GPU)") {
  // The table's DGX-2 rows count only the 125 GB/s NVSwitch port into a
  // GPU: TE-CCL's model, where IB links run from odd GPUs to even GPUs of
  // the other nodes only, so odd GPUs receive from the switch alone.
  auto Dgx2 = [](unsigned K) {
    return machine(K, 16, 2, 12.5, nvSwitch(16, 125),
                   [](unsigned A, unsigned B) { return A % 2 && !(B % 2); });
  };
  checkRow({"DGX-2x2", Dgx2(2), 129.0, 64.5, 12.5, 1, 1, CutKind::Rank, 125});
  checkRow({"DGX-2x4", Dgx2(4), 127.0, 63.5, 8.33, 1, 2, CutKind::Rank, 125});
  checkRow({"DGX-2x8", Dgx2(8), 114.3, 57.1, 7.14, 1, 2, CutKind::Nodes, 100});
}

TEST_CASE("bounds: DGX-2 with every GPU pair over the NICs (as instantiated)") {
  // With `relay all` every GPU also receives through its NIC, shared with
  // its neighbour: a GPU's ingress is 125 + 12.5 GB/s, more than the table
  // assumes, and the node's 100 GB/s of NICs binds from 4 nodes on.
  auto Dgx2 = [](unsigned K) {
    return machine(K, 16, 2, 12.5, nvSwitch(16, 125));
  };
  CollectiveBounds X2 = bounds(Dgx2(2), BoundCollective::AllGather);
  CHECK(algbw(X2.CutBound) == doctest::Approx(137.5 * 32 / 31));
  CHECK(X2.Binding.Kind == CutKind::Rank);
  CHECK(through(X2.Binding, "nic of"));
  CollectiveBounds X4 = bounds(Dgx2(4), BoundCollective::AllGather);
  CHECK(algbw(X4.CutBound) == doctest::Approx(100.0 * 4 / 3));
  CHECK(X4.Binding.Kind == CutKind::Nodes);
}

TEST_CASE("bounds: DGX-A100 and DGX-H100 rows (NIC per GPU)") {
  auto A100 = [](unsigned K) { return machine(K, 8, 1, 25, nvSwitch(8, 300)); };
  auto H100 = [](unsigned K) { return machine(K, 8, 1, 50, nvSwitch(8, 450)); };
  checkRow({"A100x2", A100(2), 346.7, 173.3, 50.0, 1, 1, CutKind::Rank, 325});
  checkRow({"A100x4", A100(4), 266.7, 133.3, 33.3, 1, 1, CutKind::Nodes, 200});
  checkRow({"A100x8", A100(8), 228.6, 114.3, 28.6, 1, 1, CutKind::Nodes, 200});
  checkRow({"H100x2", H100(2), 533.3, 266.7, 100, 1, 0, CutKind::Rank, 500});
  checkRow({"H100x4", H100(4), 516.1, 258.1, 66.7, 1, 1, CutKind::Rank, 500});
  checkRow({"H100x8", H100(8), 457.1, 228.6, 57.1, 1, 1, CutKind::Nodes, 400});
}

TEST_CASE("bounds: DGX-1, 6 NVLinks of 25 GB/s into each GPU") {
  Topology T("dgx1", 8);
  cubeMesh(T, 0);
  CollectiveBounds AG = bounds(T, BoundCollective::AllGather);
  CHECK(rounded(algbw(AG.CutBound), 171.4, 1));
  CHECK(
      rounded(algbw(bounds(T, BoundCollective::AllReduce).CutBound), 85.7, 1));
  CHECK(AG.Binding.Kind == CutKind::Rank);
  CHECK(AG.Binding.Capacity == doctest::Approx(150 * GB));
}

namespace {
Topology ring4(bool Both, double GBps = 10, double Alpha = 2) {
  Topology T("ring", 4);
  for (unsigned R = 0; R < 4; ++R) {
    T.addLink({RankId(R), RankId((R + 1) % 4), Alpha, beta(GBps)});
    if (Both)
      T.addLink({RankId((R + 1) % 4), RankId(R), Alpha, beta(GBps)});
  }
  return T;
}
} // namespace

TEST_CASE("bounds: closed forms on a ring of 4") {
  const double M = 1e9, C = 10 * GB;
  Topology Uni = ring4(false);
  CHECK(bounds(Uni, BoundCollective::AllGather).CutBound.TimeUs ==
        doctest::Approx(3 * M / (4 * C)));
  CHECK(bounds(Uni, BoundCollective::ReduceScatter).CutBound.TimeUs ==
        doctest::Approx(3 * M / (4 * C)));
  CHECK(bounds(Uni, BoundCollective::AllToAll).CutBound.TimeUs ==
        doctest::Approx(M / C)); // two adjacent ranks: 2 x 2 shards, 1 link
  CHECK(bounds(Uni, BoundCollective::Broadcast).CutBound.TimeUs ==
        doctest::Approx(M / C));
  CollectiveBounds Lat = bounds(Uni, BoundCollective::AllGather);
  CHECK(Lat.Latency.TimeUs == doctest::Approx(3 * 2.0)); // 3 hops of alpha 2
  Topology Bi = ring4(true);
  CHECK(bounds(Bi, BoundCollective::AllGather).CutBound.TimeUs ==
        doctest::Approx(3 * M / (8 * C)));
  CHECK(bounds(Bi, BoundCollective::AllReduce).CutBound.TimeUs ==
        doctest::Approx(3 * M / (4 * C)));
  CHECK(bounds(Bi, BoundCollective::AllToAll).CutBound.TimeUs ==
        doctest::Approx(M / (2 * C)));
  CollectiveBounds Bc = bounds(Bi, BoundCollective::Broadcast);
  CHECK(Bc.CutBound.TimeUs == doctest::Approx(M / (2 * C)));
  CHECK(Bc.Latency.TimeUs == doctest::Approx(2 * 2.0));
  // Latency binds a tiny message.
  std::string Error;
  auto Tiny = computeBounds(Bi, BoundCollective::AllGather, 4, 0, Error);
  REQUIRE(Tiny);
  CHECK(Tiny->LimitedBy == "latency");
  CHECK(Tiny->Combined.TimeUs == doctest::Approx(4.0));
}

TEST_CASE("bounds: a star through one switch counts each port once") {
  // Each GPU's switch port carries 10 GB/s however many of its 3 logical
  // links are used at once.
  Topology T("star", 4);
  int Cl = T.addClass({"sw", 1, beta(10), {}});
  T.addSwitch({"s", Cl, {{RankId(0), RankId(1), RankId(2), RankId(3)}}, {}});
  for (unsigned A = 0; A < 4; ++A)
    for (unsigned B = 0; B < 4; ++B)
      if (A != B)
        T.addLink({RankId(A), RankId(B), 1, beta(10), Cl, 1, 0});
  const double M = 1e9, P = 10 * GB;
  CollectiveBounds AG = bounds(T, BoundCollective::AllGather);
  CHECK(AG.CutBound.TimeUs == doctest::Approx(3 * M / (4 * P)));
  CHECK(AG.PerRank.TimeUs == doctest::Approx(3 * M / (4 * P)));
  CHECK(AG.Binding.Kind == CutKind::Rank);
  CHECK(AG.Binding.Description.find("switch s port into") != std::string::npos);
  CHECK(bounds(T, BoundCollective::AllToAll).CutBound.TimeUs ==
        doctest::Approx(3 * M / (4 * P)));
  CHECK(bounds(T, BoundCollective::Reduce).CutBound.TimeUs ==
        doctest::Approx(M / P));
  // Allreduce: 2(N-1) transfers of each element into 4 ports of P.
  CHECK(bounds(T, BoundCollective::AllReduce).PerRank.TimeUs ==
        doctest::Approx(6 * M / (4 * P)));
  FlowNetwork G = buildFlowNetwork(T);
  CHECK(G.NumVertices == 4 + 2 * 8);
}

TEST_CASE("bounds: the latency bound under the protocols' costs") {
  // Two nodes of two GPUs: NVLink pairs (alpha 0.1 us) and one network
  // link each way between GPU 0 of each node (alpha 1 us). Allgather's
  // farthest pair is GPU 0:1 -> GPU 1:1: NVLink, network, NVLink.
  Topology T("two-by-two", 2, 2);
  auto Link = [&](unsigned A, unsigned B, double Alpha) {
    T.addLink({RankId(A), RankId(B), Alpha, beta(10)});
    T.addLink({RankId(B), RankId(A), Alpha, beta(10)});
  };
  Link(0, 1, 0.1);
  Link(2, 3, 0.1);
  Link(0, 2, 1.0);
  std::string Error;
  auto Alpha = computeBounds(T, BoundCollective::AllGather, 1024, 0, Error);
  REQUIRE(Alpha);
  CHECK(Alpha->Latency.TimeUs == doctest::Approx(0.1 + 1.0 + 0.1));
  CHECK(Alpha->Latency.Why.find("alpha-only") != std::string::npos);
  // LL is the fastest protocol's floor: its launch, then every hop at
  // least its per-hop latency (NVLink and network).
  auto Proto = computeBounds(T, BoundCollective::AllGather, 1024, 0, Error,
                             BoundsModel{true});
  REQUIRE(Proto);
  const auto LL = tacclrt::protocolCosts(tacclrt::Protocol::LL);
  const double Want =
      LL.LaunchUs + 2 * std::max(0.1, LL.HopUs[0]) + std::max(1.0, LL.HopUs[1]);
  CHECK(Proto->Latency.TimeUs == doctest::Approx(Want));
  CHECK(Proto->Latency.Why.rfind("LL ", 0) == 0);
  CHECK(Proto->LimitedBy == "latency");
  // No protocol beats LL's floor here.
  for (auto P : {tacclrt::Protocol::LL128, tacclrt::Protocol::Simple}) {
    const auto C = tacclrt::protocolCosts(P);
    CHECK(C.LaunchUs + 2 * std::max(0.1, C.HopUs[0]) +
              std::max(1.0, C.HopUs[1]) >=
          Want);
  }
}

TEST_CASE("bounds: unreachable ranks and bad roots are errors") {
  Topology T("two", 2);
  T.addLink({RankId(0), RankId(1), 1, beta(1)});
  std::string Error;
  CHECK_FALSE(computeBounds(T, BoundCollective::AllGather, 1e6, 0, Error));
  CHECK(Error.find("cannot reach") != std::string::npos);
  CHECK(computeBounds(T, BoundCollective::Broadcast, 1e6, 0, Error));
  CHECK_FALSE(computeBounds(T, BoundCollective::Broadcast, 1e6, 5, Error));
  CHECK(parseBoundCollective("alltoall") == BoundCollective::AllToAll);
  CHECK_FALSE(parseBoundCollective("gather"));
}
