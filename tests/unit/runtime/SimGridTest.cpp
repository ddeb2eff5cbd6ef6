//===- tests/unit/runtime/SimGridTest.cpp - The SimGrid referee -----------===//
//
// The SimGrid engine against the in-house one and against closed forms: the
// ring allgather, slices pipelining around it, the direct alltoall, two
// flows through one port (max-min, and serial service), a link of
// multiplicity 2, protocol costs; then every hand-written XML of the corpus
// on randomised machines (alphas, betas, multiplicities, shared ports,
// protocols, sizes), which must agree within 10%. Also the engine names,
// ns-3's refusal, a deadlock's report, and a program of 34,000
// threadblocks (one SimGrid actor each). Skipped, with a message, in a
// build without SimGrid.
//
//===----------------------------------------------------------------------===//
#include "sim/SimGrid.h"

#include "RuntimeTestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>

using namespace tacclrt;
using namespace tacclrt::test;

namespace {

bool haveSimGrid() {
  std::string Why;
  if (engineAvailable(SimEngineKind::SimGrid, Why))
    return true;
  MESSAGE("skipped: " << Why);
  return false;
}

SimOptions raw() { return rawSimOptions(); }

SimMachine mesh(int N, double Alpha, double Beta, bool Full) {
  return ringMachine(N, Alpha, Beta, Full);
}

/// Both engines on the same call; returns {in-house, SimGrid}.
std::pair<SimResult, SimResult> both(const Algo &A, const SimMachine &M,
                                     const SimOptions &O) {
  SimResult In = simulateOn(SimEngineKind::InHouse, A, M, O, "a.xml");
  SimResult Sg = simulateOn(SimEngineKind::SimGrid, A, M, O, "a.xml");
  return {In, Sg};
}

double relDiff(double X, double Y) {
  return std::abs(X - Y) / std::max({std::abs(X), std::abs(Y), 1e-9});
}

} // namespace

TEST_CASE("simgrid: engine names") {
  CHECK(parseSimEngine("inhouse") == SimEngineKind::InHouse);
  CHECK(parseSimEngine("simgrid") == SimEngineKind::SimGrid);
  CHECK(parseSimEngine("simgrid:cm02") == SimEngineKind::SimGrid);
  CHECK(parseSimEngine("simgrid:lv08") == SimEngineKind::SimGridLv08);
  CHECK(parseSimEngine("simgrid:ns3") == SimEngineKind::SimGridNs3);
  CHECK_FALSE(parseSimEngine("ns3"));
  for (SimEngineKind K :
       {SimEngineKind::InHouse, SimEngineKind::SimGrid,
        SimEngineKind::SimGridLv08, SimEngineKind::SimGridNs3})
    CHECK(parseSimEngine(nameOf(K)) == K);
  std::string Why;
  CHECK(engineAvailable(SimEngineKind::InHouse, Why));
  // The ns-3 binding of the SimGrid we build with is refused, with why.
  CHECK_FALSE(engineAvailable(SimEngineKind::SimGridNs3, Why));
  CHECK_FALSE(Why.empty());
}

TEST_CASE("simgrid: closed forms agree with the in-house engine within 1%") {
  if (!haveSimGrid())
    return;
  SUBCASE("ring allgather") {
    Algo A = loadFixture("allgather_ring4.xml");
    SimOptions O = raw();
    O.Bytes = 1 << 20;
    auto [In, Sg] = both(A, mesh(4, 0.7, 46e-6, false), O);
    REQUIRE_MESSAGE(Sg.Ok, Sg.Issues.str());
    CHECK(Sg.TimeUs == doctest::Approx(3 * (0.7 + 46e-6 * (1 << 18))));
    CHECK(relDiff(In.TimeUs, Sg.TimeUs) < 0.01);
  }
  SUBCASE("slices pipeline around the ring") {
    Algo A = loadFixture("allgather_ring4.xml");
    SimOptions O = raw();
    O.Bytes = 4 << 20;
    O.SliceBytes = 256 << 10;
    O.FifoMessages = 8;
    auto [In, Sg] = both(A, mesh(4, 0, 1e-3, false), O);
    REQUIRE(Sg.Ok);
    CHECK(Sg.Iterations == 4);
    CHECK(Sg.TimeUs == doctest::Approx(12 * 1e-3 * (256 << 10)));
    CHECK(relDiff(In.TimeUs, Sg.TimeUs) < 0.01);
  }
  SUBCASE("direct alltoall, and a link of multiplicity 2") {
    Algo A = loadFixture("alltoall3.xml");
    SimOptions O = raw();
    O.Bytes = 3 * 3000 * 4;
    SimMachine M = mesh(3, 1, 1e-3, true);
    auto [In, Sg] = both(A, M, O);
    REQUIRE(Sg.Ok);
    CHECK(Sg.TimeUs == doctest::Approx(1 + 1e-3 * 12000));
    CHECK(relDiff(In.TimeUs, Sg.TimeUs) < 0.01);
    for (SimLink &L : M.Links)
      L.Multiplicity = 2;
    auto [In2, Sg2] = both(A, M, O);
    REQUIRE(Sg2.Ok);
    CHECK(Sg2.TimeUs == doctest::Approx(1 + 1e-3 * 6000));
    CHECK(relDiff(In2.TimeUs, Sg2.TimeUs) < 0.01);
  }
  SUBCASE("two flows through one port, fair and serial") {
    Algo A = loadFixture("alltoall3.xml");
    const double Beta = 1e-3;
    SimMachine M = sharedPortMachine(Beta);
    SimOptions O = raw();
    O.Bytes = 3 * 3000 * 4;
    auto [In, Sg] = both(A, M, O);
    REQUIRE(Sg.Ok);
    CHECK(Sg.TimeUs == doctest::Approx(12000 * 4 * Beta));
    CHECK(relDiff(In.TimeUs, Sg.TimeUs) < 0.01);
    O.Service = PortService::Serial;
    auto [InS, SgS] = both(A, M, O);
    REQUIRE(SgS.Ok);
    CHECK(SgS.TimeUs == doctest::Approx(12000 * Beta + 12000 * 4 * Beta));
    CHECK(relDiff(InS.TimeUs, SgS.TimeUs) < 0.01);
  }
  SUBCASE("protocol costs and FIFO steps") {
    Algo A = loadFixture("allgather_ring4.xml");
    for (Protocol P : {Protocol::Simple, Protocol::LL, Protocol::LL128}) {
      A.Proto = P;
      SimOptions O;
      O.Bytes = 64 << 20;
      SimMachine M = mesh(4, 0.5, 4e-5, false);
      M.Links[0].Kind = LinkKind::Net;
      auto [In, Sg] = both(A, M, O);
      REQUIRE(Sg.Ok);
      CHECK_MESSAGE(relDiff(In.TimeUs, Sg.TimeUs) < 0.01,
                    "protocol " << static_cast<int>(P) << ": " << In.TimeUs
                                << " vs " << Sg.TimeUs);
    }
  }
}

TEST_CASE("simgrid: the hand-written corpus on random machines agrees "
          "within 10%") {
  if (!haveSimGrid())
    return;
  // The corpus files (tests/xml/README.md: `<collective>-<shape>...`), not
  // the unit tests' fixtures beside them (`<collective>_<shape>...`).
  std::vector<std::filesystem::path> Files;
  for (const auto &E : std::filesystem::directory_iterator(TACCLRT_XML_DIR))
    if (E.path().extension() == ".xml" &&
        E.path().filename().string().find('-') != std::string::npos)
      Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  REQUIRE(Files.size() >= 20);
  std::mt19937 Rng(20261204);
  auto uniform = [&](double Lo, double Hi) {
    return std::uniform_real_distribution<double>(Lo, Hi)(Rng);
  };
  int Compared = 0;
  double Worst = 0;
  for (const auto &F : Files) {
    const bool Legacy =
        F.filename().string().find("legacy") != std::string::npos;
    Report R;
    LoadOptions LO;
    LO.D = Legacy ? Dialect::Legacy : Dialect::Executor;
    std::optional<Algo> A = loadPlanFile(F.string(), LO, R);
    REQUIRE_MESSAGE(A, F.string() << ": " << R.str());
    for (int Trial = 0; Trial < 2; ++Trial) {
      SimMachine M = mesh(A->NGpus, 0, 0, true);
      // A send port per rank, on some of its links.
      for (int Rk = 0; Rk < A->NGpus; ++Rk)
        M.Ports.push_back({"port", uniform(2e-5, 2e-4)});
      for (SimLink &L : M.Links) {
        L.AlphaUs = uniform(0.2, 5);
        L.BetaUsPerB = uniform(2e-5, 4e-4);
        L.Multiplicity = Rng() % 3 == 0 ? 2 : 1;
        L.Kind = Rng() % 2 ? LinkKind::Net : LinkKind::Intra;
        if (Rng() % 2)
          L.Ports.push_back(L.Src);
      }
      static const Protocol Protos[] = {Protocol::Simple, Protocol::LL,
                                        Protocol::LL128};
      A->Proto = Protos[Rng() % 3];
      static const std::uint64_t Sizes[] = {1 << 10, 64 << 10, 1 << 20,
                                            16 << 20};
      const std::uint64_t Unit = 4 * std::uint64_t(A->NChunksPerLoop);
      SimOptions O;
      O.Bytes = (Sizes[Rng() % 4] + Unit - 1) / Unit * Unit;
      O.Service = Rng() % 4 == 0 ? PortService::Serial : PortService::Fair;
      auto [In, Sg] = both(*A, M, O);
      REQUIRE_MESSAGE(In.Ok, F.string() << ": " << In.Issues.str());
      REQUIRE_MESSAGE(Sg.Ok, F.string() << ": " << Sg.Issues.str());
      const double D = relDiff(In.TimeUs, Sg.TimeUs);
      Worst = std::max(Worst, D);
      CHECK_MESSAGE(D < 0.10, F.filename().string()
                                  << " trial " << Trial << ": in-house "
                                  << In.TimeUs << " us, SimGrid " << Sg.TimeUs
                                  << " us");
      ++Compared;
    }
  }
  MESSAGE(Compared << " calls compared; worst difference " << 100 * Worst
                   << "%");
}

TEST_CASE("simgrid: a deadlock is reported as the in-house engine does") {
  if (!haveSimGrid())
    return;
  // Ring allgather with the first send of rank 0 removed: rank 1 waits for
  // a message that never comes.
  Algo A = loadFixture("allgather_ring4.xml");
  eraseStep(A, 0, 0, 1);
  SimOptions O = raw();
  O.Bytes = 4096;
  auto [In, Sg] = both(A, mesh(4, 1, 1e-3, true), O);
  CHECK_FALSE(In.Ok);
  CHECK_FALSE(Sg.Ok);
  CHECK(findIssue(Sg.Issues, "deadlock"));
  // The same threadblock, step and wait in both.
  CHECK(findIssue(Sg.Issues, "waits for a message", Issue::Note));
  CHECK(Sg.Issues.str() == In.Issues.str());
}

TEST_CASE("simgrid: a machine without the plan's link is refused before "
          "SimGrid starts") {
  if (!haveSimGrid())
    return;
  Algo A = loadFixture("alltoall3.xml");
  SimOptions O = raw();
  O.Bytes = 3 * 3000 * 4;
  SimResult Sg = simulateOn(SimEngineKind::SimGrid, A, mesh(3, 1, 1e-3, false),
                            O, "a.xml");
  CHECK_FALSE(Sg.Ok);
  CHECK(findIssue(Sg.Issues, "no link"));
}

TEST_CASE("simgrid: tens of thousands of threadblocks run (no guard page "
          "per actor)") {
  if (!haveSimGrid())
    return;
  // Allgather on two ranks whose copies are spread over 17,000 threadblocks
  // each: 34,000 actors, which would exhaust the kernel's memory maps
  // (vm.max_map_count, 65,530 by default) with a guard page per actor.
  Algo A = loadFixture("allgather_ring4.xml");
  A.NGpus = 2;
  A.Gpus.resize(2);
  A.NChunksPerLoop = 2;
  constexpr int Tbs = 17000;
  for (int R = 0; R < 2; ++R) {
    Gpu &G = A.Gpus[std::size_t(R)];
    G.Id = R;
    G.IChunks = 1;
    G.OChunks = 2;
    G.SChunks = 0;
    G.Tbs.clear();
    for (int T = 0; T < Tbs; ++T) {
      Tb B;
      B.Id = T;
      Step S;
      S.Type = StepType::Copy;
      S.SrcBuf = BufferKind::Input;
      S.SrcOff = 0;
      S.DstBuf = BufferKind::Output;
      S.DstOff = R;
      S.Cnt = 1;
      B.Steps.push_back(S);
      G.Tbs.push_back(B);
    }
  }
  SimOptions O = raw();
  O.Bytes = 4096;
  SimResult Sg =
      simulateOn(SimEngineKind::SimGrid, A, mesh(2, 1, 1e-3, true), O, "a.xml");
  CHECK_MESSAGE(Sg.Ok, Sg.Issues.str());
}
