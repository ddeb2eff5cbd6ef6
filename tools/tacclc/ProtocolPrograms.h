//===- tools/tacclc/ProtocolPrograms.h - A program per protocol -*- C++ -*-===//
//
// A compile whose sketch gives each part of its size range its own protocol
// (a `protocol` list, or `protocol auto` where the fastest protocol changes
// inside the range) writes one program per part. Every program lowers the
// same schedule for its protocol and records its part as minBytes/maxBytes,
// so that the runtimes select exactly one of them for every size of the
// range; each is verified like a single program. Beside `-o OUT.xml` they
// are OUT.LL.xml, OUT.Simple.xml, ...
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_PROTOCOLPROGRAMS_H
#define TACCLC_TOOLS_TACCLC_PROTOCOLPROGRAMS_H

#include "codegen/EmitVerified.h"
#include "ir/Sketch.h"
#include "support/Diagnostics.h"
#include "tools/tacclc/ProtocolChoice.h"

#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// One program of a part of the size range, emitted and verified.
struct PartProgram {
  ProtocolPiece Piece;
  std::string Path;  ///< Where it is written.
  ir::Sketch Sketch; ///< The sketch, narrowed to the part.
  EmittedProgram Emitted;
};

/// Puts the parts' bounds on the runtime's size unit (the call's bytes per
/// count: a gather's or scatter's size is counted per rank): a bound the
/// sketch names must be a multiple of it (else an error at the bound); one
/// the compiler chose rounds up, and a part that empties is dropped. False
/// after a diagnostic.
bool alignPieces(const ir::Sketch &S, std::vector<ProtocolPiece> &Pieces,
                 DiagnosticEngine &Diags);

/// The file of part \p I of \p Pieces for the output \p Output: STEM.P.xml
/// beside a regular OUT file (STEM is OUT without `.xml`; P the protocol,
/// with `-2`, `-3` where a protocol serves two parts), or \p Output itself
/// where it is not a regular file (such as /dev/null).
std::string piecePath(const std::string &Output,
                      const std::vector<ProtocolPiece> &Pieces, size_t I);

/// The sketch \p S narrowed to part \p P: its protocol and its sizes.
ir::Sketch pieceSketch(const ir::Sketch &S, const ProtocolPiece &P);

/// Lowers and verifies schedule \p Sch once per part of \p Pieces, each
/// with its own provenance; nothing after a diagnostic.
std::optional<std::vector<PartProgram>>
emitPieces(const ir::Sketch &S, const ir::Schedule &Sch, EmitOptions EO,
           const llvm::SourceMgr &SM, const std::string &Output,
           const std::vector<ProtocolPiece> &Pieces, DiagnosticEngine &Diags);

/// How the sizes of \p P read: `1 KiB <= size < 64 KiB`.
std::string describePiece(const ProtocolPiece &P);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_PROTOCOLPROGRAMS_H
