//===- tools/taccl-bench/BenchReport.h - Sweep and table --------*- C++ -*-===//
//
// What taccl-bench measured and how it prints it. The sweep follows
// nccl-tests' -b/-e/-i/-f stepping; the table has nccl-tests' columns (size,
// count, type, redop, root, then time, algbw, busbw and #wrong for the
// out-of-place call and again for the in-place call) and its closing lines
// (`# Out of bounds values` and `# Avg bus bandwidth`); --json prints the
// same fields as one object. The layout follows nccl-tests' src/util.cu
// (NVIDIA/nccl-tests, 2.19): the widths of its columns and how a number is
// squeezed into them.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCL_BENCH_BENCHREPORT_H
#define TACCLC_TOOLS_TACCL_BENCH_BENCHREPORT_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclbench {

/// The most sizes one sweep may have: a longer one is refused as a typo
/// rather than run for days.
inline constexpr std::size_t MaxSweepSizes = 100000;

/// nccl-tests' sweep: from \p Min while the size is at most \p Max, each
/// next size the last times \p Factor when \p Factor > 1, else the last plus
/// \p Step. Nothing, with the reason in \p Why, when \p Min > \p Max, when
/// the sweep would not advance (\p Step 0 without a factor) or when it has
/// more than MaxSweepSizes sizes.
std::optional<std::vector<std::uint64_t>>
ncclTestsSweep(std::uint64_t Min, std::uint64_t Max, std::uint64_t Step,
               std::uint64_t Factor, std::string &Why);

/// One placement (out-of-place or in-place call) of one size.
struct Placement {
  enum class State {
    NotDeclared, ///< The file does not serve this placement: N/A.
    Failed,      ///< Refused, deadlocked or an access error: Error says.
    Ran          ///< Timed (and checked unless --check 0).
  };
  State S = State::NotDeclared;
  std::string Error;
  double MeanUs = 0, AlgBw = 0, BusBw = 0;
  std::uint64_t Wrong = 0;
  /// NCCL's time and busbw for the same call (--nccl), else why not.
  std::optional<double> NcclUs;
  double NcclBusBw = 0;
  std::string NcclWhy;
};

/// One size of the sweep.
struct Row {
  /// The call's size (the request rounded up to a call the file divides)
  /// and NCCL's count argument.
  std::uint64_t Bytes = 0, Count = 0;
  Placement OutOfPlace, InPlace;
};

/// What the run is, for the preamble and the JSON object.
struct Setup {
  std::string File, Collective, Backend, Dialect, Type, RedOp;
  /// How the sweep was given: "minBytes 1024 maxBytes ..." or "sizes ...".
  std::string Sweep;
  unsigned Ranks = 0;
  /// The root of a rooted collective, -1 for the others (as nccl-tests).
  int Root = -1;
  bool Check = true, Nccl = false;
  unsigned Warmup = 0, Iters = 0;
};

/// The closing numbers.
struct Summary {
  /// Calls (size x placement) with a wrong element, as nccl-tests counts.
  std::uint64_t OutOfBounds = 0;
  /// Calls that did not run.
  std::uint64_t NotRun = 0;
  /// Mean busbw over every call that ran, in GB/s.
  double AvgBusBw = 0;
  /// True when every call ran and (when checked) had no wrong element.
  bool Ok = true;
};

/// Sums up \p Rows.
Summary summarize(const std::vector<Row> &Rows, bool Check);

/// The preamble and the three header lines of the table.
void printHeader(llvm::raw_ostream &OS, const Setup &S);
/// One row, then a comment line for each placement that did not run.
void printRow(llvm::raw_ostream &OS, const Setup &S, const Row &R);
/// The reasons NCCL's own call did not run (once each) and the closing
/// lines.
void printFooter(llvm::raw_ostream &OS, const Setup &S,
                 const std::vector<Row> &Rows, const Summary &Sum);
/// The whole run as one JSON object.
void printJson(llvm::raw_ostream &OS, const Setup &S,
               const std::vector<Row> &Rows, const Summary &Sum);

} // namespace tacclbench

#endif // TACCLC_TOOLS_TACCL_BENCH_BENCHREPORT_H
