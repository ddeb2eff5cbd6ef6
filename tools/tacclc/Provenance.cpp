//===- tools/tacclc/Provenance.cpp - What a program records ---------------===//
//
// Paths in the references are relative to the program's folder (or to the
// standard library), never absolute, so that the same compile writes the
// same bytes in any checkout; a reader takes a relative file from the
// program's folder first (frontend/MachineRef.h).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Provenance.h"

#include "frontend/MachineRef.h"
#include "support/Diagnostics.h"
#include "support/Sizes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace tacclc;

std::string tacclc::programFolder(const std::string &Output) {
  llvm::StringRef Out(Output);
  if (Out.empty() || Out == "-" || Out.startswith("/dev/"))
    return ".";
  llvm::StringRef Dir = llvm::sys::path::parent_path(Out);
  return Dir.empty() ? "." : Dir.str();
}

std::string tacclc::sketchSizes(const ir::Sketch &S) {
  if (S.MinBytes && S.MaxBytes)
    return formatByteSize(S.MinBytes) + ":" + formatByteSize(S.MaxBytes);
  return S.SizeBytes ? formatByteSize(S.SizeBytes) : std::string();
}

tacclrt::Provenance tacclc::compiledProvenance(const ir::Sketch &S,
                                               const llvm::SourceMgr &SM,
                                               const std::string &Output) {
  std::string Folder = programFolder(Output);
  tacclrt::Provenance P;
  P.Compiler = TACCLC_VERSION;
  P.Machine = machineReference(S.On, SM, Folder);
  P.Sketch = sketchReference(S.Name, S.Loc, SM, Folder);
  P.Sizes = sketchSizes(S);
  return P;
}

tacclrt::Provenance tacclc::baselineProvenance(const std::string &MachineRef,
                                               uint64_t SizeBytes) {
  tacclrt::Provenance P;
  P.Compiler = TACCLC_VERSION;
  P.Machine = MachineRef;
  P.Sizes = formatByteSize(SizeBytes);
  return P;
}

bool tacclc::expectProgram(const std::string &Path) {
  if (llvm::sys::path::extension(Path) != ".sketch")
    return true;
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  llvm::SmallString<256> Xml(Path);
  llvm::sys::path::replace_extension(Xml, ".xml");
  Diags.report(DiagId::SketchNotProgram, llvm::SMRange(), Path, Path,
               Xml.str());
  Diags.flush(llvm::errs());
  return false;
}

std::optional<std::string> tacclc::programMachine(const std::string &Topology,
                                                  const tacclrt::Algo &A,
                                                  const std::string &Path) {
  if (!Topology.empty())
    return Topology;
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::optional<std::string> Ref;
  if (A.Origin.Machine.empty()) {
    Diags.report(DiagId::NoRecordedMachine, llvm::SMRange(), Path);
  } else {
    Ref = recordedMachineRef(A.Origin.Machine, Path);
    Diags.report(DiagId::RecordedMachine, llvm::SMRange(), Path, *Ref);
  }
  Diags.flush(llvm::errs());
  return Ref;
}
