//===- format/PlanWriter.cpp - Plan to TACCL-EF XML -----------------------===//
//
// Prints the MSCCL XML dialect both runtimes' hand-written lexers accept:
// no `<?xml ?>` declaration, every element on its own line with all its
// attributes, double quotes only, two-space indentation and no tabs, and a
// fixed attribute order. Text values pass through one escaping helper. The
// provenance attributes (tacclc-version, machine, sketch, sizes) close the
// root element; the runtimes ignore them.
//
//===----------------------------------------------------------------------===//
#include "format/PlanWriter.h"
#include "format/XmlLexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <string_view>
#include <utility>

namespace tacclrt {

namespace {
std::string escape(std::string_view Text) {
  std::string Out;
  for (char C : Text) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&apos;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

/// The provenance attributes of \p O, each ` name="value"`, in a fixed
/// order. A value the MSCCL lexer would refuse (longer than it keeps, or
/// with a control character) is left out: a program's provenance never
/// makes it unloadable.
std::string provenanceAttributes(const Provenance &O) {
  std::string Out;
  const std::pair<const char *, const std::string *> Attrs[] = {
      {"tacclc-version", &O.Compiler},
      {"machine", &O.Machine},
      {"sketch", &O.Sketch},
      {"sizes", &O.Sizes}};
  for (const auto &[Name, Value] : Attrs) {
    std::string Text = escape(*Value);
    bool Control = std::any_of(Value->begin(), Value->end(), [](char C) {
      return static_cast<unsigned char>(C) < 0x20 || C == 0x7f;
    });
    if (!Value->empty() && !Control && Text.size() <= MscclMaxStrLen)
      Out += fmt::format(" {}=\"{}\"", Name, Text);
  }
  return Out;
}

/// The `coll` value of \p C in \p D: the dialect's spelling, or the
/// executor's where the dialect has none.
std::string_view collSpelling(CollKind C, Dialect D) {
  std::string_view Name = collName(C, D);
  return Name.empty() ? nameOf(C) : Name;
}
} // namespace

void writePlan(const Algo &A, Dialect D, std::ostream &OS) {
  OS << fmt::format(
      "<algo name=\"{}\" proto=\"{}\" nchannels=\"{}\" "
      "nchunksperloop=\"{}\" ngpus=\"{}\" coll=\"{}\" "
      "inplace=\"{}\" outofplace=\"{}\" minBytes=\"{}\" "
      "maxBytes=\"{}\"{}{}>\n",
      escape(A.Name), escape(nameOf(A.Proto)), A.NChannels, A.NChunksPerLoop,
      A.Gpus.size(), escape(collSpelling(A.Coll, D)), A.InPlace ? 1 : 0,
      A.OutOfPlace ? 1 : 0, A.MinBytes, A.MaxBytes,
      A.Root >= 0 ? fmt::format(" root=\"{}\"", A.Root) : std::string(),
      provenanceAttributes(A.Origin));
  for (size_t G = 0; G < A.Gpus.size(); ++G) {
    const Gpu &Rank = A.Gpus[G];
    OS << fmt::format(
        "  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"{}\">\n",
        G, Rank.IChunks, Rank.OChunks, Rank.SChunks);
    for (size_t T = 0; T < Rank.Tbs.size(); ++T) {
      const Tb &Block = Rank.Tbs[T];
      OS << fmt::format(
          "    <tb id=\"{}\" send=\"{}\" recv=\"{}\" chan=\"{}\">\n", T,
          Block.Send, Block.Recv, Block.Chan);
      for (size_t S = 0; S < Block.Steps.size(); ++S) {
        const Step &St = Block.Steps[S];
        bool Nop = St.Type == StepType::Nop;
        OS << fmt::format(
            "      <step s=\"{}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" "
            "dstbuf=\"{}\" dstoff=\"{}\" cnt=\"{}\" depid=\"{}\" "
            "deps=\"{}\" hasdep=\"{}\"/>\n",
            S, nameOf(St.Type), Nop ? 'i' : toLetter(St.SrcBuf),
            Nop ? -1 : St.SrcOff, Nop ? 'o' : toLetter(St.DstBuf),
            Nop ? -1 : St.DstOff, Nop ? 0 : St.Cnt, St.DepId, St.Deps,
            St.HasDep ? 1 : 0);
      }
      OS << "    </tb>\n";
    }
    OS << "  </gpu>\n";
  }
  OS << "</algo>\n";
}

std::string writePlan(const Algo &A, Dialect D) {
  std::ostringstream OS;
  writePlan(A, D, OS);
  return OS.str();
}

} // namespace tacclrt
