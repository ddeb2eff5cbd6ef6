//===- tests/fuzz/TopologyFuzzer.cpp - libFuzzer target: --topology -------===//
//
// Feeds arbitrary bytes to instantiateMachine exactly as `tacclc sim`,
// `bounds`, `baseline` and `taccl-profile --simulate` pass their --topology
// argument: the reference (`ndv2(nodes: 2)`, `FILE:NAME(args)`) is spliced
// into a two-line sketch that imports the machine's file from the standard
// library and instantiated through the whole front end, then turned into the
// simulator's machine. Inputs with a '/' are skipped: they could name any
// file of the machine running the fuzzer (a FIFO would block), while
// relative names still reach the `FILE:NAME` form against the standard
// library and the current folder.
//
// The contract checked: no crash, no sanitizer report, no input slower than
// -timeout; a reference refused must have printed a reason; a machine
// accepted must be well formed (links between its ranks, finite costs).
//
//===----------------------------------------------------------------------===//
#include "codegen/SimMachine.h"
#include "frontend/MachineRef.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void contractViolation(const char *What) {
  std::fprintf(stderr, "TopologyFuzzer: contract violated: %s\n", What);
  std::abort();
}

} // namespace

/// libFuzzer entry point: instantiates one --topology reference.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Ref(reinterpret_cast<const char *>(Data), Size);
  if (Ref.find('/') != std::string::npos)
    return -1; // not added to the corpus
  std::string Errors;
  llvm::raw_string_ostream Errs(Errors);
  std::optional<tacclc::ir::Topology> T =
      tacclc::instantiateMachine(Ref, {}, Errs);
  Errs.flush();
  if (!T) {
    if (Errors.empty())
      contractViolation("a reference was refused without a diagnostic");
    return 0;
  }
  unsigned N = T->getNumRanks();
  if (N == 0)
    contractViolation("an accepted machine has no ranks");
  for (const tacclc::ir::Link &L : T->links()) {
    if (L.Src.index() >= N || L.Dst.index() >= N)
      contractViolation("an accepted machine has a link outside its ranks");
    if (!std::isfinite(L.AlphaUs) || !std::isfinite(L.BetaUsPerB))
      contractViolation("an accepted machine has a non-finite link cost");
  }
  tacclrt::SimMachine M = tacclc::toSimMachine(*T, 1 << 20);
  if (M.NRanks != static_cast<int>(N))
    contractViolation("the simulator's machine has another rank count");
  return 0;
}
