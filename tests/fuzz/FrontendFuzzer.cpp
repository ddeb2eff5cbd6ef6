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
// the driver would exit 1 without saying why); a violation aborts.
//
//===----------------------------------------------------------------------===//
#include "frontend/Frontend.h"
#include "support/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

namespace {

/// Reports a broken front-end contract and aborts (libFuzzer saves the input).
[[noreturn]] void contractViolation(const char *What) {
  std::fprintf(stderr, "FrontendFuzzer: contract violated: %s\n", What);
  std::abort();
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
  }

  llvm::raw_null_ostream Null;
  Diags.flush(Null);
  return 0;
}
