//===- tests/unit/profile/ProfileTest.cpp - The profiler without GPUs -----===//
//
// taccl-profile's inference against simulated machines (SimProber): the
// stdlib machines plus noise, a hidden host path, a NIC shared in secret, a
// missing link and a NIC next to another GPU must come back as the machine
// that was simulated. Tolerances: alpha within 10% (+0.02 us), beta within
// 5%, every link, switch membership and NIC group exact.
//
//===----------------------------------------------------------------------===//
#include "Profile.h"
#include "SimProber.h"

#include "frontend/MachineRef.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace tacclc;
using namespace tacclc::profile;

namespace {

ir::Topology instantiate(const std::string &Ref) {
  std::optional<ir::Topology> T = instantiateMachine(Ref, {});
  REQUIRE(T);
  return std::move(*T);
}

/// The text \p Text as a temporary .sketch file, removed when it goes.
struct TempSketch {
  llvm::SmallString<128> Path;
  explicit TempSketch(const std::string &Text) {
    int Fd = -1;
    REQUIRE(!llvm::sys::fs::createTemporaryFile("profile", "sketch", Fd, Path));
    llvm::raw_fd_ostream OS(Fd, /*shouldClose=*/true);
    OS << Text;
  }
  ~TempSketch() { llvm::sys::fs::remove(Path); }
};

/// Profiles \p Ref under \p O; the written text and the machine it
/// describes on two nodes.
std::pair<std::string, ir::Topology> recover(const std::string &Ref,
                                             const SimOptions &O,
                                             MachineModel *Model = nullptr) {
  SimProber P(instantiate(Ref), O, Ref);
  ProfileOptions PO;
  PO.Date = "2026-12-03";
  MachineModel M = profileMachine(P, PO);
  std::string Text = writeSketch(M);
  if (Model)
    *Model = M;
  TempSketch F(Text);
  return {Text, instantiate(std::string(F.Path) + ":measured(nodes: 2)")};
}

struct Cost {
  double Alpha = 0, Beta = 0;
  bool Switched = false;
};

/// Node 0's links (fastest per pair, beta per multiplicity), minus
/// \p Removed.
std::map<std::pair<unsigned, unsigned>, Cost>
intraLinks(const ir::Topology &T,
           const std::vector<std::pair<unsigned, unsigned>> &Removed = {}) {
  std::map<std::pair<unsigned, unsigned>, Cost> Out;
  const unsigned G = T.getGpusPerNode();
  for (const ir::Link &L : T.links()) {
    unsigned A = L.Src.index(), B = L.Dst.index();
    if (A >= G || B >= G)
      continue;
    bool Gone = false;
    for (auto [X, Y] : Removed)
      Gone |= (X == A && Y == B) || (X == B && Y == A);
    if (Gone)
      continue;
    Cost C{L.AlphaUs, L.BetaUsPerB / L.Multiplicity, L.Switch >= 0};
    auto It = Out.find({A, B});
    if (It == Out.end() || C.Beta < It->second.Beta)
      Out[{A, B}] = C;
  }
  return Out;
}

std::set<std::set<unsigned>> nicGroups(const ir::Topology &T) {
  std::set<std::set<unsigned>> Out;
  for (const ir::Nic &N : T.nics()) {
    std::set<unsigned> Gs;
    for (ir::RankId R : N.Ranks)
      if (R.index() < T.getGpusPerNode())
        Gs.insert(R.index());
    if (!Gs.empty())
      Out.insert(Gs);
  }
  return Out;
}

void checkClose(double Got, double Want, double Rel, double Abs = 0) {
  CHECK(std::abs(Got - Want) <= Rel * Want + Abs);
}

/// The recovered machine \p R against the simulated \p T.
void compare(const ir::Topology &R, const ir::Topology &T,
             const std::vector<std::pair<unsigned, unsigned>> &Removed = {}) {
  REQUIRE(R.getGpusPerNode() == T.getGpusPerNode());
  auto Want = intraLinks(T, Removed), Got = intraLinks(R);
  REQUIRE(Got.size() == Want.size());
  for (const auto &[Pair, C] : Want) {
    INFO("link " << Pair.first << " -> " << Pair.second);
    REQUIRE(Got.count(Pair));
    checkClose(Got[Pair].Alpha, C.Alpha, 0.1, 0.02);
    checkClose(Got[Pair].Beta, C.Beta, 0.05);
    CHECK(Got[Pair].Switched == C.Switched);
  }
  // The network path of GPU 0 (next to its NIC).
  const unsigned G = T.getGpusPerNode();
  auto Net = [&](const ir::Topology &X) {
    for (const ir::Link &L : X.links())
      if (L.Src.index() == 0 && L.Dst.index() == G)
        return Cost{L.AlphaUs, L.BetaUsPerB, false};
    FAIL("no network link from GPU 0");
    return Cost{};
  };
  checkClose(Net(R).Alpha, Net(T).Alpha, 0.1, 0.02);
  checkClose(Net(R).Beta, Net(T).Beta, 0.05);
}

} // namespace

TEST_CASE("alpha and beta from exact timings") {
  std::vector<Sample> S;
  for (double Bytes : {1e3, 1e5, 1e6})
    for (unsigned N : {1u, 4u}) {
      S.push_back({false, N, Bytes, N * (2 + 0.01 * Bytes) * 1e-6});
      S.push_back({true, N, Bytes, (2 + N * 0.01 * Bytes) * 1e-6});
    }
  AlphaBeta F = fitAlphaBeta(S);
  REQUIRE(F.Ok);
  CHECK(F.AlphaUs == doctest::Approx(2).epsilon(1e-9));
  CHECK(F.BetaUsPerB == doctest::Approx(0.01).epsilon(1e-9));
  CHECK(F.Residual < 1e-9);
  CHECK(!fitAlphaBeta({S[0]}).Ok);
  // One size of sequential sends cannot tell alpha from beta.
  CHECK(!fitAlphaBeta({S[0], S[2]}).Ok);
  // Negative alpha (timings below the line through 0) is fixed at 0.
  std::vector<Sample> Low;
  for (double Bytes : {1e3, 1e6})
    Low.push_back({false, 1, Bytes, (0.01 * Bytes - 3) * 1e-6});
  AlphaBeta L = fitAlphaBeta(Low);
  REQUIRE(L.Ok);
  CHECK(L.AlphaUs == 0);
  CHECK(L.BetaUsPerB > 0.007);
  CHECK(L.BetaUsPerB < 0.0105);
}

TEST_CASE("NDv2: two NVLink classes, the PCIe path left out, one NIC") {
  SimOptions O;
  auto [Text, R] = recover("ndv2(nodes: 2)", O);
  compare(R, instantiate("ndv2(nodes: 2)"));
  CHECK(nicGroups(R) == std::set<std::set<unsigned>>{{0, 1, 2, 3, 4, 5, 6, 7}});
  CHECK(Text.find("a shared path, not links") != std::string::npos);
  CHECK(Text.find("measured by taccl-profile on 2026-12-03") !=
        std::string::npos);
}

TEST_CASE("NDv2 with a missing link: the pair goes through the host") {
  SimOptions O;
  O.RemoveLinks = {{0, 1}};
  auto [Text, R] = recover("ndv2(nodes: 2)", O);
  compare(R, instantiate("ndv2(nodes: 2)"), O.RemoveLinks);
}

TEST_CASE("DGX-2: a switch over 16 GPUs, a NIC per GPU pair") {
  SimOptions O;
  O.Noise = 0.02;
  O.Seed = 7;
  auto [Text, R] = recover("dgx2(nodes: 2)", O);
  ir::Topology T = instantiate("dgx2(nodes: 2)");
  compare(R, T);
  CHECK(nicGroups(R) == nicGroups(T));
  CHECK(R.switches().size() == 1);
}

TEST_CASE("DGX-A100 with a NIC shared in secret by GPUs 2 and 3") {
  SimOptions O;
  O.ShareNic = {2, 3};
  auto [Text, R] = recover("a100(nodes: 2)", O);
  compare(R, instantiate("a100(nodes: 2)"));
  std::set<std::set<unsigned>> Want{{0}, {1}, {2, 3}, {4}, {5}, {6}, {7}};
  CHECK(nicGroups(R) == Want);
}

TEST_CASE("the GPU next to the only NIC is renumbered 0 by an automorphism") {
  TempSketch Ring("machine ring(nodes: int = 1) {\n"
                  "  gpus per node = 4\n"
                  "  class nv { alpha = 0.7 us; beta = 20 us/MB }\n"
                  "  class ib { alpha = 2 us; beta = 100 us/MB }\n"
                  "  nic ib\n"
                  "  for n in 0..nodes {\n"
                  "    link nv n:0 <-> n:1, n:1 <-> n:2, n:2 <-> n:3, "
                  "n:3 <-> n:0\n"
                  "  }\n"
                  "}\n");
  SimOptions O;
  O.NicNear = 2;
  MachineModel M;
  auto [Text, R] = recover(std::string(Ring.Path) + ":ring(nodes: 2)", O, &M);
  CHECK(M.NicNear == std::vector<unsigned>{2});
  CHECK(M.Numbering[2] == 0);
  // An automorphism: the written ring is the simulated one.
  compare(R, instantiate(std::string(Ring.Path) + ":ring(nodes: 2)"));
  CHECK(Text.find("GPUs renumbered") != std::string::npos);
}

TEST_CASE("a pair without a link next to a switch: a shared path") {
  // DGX-A100 with GPUs 0 and 1 joined only through the host: the pair has
  // no other pair of its class to be tested against, only its reverse.
  SimOptions O;
  O.RemoveLinks = {{0, 1}};
  MachineModel M;
  auto [Text, R] = recover("a100(nodes: 2)", O, &M);
  auto Links = intraLinks(R);
  CHECK(!Links.count({0, 1}));
  CHECK(!Links.count({1, 0}));
  CHECK(Links.size() == 8 * 7 - 2);
  CHECK(Text.find("a shared path, not links (2 measured pairs)") !=
        std::string::npos);
}

TEST_CASE("the same seed writes the same file") {
  SimOptions O;
  O.Seed = 3;
  CHECK(recover("ndv2(nodes: 2)", O).first ==
        recover("ndv2(nodes: 2)", O).first);
}
