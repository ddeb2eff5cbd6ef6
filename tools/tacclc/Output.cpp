//===- tools/tacclc/Output.cpp - Writing and verifying outputs ------------===//
//
// The atomic write (a temporary file renamed over the target, so a failed
// run never leaves half a file) and the runtime's verification.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Output.h"

#include "tools/tacclc/Commands.h"

#include "tacclrt/Checker.h"
#include "tacclrt/Loader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileUtilities.h"

#include <fmt/format.h>

using namespace tacclc;

int tacclc::writeOutput(const std::string &Path, const std::string &Text,
                        DiagnosticEngine &Diags) {
  Diags.flush(llvm::errs()); // warnings of a successful run
  if (Path.empty() || Path == "-") {
    llvm::outs() << Text;
    llvm::outs().flush();
    return ExitSuccess;
  }
  llvm::SmallString<256> Model(Path);
  Model += ".tmp-%%%%%%";
  if (llvm::Error E = llvm::writeFileAtomically(Model, Path, Text)) {
    Diags.report(DiagId::CannotWriteFile, llvm::SMRange(), Path,
                 llvm::toString(std::move(E)));
    Diags.flush(llvm::errs());
    return ExitUserError;
  }
  return ExitSuccess;
}

std::string tacclc::jsonQuote(llvm::StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (static_cast<unsigned char>(C) < 0x20)
      Out += fmt::format("\\u{:04x}", static_cast<unsigned>(C));
    else
      Out += C;
  }
  return Out + "\"";
}

std::string
tacclc::toText(llvm::function_ref<void(llvm::raw_ostream &)> Print) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Print(OS);
  OS.flush();
  return Text;
}

tacclrt::Report tacclc::verifyXml(const std::string &Xml, bool Legacy,
                                  bool Identical) {
  tacclrt::LoadOptions LO;
  LO.D = Legacy ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
  tacclrt::Report Rep;
  auto Algo = tacclrt::loadPlan(Xml, "<generated>", LO, Rep);
  tacclrt::CheckOptions CO;
  CO.IdenticalOrder = Identical;
  if (Algo && !Rep.hasErrors())
    Rep.append(tacclrt::checkPlan(*Algo, "<generated>", CO));
  return Rep;
}
