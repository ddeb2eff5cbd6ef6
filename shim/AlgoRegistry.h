//===- shim/AlgoRegistry.h - Which algorithm serves a call ------*- C++ -*-===//
//
// The algorithms libtaccl-nccl may run: every TACCL-EF file of the
// directories named by TACCL_ALGO_DIR (and MSCCL_ALGO_DIR), loaded with the
// runtime's loader as `tacclc check` loads them. A file that does not load
// is remembered with the reason, to be reported once. A call is served by
// the first algorithm, in sorted path order, that matches it as the MSCCL
// executor matches (Azure/msccl-executor-nccl, src/misc/msccl/
// msccl_lifecycle.cc): same collective and
// rank count, a file that serves in-place (or out-of-place) calls when the
// call is one, minBytes <= bytes and (maxBytes == 0 or bytes <= maxBytes),
// the total count a multiple of nchunksperloop, a count above 0, a built-in
// reduction other than avg, and (our additions) an element type the
// interpreter reduces and the root the file was made for.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SHIM_ALGOREGISTRY_H
#define TACCLC_SHIM_ALGOREGISTRY_H

#include "format/Call.h"
#include "format/Plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclrt::shim {

/// One loaded algorithm.
struct LoadedAlgo {
  std::string Path;
  Algo A;
};

/// A file that did not load.
struct LoadFailure {
  std::string Path, Why;
};

/// One collective call, as selection sees it.
struct CallShape {
  CollKind Coll = CollKind::AllReduce;
  unsigned NRanks = 1;
  bool InPlace = false;
  /// NCCL's count argument (per rank or per peer, as NCCL defines it).
  std::uint64_t Count = 0;
  /// The element type, when the interpreter has it.
  std::optional<DataType> Type;
  /// The reduction, when it is sum, prod, min or max.
  std::optional<ReduceOp> Op;
  int Root = 0;
};

/// The algorithms of some directories.
class AlgoRegistry {
public:
  /// Loads every entry of \p Dir (not recursively) whose name ends in .xml
  /// with loadPlanFile(); one that is not a regular file, or is over its
  /// size cap, is a failure, and so is a directory that cannot be read.
  void loadDirectory(const std::string &Dir);
  /// Sorts by path (the MSCCL executor's order); call after loading.
  void finish();

  const std::vector<LoadedAlgo> &algorithms() const { return Algos; }
  const std::vector<LoadFailure> &failures() const { return Failures; }

  /// The first algorithm that serves \p C, or null.
  const LoadedAlgo *select(const CallShape &C) const;

  /// Total bytes of a call as the MSCCL executor counts them (count x size
  /// multiplier x element size).
  static std::uint64_t callBytes(const CallShape &C, std::uint64_t TypeSize);

private:
  std::vector<LoadedAlgo> Algos;
  std::vector<LoadFailure> Failures;
};

} // namespace tacclrt::shim

#endif // TACCLC_SHIM_ALGOREGISTRY_H
