//===- tools/tacclc/ImportTaccl.cpp - tacclc import-taccl -----------------===//
//
// `tacclc import-taccl SKETCH.json [--topology PROFILE.json] -o F.sketch`:
// the subcommand's options and its run. The files are read with the bounds
// of every source file, the output path is checked before the work, the
// import itself is frontend/TacclImport.h, and the result is written all or
// nothing: after any error nothing is written (an existing file is left as
// it was) and the exit status is 1.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/Output.h"

#include "frontend/TacclImport.h"
#include "support/InputFile.h"
#include "support/Sizes.h"
#include "support/Stdlib.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

using namespace llvm;
using namespace tacclc;

namespace {
cl::OptionCategory &category() {
  static cl::OptionCategory Cat("Import options");
  return Cat;
}
cl::SubCommand &command() {
  static cl::SubCommand Cmd(
      "import-taccl",
      "Write a TACCL communication sketch JSON (with its topology profile) "
      "as a .sketch file");
  return Cmd;
}

cl::opt<std::string> Input(cl::Positional, cl::Required,
                           cl::desc("<sketch.json>"), cl::sub(command()),
                           cl::cat(category()));
cl::opt<std::string>
    Profile("topology",
            cl::desc("TACCL's topology profile JSON: the machine's link "
                     "costs (default: the standard library machine's)"),
            cl::value_desc("profile.json"), cl::sub(command()),
            cl::cat(category()));
cl::opt<std::string>
    Machine("machine",
            cl::desc("TACCL's topology: dgx2, ndv2, dgx1, a100 or h100, in "
                     "any case (default: the word of the profile's name or of "
                     "the sketch's file name that names one)"),
            cl::value_desc("name"), cl::sub(command()), cl::cat(category()));
cl::opt<std::string>
    Collective("collective",
               cl::desc("The collective, which TACCL takes on its command "
                        "line (default allgather)"),
               cl::init("allgather"), cl::sub(command()), cl::cat(category()));
cl::opt<unsigned> Root("root",
                       cl::desc("Root rank of broadcast, reduce, scatter and "
                                "gather"),
                       cl::sub(command()), cl::cat(category()));
cl::opt<ByteSize> Size("size",
                       cl::desc("The sketch's size (default: with a profile, "
                                "every chunk the profile's size; else the "
                                "language's 1 MB)"),
                       cl::sub(command()), cl::cat(category()));
cl::opt<ByteSize>
    ProfileSize("profile-size",
                cl::desc("The data size the profile's betas were multiplied "
                         "by (default: the size in the profile's name, as in "
                         "NDv2_32KB)"),
                cl::sub(command()), cl::cat(category()));
cl::opt<double>
    ProfileScale("profile-scale",
                 cl::desc("The factor the profile's costs were multiplied by "
                          "(TACCL's own 32KB and 1KB profiles: 10 and 100; "
                          "default 1)"),
                 cl::init(1.0), cl::sub(command()), cl::cat(category()));
cl::opt<std::string> Output("o",
                            cl::desc("Write the sketch here (atomically; "
                                     "default: stdout)"),
                            cl::value_desc("file.sketch"), cl::sub(command()),
                            cl::cat(category()));
cl::opt<bool> DiagNames("diag-names",
                        cl::desc("Append [DiagnosticName] to each message"),
                        cl::sub(command()), cl::cat(category()));

/// Adds the file \p Path to \p Diags's SourceMgr; its buffer, or 0 after
/// reporting why it cannot be read.
unsigned readInput(const std::string &Path, DiagnosticEngine &Diags) {
  std::string Why;
  std::unique_ptr<MemoryBuffer> Buf = readSourceFile(Path, Why);
  if (!Buf) {
    Diags.report(DiagId::CannotOpenFile, SMLoc(), Path, Why);
    return 0;
  }
  return Diags.getSourceMgr().AddNewSourceBuffer(std::move(Buf), SMLoc());
}
} // namespace

const cl::OptionCategory &tacclc::importTacclCategory() { return category(); }

std::optional<int> tacclc::runImportTacclIfNamed() {
  if (!command())
    return std::nullopt;
  SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Diags.setShowNames(DiagNames);
  if (!(ProfileScale > 0 && ProfileScale < 1e12)) {
    errs() << fmt::format("tacclc: error: --profile-scale must be a positive "
                          "number below 10^12, not {}\n",
                          ProfileScale.getValue());
    return ExitInternal;
  }
  TacclImportOptions O;
  O.Machine = Machine;
  O.Collective = Collective;
  if (Root.getNumOccurrences())
    O.Root = Root;
  if (Size.getNumOccurrences())
    O.SizeBytes = Size;
  if (ProfileSize.getNumOccurrences())
    O.ProfileBytes = ProfileSize;
  O.ProfileScale = ProfileScale;
  O.OutputPath = Output;
  O.StdlibDir = stdlibDir();
  if (!checkOutputs({Output}, Diags)) {
    Diags.flush(errs());
    return ExitUserError;
  }
  unsigned SketchBuf = readInput(Input, Diags);
  unsigned ProfileBuf = Profile.empty() ? 0 : readInput(Profile, Diags);
  std::optional<std::string> Text;
  if (SketchBuf && (Profile.empty() || ProfileBuf))
    Text = importTacclSketch(SketchBuf, ProfileBuf, O, Diags);
  if (!Text) {
    Diags.flush(errs());
    return ExitUserError;
  }
  return writeOutput(Output, *Text, Diags);
}
