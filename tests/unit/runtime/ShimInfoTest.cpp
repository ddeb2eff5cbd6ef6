//===- tests/unit/runtime/ShimInfoTest.cpp - What libtaccl-nccl says ------===//
//
// The TACCL_DEBUG=INFO texts of libtaccl-nccl (shim/ShimInfo.h), word for
// word: the start line says which calls it serves (one node) and what to use
// across nodes; a new communicator's line says it is served, or every
// reason it is not; NCCL's two version encodings. README.md must quote the
// start line's text, so that the documentation says what the library says.
//
//===----------------------------------------------------------------------===//
#include "shim/ShimInfo.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace tacclrt::shim;

TEST_CASE("shim info: served communicator") {
  CommFacts F;
  F.Rank = 3;
  F.NRanks = 8;
  F.Backend = "cuda";
  F.Algorithms = 2;
  CHECK(commInitLine(F) ==
        "TACCL INFO rank 3: serving 8 ranks on one node (one NVLink domain) "
        "with the cuda backend and 2 algorithms for 8 ranks; calls on "
        "communicators that span nodes go to NCCL");
  F.Algorithms = 1;
  F.Backend = "cpu";
  F.Scope = "in this process";
  CHECK(commInitLine(F) ==
        "TACCL INFO rank 3: serving 8 ranks in this process with the cpu "
        "backend and 1 algorithm for 8 ranks; calls on communicators that "
        "span nodes go to NCCL");
}

TEST_CASE("shim info: communicators whose calls all go to NCCL") {
  CommFacts F;
  F.Rank = 0;
  F.NRanks = 16;
  F.Backend = "cuda";
  const std::string Head =
      "TACCL INFO rank 0: every call of this communicator of 16 ranks goes "
      "to NCCL: ";
  F.Why = Decline::SpansNodes;
  CHECK(commInitLine(F) ==
        Head + "its ranks span nodes (not all reach each other by loads and "
               "stores); across nodes, run the same TACCL-EF files on the "
               "MSCCL executor (NCCL_MSCCL_ENABLE=1, MSCCL_ALGO_DIR=DIR)");
  F.Why = Decline::NoLsaTeam;
  CHECK(commInitLine(F) == Head + "the real NCCL has no ncclTeamLsa; the "
                                  "cuda backend needs NCCL 2.28 or later");
  F.Why = Decline::NoAlgorithm;
  CHECK(commInitLine(F) ==
        Head + "no loaded algorithm is for 16 ranks (TACCL_ALGO_DIR)");
  F.Why = Decline::SharedProcess;
  CHECK(commInitLine(F) ==
        Head + "one thread drives several of its ranks (ncclCommInitAll, or "
               "created inside a group)");
  F.Why = Decline::SeparateProcesses;
  CHECK(commInitLine(F) == Head + "its ranks are in several processes; the "
                                  "cpu backend serves only ranks of one "
                                  "process");
  F.Why = Decline::NoBackend;
  CHECK(commInitLine(F) == Head + "no backend runs calls here "
                                  "(TACCL_BACKEND=off, or a build without "
                                  "CUDA)");
  CommFacts New;
  New.Why = Decline::NonBlocking;
  CHECK(commInitLine(New) ==
        "TACCL INFO new communicator: every call of this communicator goes to "
        "NCCL: it is non-blocking (blocking = 0 in its configuration)");
  New.Why = Decline::Unknown;
  CHECK(commInitLine(New) ==
        "TACCL INFO new communicator: every call of this communicator goes to "
        "NCCL: its rank and size are not known yet");
}

TEST_CASE("shim info: scope and versions") {
  CHECK(scopeText() ==
        "libtaccl-nccl serves collectives on communicators whose ranks all "
        "reach each other by loads and stores (one node, one NVLink domain); "
        "every call on a communicator that spans nodes goes to NCCL; across "
        "nodes, run the same TACCL-EF files on the MSCCL executor "
        "(NCCL_MSCCL_ENABLE=1, MSCCL_ALGO_DIR=DIR)");
  CHECK(scopeLine() == "TACCL INFO " + scopeText());
  CHECK(ncclVersionText(22809) == "2.28.9");
  CHECK(ncclVersionText(21903) == "2.19.3");
  CHECK(ncclVersionText(2803) == "2.8.3");
  CHECK(ncclVersionText(0) == "unknown");
}

TEST_CASE("shim info: README.md quotes the scope") {
  std::ifstream In(TACCLC_README);
  REQUIRE(In);
  std::stringstream S;
  S << In.rdbuf();
  // The README wraps lines; compare with runs of spaces and newlines as one.
  auto Squeeze = [](const std::string &T) {
    std::string Out;
    for (char C : T) {
      const bool Space = C == ' ' || C == '\n';
      if (!(Space && !Out.empty() && Out.back() == ' '))
        Out += Space ? ' ' : C;
    }
    return Out;
  };
  CHECK(Squeeze(S.str()).find(scopeText()) != std::string::npos);
}
