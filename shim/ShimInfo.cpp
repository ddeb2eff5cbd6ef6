//===- shim/ShimInfo.cpp - What libtaccl-nccl says it serves --------------===//
//
// The INFO texts of ShimInfo.h. The reasons name the setting or the NCCL
// feature behind them, so that a user can act on the line alone.
//
//===----------------------------------------------------------------------===//
#include "shim/ShimInfo.h"

#include <fmt/format.h>

using namespace tacclrt::shim;

namespace {

const char *AcrossNodes =
    "across nodes, run the same TACCL-EF files on the MSCCL executor "
    "(NCCL_MSCCL_ENABLE=1, MSCCL_ALGO_DIR=DIR)";

std::string reason(const CommFacts &F) {
  switch (F.Why) {
  case Decline::None:
    break;
  case Decline::NoBackend:
    return "no backend runs calls here (TACCL_BACKEND=off, or a build "
           "without CUDA)";
  case Decline::NoAlgorithm:
    return fmt::format("no loaded algorithm is for {} ranks (TACCL_ALGO_DIR)",
                       F.NRanks);
  case Decline::NonBlocking:
    return "it is non-blocking (blocking = 0 in its configuration)";
  case Decline::SharedProcess:
    return "one thread drives several of its ranks (ncclCommInitAll, or "
           "created inside a group)";
  case Decline::NoLsaTeam:
    return "the real NCCL has no ncclTeamLsa; the cuda backend needs NCCL "
           "2.28 or later";
  case Decline::SpansNodes:
    return fmt::format("its ranks span nodes (not all reach each other by "
                       "loads and stores); {}",
                       AcrossNodes);
  case Decline::SeparateProcesses:
    return "its ranks are in several processes; the cpu backend serves only "
           "ranks of one process";
  case Decline::Unknown:
    return "its rank and size are not known yet";
  }
  return "";
}

} // namespace

std::string tacclrt::shim::commInitLine(const CommFacts &F) {
  std::string Who =
      F.Rank >= 0 ? fmt::format("rank {}", F.Rank) : "new communicator";
  if (F.Why == Decline::None)
    return fmt::format(
        "TACCL INFO {}: serving {} ranks {} with the {} backend and {} "
        "algorithm{} for {} ranks; calls on communicators that span nodes go "
        "to NCCL",
        Who, F.NRanks, F.Scope, F.Backend ? F.Backend : "no", F.Algorithms,
        F.Algorithms == 1 ? "" : "s", F.NRanks);
  std::string Size = F.NRanks > 0 ? fmt::format(" of {} ranks", F.NRanks) : "";
  return fmt::format("TACCL INFO {}: every call of this communicator{} goes "
                     "to NCCL: {}",
                     Who, Size, reason(F));
}

std::string tacclrt::shim::scopeText() {
  return fmt::format(
      "libtaccl-nccl serves collectives on communicators whose ranks all "
      "reach each other by loads and stores (one node, one NVLink domain); "
      "every call on a communicator that spans nodes goes to NCCL; {}",
      AcrossNodes);
}

std::string tacclrt::shim::scopeLine() { return "TACCL INFO " + scopeText(); }

std::string tacclrt::shim::ncclVersionText(int Code) {
  if (Code <= 0)
    return "unknown";
  const bool Old = Code < 10000; // before 2.9: X*1000 + Y*100 + Z
  const int Major = Old ? Code / 1000 : Code / 10000;
  const int Minor = Old ? Code % 1000 / 100 : Code % 10000 / 100;
  return fmt::format("{}.{}.{}", Major, Minor, Code % 100);
}
