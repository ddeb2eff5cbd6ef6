//===- codegen/XmlWriter.cpp - Program to TACCL-EF XML --------------------===//
//
// Prints the MSCCL XML dialect both runtimes' hand-written lexers accept:
// no `<?xml ?>` declaration, every element on its own line with all its
// attributes, double quotes only, two-space indentation and no tabs, and a
// fixed attribute order. Text values pass through one escaping helper.
//
//===----------------------------------------------------------------------===//
#include "codegen/Codegen.h"

#include "support/Deadline.h"

#include <fmt/format.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
std::string escape(llvm::StringRef Text) {
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
} // namespace

void tacclc::writeXml(const Program &P, llvm::raw_ostream &OS) {
  OS << fmt::format(
      "<algo name=\"{}\" proto=\"{}\" nchannels=\"{}\" "
      "nchunksperloop=\"{}\" ngpus=\"{}\" coll=\"{}\" "
      "inplace=\"{}\" outofplace=\"{}\" minBytes=\"{}\" "
      "maxBytes=\"{}\"{}>\n",
      escape(P.Name), escape(P.Protocol), P.NumChannels, P.ChunksPerLoop,
      P.Gpus.size(), escape(P.Collective), P.InPlace ? 1 : 0,
      P.OutOfPlace ? 1 : 0, P.MinBytes, P.MaxBytes,
      P.Root >= 0 ? fmt::format(" root=\"{}\"", P.Root) : std::string());
  PhaseScope Phase("printing the XML");
  for (size_t G = 0; G < P.Gpus.size(); ++G) {
    checkDeadline();
    const GpuProgram &Gpu = P.Gpus[G];
    OS << fmt::format(
        "  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"{}\">\n",
        G, Gpu.InputChunks, Gpu.OutputChunks, Gpu.ScratchChunks);
    for (size_t T = 0; T < Gpu.Tbs.size(); ++T) {
      const ThreadBlock &Tb = Gpu.Tbs[T];
      OS << fmt::format(
          "    <tb id=\"{}\" send=\"{}\" recv=\"{}\" chan=\"{}\">\n", T,
          Tb.Send, Tb.Recv, Tb.Channel);
      for (size_t S = 0; S < Tb.Steps.size(); ++S) {
        const Step &St = Tb.Steps[S];
        bool Nop = St.Type == OpType::Nop;
        OS << fmt::format(
            "      <step s=\"{}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" "
            "dstbuf=\"{}\" dstoff=\"{}\" cnt=\"{}\" depid=\"{}\" "
            "deps=\"{}\" hasdep=\"{}\"/>\n",
            S, opTypeName(St.Type).str(),
            Nop ? "i" : bufferName(St.SrcBuf).str(), Nop ? -1 : St.SrcOff,
            Nop ? "o" : bufferName(St.DstBuf).str(), Nop ? -1 : St.DstOff,
            Nop ? 0u : St.Count, St.DepTb, St.DepStep, St.HasDep ? 1 : 0);
      }
      OS << "    </tb>\n";
    }
    OS << "  </gpu>\n";
  }
  OS << "</algo>\n";
}
