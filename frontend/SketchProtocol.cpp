//===- frontend/SketchProtocol.cpp - The `protocol` item ------------------===//
//
// Checks a sketch's `protocol` item: one MSCCL protocol (`Simple`, `LL`,
// `LL128`), `auto` (the compiler chooses per size), or a list that gives
// each part of the size range its own protocol, smallest sizes first:
//
//   protocol LL below 64 KiB, LL128 below 1 MiB, Simple
//
// Every choice but the last ends below a bound; the last takes every larger
// size. Bounds rise strictly and lie inside the size range (above its lower
// end, at most its upper end), so that every protocol keeps some sizes and
// the parts tile the range with no gap or overlap. A protocol appears once.
// The stages then assume the protocol of the part that holds the design
// point; the driver writes one program per part.
//
//===----------------------------------------------------------------------===//
#include "frontend/SemaInternal.h"

#include "support/Sizes.h"

#include <set>

using namespace tacclc;
using namespace tacclc::ast;

namespace {

bool isProtocolName(llvm::StringRef Name) {
  return Name == "Simple" || Name == "LL" || Name == "LL128";
}

std::string spelled(const Quantity &Q) {
  return Q.Unit.empty() ? Q.Spelling : Q.Spelling + " " + Q.Unit;
}

} // namespace

bool tacclc::checkProtocol(const ProtocolItem &P, ir::Sketch &Out,
                           DiagnosticEngine &Diags) {
  const std::vector<ProtocolChoiceAst> &Choices = P.Choices;
  if (Choices.size() == 1 && !Choices[0].Below) {
    const ProtocolChoiceAst &C = Choices[0];
    if (C.Name == "auto") {
      Out.ProtocolAuto = true;
      return true;
    }
    if (!isProtocolName(C.Name)) {
      Diags.report(DiagId::UnknownProtocol, C.NameRange, C.Name);
      return false;
    }
    Out.Protocol = C.Name;
    Out.ProtocolAuto = false;
    return true;
  }

  bool Ok = true;
  std::set<std::string> Seen;
  std::vector<ir::ProtocolRange> Ranges;
  uint64_t Previous = Out.MinBytes;
  std::string PreviousText;
  for (size_t I = 0; I < Choices.size(); ++I) {
    const ProtocolChoiceAst &C = Choices[I];
    bool Last = I + 1 == Choices.size();
    if (C.Name == "auto") {
      Diags.report(DiagId::ProtocolAutoInList, C.NameRange);
      Ok = false;
      continue;
    }
    if (!isProtocolName(C.Name)) {
      Diags.report(DiagId::UnknownProtocol, C.NameRange, C.Name);
      Ok = false;
      continue;
    }
    if (!Seen.insert(C.Name).second) {
      Diags.report(DiagId::ProtocolNamedTwice, C.NameRange, C.Name);
      Ok = false;
    }
    ir::ProtocolRange R{C.Name, 0, C.NameRange};
    if (Last && C.Below) {
      Diags.report(DiagId::ProtocolLastBounded, C.Below->Range,
                   spelled(*C.Below));
      Ok = false;
    } else if (!Last && !C.Below) {
      Diags.report(DiagId::ProtocolNeedsBound, C.NameRange, C.Name);
      Ok = false;
    } else if (C.Below) {
      R.Loc = llvm::SMRange(C.NameRange.Start, C.Below->Range.End);
      std::optional<uint64_t> Bytes =
          checkSizeBytes(*C.Below, "protocol bound", Diags);
      if (!Bytes) {
        Ok = false;
        continue;
      }
      if (!PreviousText.empty() && *Bytes <= Previous) {
        Diags.report(DiagId::ProtocolBoundOrder, C.Below->Range,
                     spelled(*C.Below), PreviousText);
        Ok = false;
      } else if (*Bytes <= Out.MinBytes ||
                 (Out.MaxBytes && *Bytes > Out.MaxBytes)) {
        Diags.report(DiagId::ProtocolBoundOutside, C.Below->Range,
                     spelled(*C.Below), formatByteSize(Out.MinBytes),
                     Out.MaxBytes ? formatByteSize(Out.MaxBytes)
                                  : std::string("any size"));
        Ok = false;
      }
      Previous = *Bytes;
      PreviousText = spelled(*C.Below);
      R.BelowBytes = *Bytes;
    }
    Ranges.push_back(std::move(R));
  }
  if (!Ok)
    return false;
  // The stages design for the part that holds the design point.
  Out.ProtocolAuto = false;
  Out.Protocol = Ranges.back().Protocol;
  for (const ir::ProtocolRange &R : Ranges)
    if (R.BelowBytes && Out.SizeBytes < R.BelowBytes) {
      Out.Protocol = R.Protocol;
      break;
    }
  Out.ProtocolRanges = std::move(Ranges);
  return true;
}
