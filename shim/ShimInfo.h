//===- shim/ShimInfo.h - What libtaccl-nccl says it serves ------*- C++ -*-===//
//
// The text of libtaccl-nccl's TACCL_DEBUG=INFO lines about its scope, kept
// apart from the library so that it is host code, unit-tested everywhere:
//   - at start, which calls the library may serve at all: collectives on
//     communicators whose ranks all reach each other by loads and stores
//     (one node, one NVLink domain), and what to use across nodes (the
//     same TACCL-EF files on the MSCCL executor);
//   - at each communicator's creation, whether its calls may be served, and
//     if not, why (Decline);
//   - the real NCCL's version code as text.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SHIM_SHIMINFO_H
#define TACCLC_SHIM_SHIMINFO_H

#include <cstddef>
#include <string>

namespace tacclrt::shim {

/// Why no call of a communicator is served (None: calls that an algorithm
/// matches are).
enum class Decline {
  None,
  NoBackend,         ///< TACCL_BACKEND=off, or the cuda backend is not built.
  NoAlgorithm,       ///< No loaded algorithm is for the communicator's size.
  NonBlocking,       ///< Created with `blocking = 0`.
  SharedProcess,     ///< One thread drives several of its ranks.
  NoLsaTeam,         ///< The real NCCL lacks ncclTeamLsa (older than 2.28).
  SpansNodes,        ///< Its ranks do not all reach each other by loads/stores.
  SeparateProcesses, ///< Its ranks are in several processes (cpu backend).
  Unknown,           ///< Its rank and size are not known yet.
};

/// What the shim knows of a new communicator.
struct CommFacts {
  int Rank = -1;                 ///< -1: not known yet.
  int NRanks = 0;                ///< 0: not known yet.
  const char *Backend = nullptr; ///< The backend's name; null when none.
  /// Where the backend's ranks are (ShimBackend::scope()).
  const char *Scope = "on one node (one NVLink domain)";
  std::size_t Algorithms = 0; ///< Loaded algorithms for NRanks ranks.
  Decline Why = Decline::None;
};

/// The INFO line (no newline) for a new communicator, e.g. "TACCL INFO rank
/// 0: serving 8 ranks on one node (one NVLink domain) with the cuda backend
/// and 2 algorithms for 8 ranks; calls on communicators that span nodes go
/// to NCCL".
std::string commInitLine(const CommFacts &F);

/// What the library serves and what to use across nodes, one sentence
/// (README.md quotes it).
std::string scopeText();

/// The INFO line (no newline) printed at start: "TACCL INFO " + scopeText().
std::string scopeLine();

/// NCCL's version code (ncclGetVersion) as "MAJOR.MINOR.PATCH", in both of
/// NCCL's encodings (X*1000+Y*100+Z before 2.9, X*10000+Y*100+Z since).
std::string ncclVersionText(int Code);

} // namespace tacclrt::shim

#endif // TACCLC_SHIM_SHIMINFO_H
