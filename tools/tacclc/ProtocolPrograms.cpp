//===- tools/tacclc/ProtocolPrograms.cpp - A program per protocol ---------===//
//
// The parts' sizes become each program's minBytes/maxBytes through the
// usual conversion (codegen's runtimeBytes): the runtime counts a gather's
// and a scatter's size per rank, so the bounds between parts must be
// multiples of that unit, or two parts would share a count. The programs
// are written by the caller, all together or none.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/ProtocolPrograms.h"

#include "passes/TimeModel.h"
#include "support/Sizes.h"
#include "tools/tacclc/Provenance.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <fmt/format.h>

using namespace tacclc;

bool tacclc::alignPieces(const ir::Sketch &S,
                         std::vector<ProtocolPiece> &Pieces,
                         DiagnosticEngine &Diags) {
  const uint64_t Unit = S.Coll.getSizeParts() / chunksPerLoop(S.Coll);
  if (Unit <= 1 || Pieces.size() < 2)
    return true;
  if (!S.ProtocolRanges.empty()) {
    bool Ok = true;
    for (const ir::ProtocolRange &R : S.ProtocolRanges)
      if (R.BelowBytes % Unit) {
        Diags.report(DiagId::ProtocolBoundUnit, R.Loc,
                     formatByteSize(R.BelowBytes),
                     ir::collectiveName(S.Coll.getKind()).str(), Unit);
        Ok = false;
      }
    return Ok;
  }
  std::vector<ProtocolPiece> Out{Pieces.front()};
  for (size_t I = 1; I < Pieces.size(); ++I) {
    ProtocolPiece P = Pieces[I];
    P.MinBytes = (P.MinBytes + Unit - 1) / Unit * Unit;
    bool Empty = P.MaxBytes && P.MinBytes > P.MaxBytes;
    if (Empty || P.MinBytes <= Out.back().MinBytes)
      continue;
    Out.back().MaxBytes = P.MinBytes - 1;
    if (P.Proto == Out.back().Proto)
      Out.back().MaxBytes = P.MaxBytes;
    else
      Out.push_back(P);
  }
  Pieces = std::move(Out);
  return true;
}

std::string tacclc::piecePath(const std::string &Output,
                              const std::vector<ProtocolPiece> &Pieces,
                              size_t I) {
  llvm::sys::fs::file_status St;
  if (!llvm::sys::fs::status(Output, St) && llvm::sys::fs::exists(St) &&
      !llvm::sys::fs::is_regular_file(St))
    return Output;
  llvm::StringRef Stem(Output);
  Stem.consume_back(".xml");
  std::string Name(tacclrt::nameOf(Pieces[I].Proto));
  unsigned Same = 0;
  for (size_t J = 0; J <= I; ++J)
    Same += Pieces[J].Proto == Pieces[I].Proto;
  if (Same > 1)
    Name += fmt::format("-{}", Same);
  return fmt::format("{}.{}.xml", Stem.str(), Name);
}

ir::Sketch tacclc::pieceSketch(const ir::Sketch &S, const ProtocolPiece &P) {
  ir::Sketch Out = S;
  Out.Protocol = std::string(tacclrt::nameOf(P.Proto));
  Out.ProtocolAuto = false;
  Out.ProtocolRanges.clear();
  Out.MinBytes = P.MinBytes;
  Out.MaxBytes = P.MaxBytes;
  return Out;
}

std::optional<std::vector<PartProgram>>
tacclc::emitPieces(const ir::Sketch &S, const ir::Schedule &Sch, EmitOptions EO,
                   const llvm::SourceMgr &SM, const std::string &Output,
                   const std::vector<ProtocolPiece> &Pieces,
                   DiagnosticEngine &Diags) {
  std::vector<PartProgram> Out;
  for (size_t I = 0; I < Pieces.size(); ++I) {
    const ProtocolPiece &P = Pieces[I];
    PartProgram Part{P, piecePath(Output, Pieces, I), pieceSketch(S, P), {}};
    EO.FifoMessages = TimeModel(Part.Sketch).fifoMessages(1);
    EO.Origin = compiledProvenance(Part.Sketch, SM, Part.Path);
    // A part open at one end records the end it has.
    if (!P.MinBytes || !P.MaxBytes)
      EO.Origin.Sizes = formatByteSize(P.MinBytes ? P.MinBytes : P.MaxBytes);
    std::optional<EmittedProgram> E = emitVerified(Part.Sketch, Sch, EO, Diags);
    if (!E)
      return std::nullopt;
    Part.Emitted = std::move(*E);
    Out.push_back(std::move(Part));
  }
  return Out;
}

std::string tacclc::describePiece(const ProtocolPiece &P) {
  std::string Text;
  if (P.MinBytes)
    Text = formatByteSize(P.MinBytes) + " <= ";
  Text += "size";
  if (!P.MaxBytes)
    return Text;
  // `size <= 4 MiB` for an upper end that is the sketch's, `size < 64 KiB`
  // for one below a bound.
  std::string Upto = formatByteSize(P.MaxBytes + 1);
  std::string Incl = formatByteSize(P.MaxBytes);
  if (llvm::StringRef(Upto).endswith(" B") &&
      !llvm::StringRef(Incl).endswith(" B"))
    return Text + " <= " + Incl;
  return Text + " < " + Upto;
}
