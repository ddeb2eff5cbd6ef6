//===- tests/fuzz/XmlLoaderFuzzer.cpp - libFuzzer target: TACCL-EF loader -===//
//
// Feeds arbitrary bytes to the runtime's TACCL-EF loader as `tacclc check`
// does: tacclrt::loadPlan() runs the MSCCL lexical rules, pugixml, the
// attribute reader and the semantic validator; a plan that loads without
// errors then goes through tacclrt::checkPlan(), the symbolic executor
// (FIFOs, dependency flags, deadlock detection, per-chunk results), and
// through tacclrt::simulate() on a machine with a link between every pair of
// ranks (two of them sharing a port) at two sizes. Every issue is also
// rendered with Report::str() so the formatting code runs too.
//
// Besides sanitizer reports, exceptions and hangs, the target checks the
// loader's documented contract (Loader.h): it returns a plan exactly when no
// error was reported. A violation aborts, so libFuzzer keeps the input.
//
// No size guard: the loader caps what it reports, and the checker must stay
// bounded on every plan the loader accepts. If some accepted plan makes it
// take longer than libFuzzer's -timeout, that is a finding, not noise.
//
//===----------------------------------------------------------------------===//
#include "checker/Checker.h"
#include "format/Diagnostic.h"
#include "format/Loader.h"
#include "sim/Simulator.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace {

/// Reports a broken loader contract and aborts (libFuzzer saves the input).
[[noreturn]] void contractViolation(const char *What,
                                    const tacclrt::Report &R) {
  std::fprintf(stderr, "XmlLoaderFuzzer: contract violated: %s\n%s\n", What,
               R.str().c_str());
  std::abort();
}

} // namespace

/// libFuzzer entry point: loads one input as a TACCL-EF file and checks the
/// plan when it loads. Always returns 0.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  tacclrt::Report Report;
  std::optional<tacclrt::Algo> Plan =
      tacclrt::loadPlan(Text, "fuzz.xml", tacclrt::LoadOptions{}, Report);
  (void)Report.str();

  if (!Plan) {
    if (!Report.hasErrors())
      contractViolation("loadPlan() returned no plan and no error", Report);
    return 0;
  }
  if (Report.hasErrors())
    contractViolation("loadPlan() returned a plan despite errors", Report);

  tacclrt::Report Checked = tacclrt::checkPlan(*Plan, "fuzz.xml");
  (void)Checked.str();

  // The simulator must stay bounded too (the loader caps ranks and chunks).
  tacclrt::SimMachine M;
  M.Name = "all-pairs";
  M.NRanks = Plan->NGpus;
  M.Ports.push_back({"shared", 2e-4});
  for (int S = 0; S < M.NRanks && M.NRanks <= 64; ++S)
    for (int D = 0; D < M.NRanks; ++D)
      if (S != D)
        M.Links.push_back({S, D, 1.0, 1e-4, 1 + unsigned(S + D) % 2,
                           S == 0 ? std::vector<int>{0} : std::vector<int>{}});
  for (std::uint64_t Bytes :
       {std::uint64_t(4) * 64 * 1024, std::uint64_t(4) << 20}) {
    tacclrt::SimOptions O;
    O.Bytes = Bytes;
    O.SliceBytes = 64 * 1024;
    (void)tacclrt::simulate(*Plan, M, O, "fuzz.xml").Issues.str();
  }
  return 0;
}
