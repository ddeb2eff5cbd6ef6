//===- frontend/TacclImport.cpp - TACCL's JSON sketches as sketches -------===//
//
// importTacclSketch(): parse the JSON files, pick the machine (--machine,
// else a word of the profile's name, else of the sketch file's name), read
// the sketch's keys (TacclSketch.cpp) and the profile (TacclMachines.cpp),
// and write the file: a header comment saying where everything came from,
// the machine (an import of the standard library's, or the profile's copy),
// and the sketch with `collective`, `size` and `chunks` first. The text is
// laid out by the checked formatter (what `tacclc fmt` prints) and analysed
// by the front end, as `tacclc FILE.sketch` would, before it is returned.
//
//===----------------------------------------------------------------------===//
#include "frontend/TacclImport.h"

#include "frontend/FormatChecked.h"
#include "frontend/Frontend.h"
#include "frontend/TacclSketch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace tacclc;

namespace {

/// A collective and how many chunks its larger buffer holds.
struct CollectiveKind {
  const char *Name;
  bool Rooted;
  bool RanksTimesChunks; ///< The larger buffer holds R x K chunks, else K.
};

constexpr CollectiveKind Collectives[] = {
    {"allgather", false, true},     {"alltoall", false, true},
    {"reducescatter", false, true}, {"allreduce", false, true},
    {"broadcast", true, false},     {"reduce", true, false},
    {"scatter", true, true},        {"gather", true, true}};

/// The collective \p Name names, in the language's spelling or TACCL's
/// (`Allgather`, `ReduceScatter`, `reduce_scatter`).
const CollectiveKind *findCollective(llvm::StringRef Name) {
  std::string Key;
  for (char C : Name)
    if (C != '_' && C != '-')
      Key += llvm::toLower(C);
  for (const CollectiveKind &K : Collectives)
    if (Key == K.Name)
      return &K;
  return nullptr;
}

/// \p Bytes in a unit the language accepts.
std::string sketchSize(uint64_t Bytes) {
  static constexpr std::pair<const char *, uint64_t> Units[] = {
      {"GB", 1000000000}, {"GiB", uint64_t(1) << 30},
      {"MB", 1000000},    {"MiB", 1 << 20},
      {"KB", 1000},       {"KiB", 1 << 10}};
  for (auto [Name, Scale] : Units)
    if (Bytes % Scale == 0)
      return std::to_string(Bytes / Scale) + " " + Name;
  return std::to_string(Bytes) + " B";
}

/// \p Text as `//` comment lines of at most 80 columns, broken at spaces
/// but not at \x1f, which becomes a space.
std::string commentLines(llvm::StringRef Text) {
  std::string Out, Line = "//";
  llvm::SmallVector<llvm::StringRef, 64> Words;
  Text.split(Words, ' ', -1, false);
  for (llvm::StringRef W : Words) {
    if (Line.size() + 1 + W.size() > 80 && Line != "//") {
      Out += Line + "\n";
      Line = "//";
    }
    Line += " " + W.str();
  }
  Out += Line + "\n";
  std::replace(Out.begin(), Out.end(), '\x1f', ' ');
  return Out;
}

/// The machine an import is for; \p How says who named it.
const TacclMachine *pickMachine(const TacclImportOptions &Opts,
                                llvm::StringRef SketchFile,
                                const JsonDocument *Profile,
                                DiagnosticEngine &Diags, std::string &How) {
  if (!Opts.Machine.empty()) {
    How = "--machine";
    if (const TacclMachine *M = findTacclMachine(Opts.Machine))
      return M;
    Diagnostic &D = Diags.report(DiagId::UnknownTacclTopology, llvm::SMLoc(),
                                 Opts.Machine, tacclMachineNames());
    const TacclMachine *Near = nullptr;
    unsigned Best = 3; // at most two edits away
    for (const TacclMachine &M : tacclMachines())
      if (unsigned Dist = llvm::StringRef(M.Name).edit_distance(
              llvm::StringRef(Opts.Machine).lower());
          Dist < Best)
        Near = &M, Best = Dist;
    if (Near)
      Diags.note(D, DiagId::DidYouMean, llvm::SMRange(), Near->Name);
    return nullptr;
  }
  const TacclMachine *FromProfile = nullptr;
  if (Profile)
    if (const llvm::json::Object *O = Profile->root().getAsObject())
      if (llvm::Optional<llvm::StringRef> Name = O->getString("name"))
        FromProfile = machineInName(*Name);
  const TacclMachine *FromFile = machineInName(SketchFile);
  if (FromProfile && FromFile && FromProfile != FromFile) {
    Diags.report(DiagId::TacclTopologyConflict, llvm::SMLoc(),
                 FromProfile->Name, FromFile->Name);
    return nullptr;
  }
  How = FromProfile ? "the profile's name" : "the sketch's file name";
  if (const TacclMachine *M = FromProfile ? FromProfile : FromFile)
    return M;
  Diags.report(DiagId::TacclTopologyUnnamed, llvm::SMLoc(), SketchFile,
               Profile ? " or of the profile's name" : "", tacclMachineNames());
  return nullptr;
}

/// The values of the sketch's `collective` and `size` items (no size:
/// none).
struct CollectiveAndSize {
  std::string Collective; ///< `allgather`, `broadcast root 3`.
  std::string Size;
};

/// The collective and the sketch's size; nothing after errors.
std::optional<CollectiveAndSize>
collectiveAndSize(const TacclImportOptions &Opts, const TacclSketch &S,
                  int64_t Ranks, std::optional<uint64_t> ProfileBytes,
                  DiagnosticEngine &Diags) {
  const CollectiveKind *K = findCollective(Opts.Collective);
  if (!K) {
    std::vector<llvm::StringRef> Names;
    for (const CollectiveKind &C : Collectives)
      Names.push_back(C.Name);
    Diags.report(DiagId::ImportUnknownCollective, llvm::SMLoc(),
                 Opts.Collective, llvm::join(Names, ", "));
    return std::nullopt;
  }
  if (K->Rooted != Opts.Root.has_value()) {
    Diags.report(K->Rooted ? DiagId::ImportRootRequired
                           : DiagId::ImportRootNotAllowed,
                 llvm::SMLoc(), K->Name);
    return std::nullopt;
  }
  CollectiveAndSize Result{K->Name, ""};
  if (Opts.Root) {
    if (*Opts.Root < 0 || *Opts.Root >= Ranks) {
      Diags.report(DiagId::ImportRootOutOfRange, llvm::SMLoc(), *Opts.Root,
                   Ranks - 1);
      return std::nullopt;
    }
    Result.Collective += " root " + std::to_string(*Opts.Root);
  }
  if (Opts.SizeBytes)
    Result.Size = sketchSize(*Opts.SizeBytes);
  if (Opts.SizeBytes || !ProfileBytes)
    return Result;
  // Each chunk as large as the profile's betas were for, as TACCL costs
  // every chunk.
  uint64_t Count = K->RanksTimesChunks ? Ranks * S.Chunks : S.Chunks;
  constexpr uint64_t MaxBytes = 1000000000000000; // the language's 1 PB
  if (*ProfileBytes > MaxBytes / Count) {
    Diags.report(DiagId::ImportSizeTooLarge, llvm::SMLoc(), Count,
                 *ProfileBytes, MaxBytes);
    return std::nullopt;
  }
  Result.Size = sketchSize(Count * *ProfileBytes);
  return Result;
}

/// Everything the imported file is made of.
struct ImportedFile {
  std::vector<std::string> Notes; ///< Sentences of the header comment.
  std::string Machine;            ///< The machine's import or its declaration.
  std::string MachineName;
  std::string SketchName;
  CollectiveAndSize Items;
  const TacclSketch *Sketch = nullptr;
};

/// The text of \p F, before its layout.
std::string fileText(const ImportedFile &F) {
  std::string Text =
      commentLines(llvm::join(F.Notes, " ")) + "\n" + F.Machine + "\n\n";
  Text += fmt::format("sketch {} on {}(nodes: {}) {{\ncollective {}\n",
                      F.SketchName, F.MachineName, F.Sketch->Nodes,
                      F.Items.Collective);
  if (!F.Items.Size.empty())
    Text += "size " + F.Items.Size + "\n";
  Text += "chunks " + std::to_string(F.Sketch->Chunks) + "\n";
  for (const std::string &Item : F.Sketch->Items)
    Text += Item + "\n";
  return Text + "}\n";
}

/// The parts of the file that imports \p SketchFile (and \p ProfileFile,
/// when not empty) for machine \p M (named by \p How), with the profile's
/// machine \p PM if any.
ImportedFile importedFile(llvm::StringRef SketchFile,
                          llvm::StringRef ProfileFile, const TacclMachine &M,
                          llvm::StringRef How, const ProfileMachine *PM,
                          const TacclSketch &S, const CollectiveAndSize &Items,
                          bool SizeGiven) {
  ImportedFile F;
  F.Items = Items;
  F.Sketch = &S;
  F.MachineName = PM ? PM->Name : M.Name;
  F.SketchName = sketchIdentifier(llvm::sys::path::stem(SketchFile));
  if (F.SketchName == F.MachineName)
    F.SketchName += "_sketch";
  F.Notes.push_back(fmt::format(
      "Imported by `tacclc import-taccl` from "
      "TACCL's communication sketch {}{}. TACCL "
      "topology: {} (named by {}).",
      SketchFile.str(),
      ProfileFile.empty() ? "" : " and topology profile " + ProfileFile.str(),
      M.Name, How.str()));
  if (PM) {
    F.Notes.insert(F.Notes.end(), PM->Notes.begin(), PM->Notes.end());
    F.Machine = PM->Definition;
  } else {
    F.Notes.push_back(fmt::format("Machine: the standard library's {} "
                                  "(\"{}\") with its own costs.",
                                  M.Name, M.Module));
    F.Machine = fmt::format("import \"{}\"", M.Module);
  }
  F.Notes.push_back(fmt::format("Collective: {} (--collective; TACCL takes "
                                "it on its command line).",
                                Items.Collective));
  F.Notes.push_back(Items.Size.empty() ? "Size: the language's default "
                                         "(1\x1fMB)."
                    : SizeGiven        ? "Size: --size."
                                       : "Size: every chunk the profile's "
                                         "size, as TACCL costs each chunk.");
  return F;
}

/// Lays out \p Text and analyses it as the file \p Name; the layout, or
/// nothing after errors.
std::optional<std::string>
formatAndCheck(const std::string &Text, const std::string &Name,
               llvm::StringRef SketchName, const TacclImportOptions &Opts,
               llvm::StringRef From, DiagnosticEngine &Diags) {
  FormatOutcome Outcome;
  std::optional<std::string> Formatted =
      formatChecked(Text, Name, Diags, Outcome);
  if (!Formatted || Outcome != FormatOutcome::Formatted)
    reportInternalError("import-taccl wrote a sketch that does not format:\n" +
                        Text);
  llvm::SourceMgr &SM = Diags.getSourceMgr();
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(*Formatted, Name), llvm::SMLoc());
  FrontendOptions FO;
  FO.StdlibDir = Opts.StdlibDir;
  std::optional<ModuleSet> Modules = loadModules(SM, Id, FO, Diags);
  if (Modules)
    analyzeSketch(*Modules, SketchName, Diags);
  if (Diags.hasErrors()) {
    Diags.report(DiagId::ImportRejected, llvm::SMLoc(), From);
    return std::nullopt;
  }
  return Formatted;
}

} // namespace

std::optional<std::string>
tacclc::importTacclSketch(unsigned SketchBuffer, unsigned ProfileBuffer,
                          const TacclImportOptions &Opts,
                          DiagnosticEngine &Diags) {
  llvm::SourceMgr &SM = Diags.getSourceMgr();
  std::string SketchPath =
      SM.getMemoryBuffer(SketchBuffer)->getBufferIdentifier().str();
  llvm::StringRef SketchFile = llvm::sys::path::filename(SketchPath);
  std::optional<JsonDocument> Doc = JsonDocument::parse(SketchBuffer, Diags);
  std::optional<JsonDocument> Profile;
  if (ProfileBuffer)
    Profile = JsonDocument::parse(ProfileBuffer, Diags);
  if (!Doc || (ProfileBuffer && !Profile))
    return std::nullopt;
  std::string How;
  const TacclMachine *M =
      pickMachine(Opts, SketchFile, Profile ? &*Profile : nullptr, Diags, How);
  if (!M)
    return std::nullopt;
  JsonReader Reader(*Doc, Diags);
  std::optional<TacclSketch> S = readTacclSketch(Reader, *M);
  std::optional<ProfileMachine> PM;
  if (Profile) {
    JsonReader ProfileReader(*Profile, Diags);
    PM = profileMachine(*M, ProfileReader,
                        {Opts.ProfileBytes, Opts.ProfileScale}, Opts.StdlibDir,
                        Diags);
  }
  if (!S || Diags.hasErrors())
    return std::nullopt;
  std::optional<CollectiveAndSize> Items = collectiveAndSize(
      Opts, *S, S->Nodes * M->Gpus,
      PM ? std::optional<uint64_t>(PM->Bytes) : std::nullopt, Diags);
  if (!Items)
    return std::nullopt;

  ImportedFile F = importedFile(
      SketchFile, Profile ? llvm::sys::path::filename(Profile->name()) : "", *M,
      How, PM ? &*PM : nullptr, *S, *Items, Opts.SizeBytes.has_value());
  std::string Out = Opts.OutputPath.empty() || Opts.OutputPath == "-"
                        ? F.SketchName + ".sketch"
                        : Opts.OutputPath;
  return formatAndCheck(fileText(F), Out, F.SketchName, Opts, SketchFile,
                        Diags);
}
