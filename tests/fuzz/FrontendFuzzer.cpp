//===- tests/fuzz/FrontendFuzzer.cpp - libFuzzer target: the front end ----===//
//
// Feeds arbitrary bytes to the sketch front end exactly as the driver does up
// to `--emit=ir`: the bytes become one llvm::SourceMgr buffer, parseSketch()
// runs the ANTLR lexer and parser and builds the AST, analyzeSketch() resolves
// names, ranks and units, and the DiagnosticEngine renders everything it
// collected (source lines, carets, ranges) into a null stream. The MILP
// solver and the later stages are deliberately left out: they are slow and
// their input is already validated IR.
//
// Any sanitizer report, uncaught exception, abort, exit (reportInternalError
// calls _Exit(2)) or input slower than libFuzzer's -timeout is a bug in the
// front end: the contract in frontend/Frontend.h is that user input only
// ever produces diagnostics. The target also checks the other half of that
// contract: a stage that returns nothing must have reported an error (else
// the driver would exit 1 without saying why), and a sketch that Sema accepts
// must be resolved IR the later stages can trust (ranks in range, finite
// costs within Sema's own bounds, a size, symmetries that are permutations). A
// violation aborts, so libFuzzer keeps the input.
//
//===----------------------------------------------------------------------===//
#include "frontend/Frontend.h"
#include "support/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

namespace {

/// Reports a broken front-end contract and aborts (libFuzzer saves the input).
[[noreturn]] void contractViolation(const char *What) {
  std::fprintf(stderr, "FrontendFuzzer: contract violated: %s\n", What);
  std::abort();
}

/// Checks what Sema promises about an accepted sketch (see ir/Sketch.h and
/// ir/Topology.h): every later stage relies on it without re-checking.
void checkResolvedSketch(const tacclc::ir::Sketch &S) {
  const tacclc::ir::Topology &T = S.Topo;
  unsigned N = T.getNumRanks();
  if (N < 2)
    contractViolation("accepted sketch has fewer than 2 ranks");
  if (T.getNumNodes() * T.getGpusPerNode() != N)
    contractViolation("accepted sketch: nodes x gpus per node != ranks");
  for (const tacclc::ir::Link &L : T.links()) {
    if (L.Src.index() >= N || L.Dst.index() >= N || L.Src == L.Dst)
      contractViolation("accepted sketch has a link with a bad endpoint");
    // Sema's own rules: alpha zero or positive, beta positive, both finite.
    if (!std::isfinite(L.AlphaUs) || L.AlphaUs < 0)
      contractViolation("accepted sketch has a link alpha that is negative, "
                        "infinite or NaN");
    if (!std::isfinite(L.BetaUsPerB) || L.BetaUsPerB <= 0)
      contractViolation("accepted sketch has a link beta that is not "
                        "positive and finite");
  }
  if (S.SizeBytes < 1)
    contractViolation("accepted sketch has a zero size");
  for (const tacclc::ir::Symmetry &Sym : S.Symmetries) {
    if (Sym.Perm.size() != N)
      contractViolation("accepted symmetry does not map every rank");
    std::vector<bool> Seen(N, false);
    for (unsigned Image : Sym.Perm) {
      if (Image >= N || Seen[Image])
        contractViolation("accepted symmetry is not a permutation");
      Seen[Image] = true;
    }
  }
}

} // namespace

/// libFuzzer entry point: runs the front end on one input. Always returns 0
/// (the input is never rejected from the corpus).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::SourceMgr SM;
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  // A copy: MemoryBuffer guarantees the NUL terminator SourceMgr relies on,
  // which libFuzzer's buffer does not have.
  unsigned BufferId = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "fuzz.sketch"), llvm::SMLoc());

  tacclc::DiagnosticEngine Diags(SM);
  // Names in messages exercise the registry lookups as the golden tests do.
  Diags.setShowNames(true);
  std::unique_ptr<tacclc::ast::Module> M =
      tacclc::parseSketch(SM, BufferId, Diags);
  if (!M && !Diags.hasErrors())
    contractViolation("parseSketch() returned no AST and reported no error");
  if (M) {
    std::optional<tacclc::ir::Sketch> Sketch =
        tacclc::analyzeSketch(*M, "", Diags);
    if (!Sketch && !Diags.hasErrors())
      contractViolation("analyzeSketch() returned nothing and reported no "
                        "error");
    if (Sketch)
      checkResolvedSketch(*Sketch);
  }

  llvm::raw_null_ostream Null;
  Diags.flush(Null);
  return 0;
}
