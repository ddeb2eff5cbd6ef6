//===- tools/tacclc/TuneReport.cpp - What a tune chose and wrote ----------===//
//
// Selection per size, the algorithm folder (written through a staging
// folder, each file checked, the whole loaded as libtaccl-nccl loads it
// before anything replaces the previous output), and the reports
// (tools/tacclc/TuneReport.h).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/TuneReport.h"
#include "tools/tacclc/Charts.h"
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/TuneOutcome.h"

#include "format/Collective.h"
#include "format/Dialect.h"
#include "format/Loader.h"
#include "shim/AlgoRegistry.h"
#include "support/OutputFile.h"
#include "support/Sizes.h"
#include "tune/Stitch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <map>
#include <regex>
#include <unistd.h>

using namespace tacclc;
namespace json = llvm::json;

namespace {
std::optional<std::string> readText(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

std::string fileSafe(llvm::StringRef S) {
  std::string Out;
  for (char C : S)
    Out += llvm::isAlnum(C) || C == '_' || C == '-' ? C : '_';
  return Out;
}

/// \p Xml with its algo element's minBytes and maxBytes set.
std::string withRange(const std::string &Xml, std::uint64_t Min,
                      std::uint64_t Max) {
  size_t Start = Xml.find("<algo");
  size_t End = Start == std::string::npos ? Start : Xml.find('>', Start);
  if (End == std::string::npos)
    return Xml;
  std::string Tag = Xml.substr(Start, End - Start);
  auto Set = [&](const char *Name, std::uint64_t V) {
    std::regex Re(std::string("\\b") + Name + "=\"[0-9]*\"");
    std::string Attr = fmt::format("{}=\"{}\"", Name, V);
    if (std::regex_search(Tag, Re))
      Tag = std::regex_replace(Tag, Re, Attr,
                               std::regex_constants::format_first_only);
    else
      Tag += " " + Attr;
  };
  Set("minBytes", Min);
  Set("maxBytes", Max);
  return Xml.substr(0, Start) + Tag + Xml.substr(End);
}

/// `tacclc bounds` at every size of the sweep: the bound's time per size.
std::vector<std::optional<double>> bounds(const TunePlan &P,
                                          const std::string &Tacclc,
                                          const std::string &Coll,
                                          const std::string &Tmp) {
  std::vector<std::optional<double>> Out(P.Request.Sizes.size());
  std::vector<std::string> Sizes;
  for (std::uint64_t S : P.Request.Sizes)
    Sizes.push_back(std::to_string(S));
  std::string List = llvm::join(Sizes, ",");
  std::vector<llvm::StringRef> Args{Tacclc,      "bounds",       "--topology",
                                    P.Reference, "--collective", Coll,
                                    "--size",    List,           "--json"};
  std::string OutFile = Tmp + "/bounds.json";
  llvm::Optional<llvm::StringRef> Redirects[] = {
      llvm::StringRef(""), llvm::StringRef(OutFile), llvm::StringRef("")};
  if (llvm::sys::ExecuteAndWait(Tacclc, Args, llvm::None, Redirects, 600) != 0)
    return Out;
  auto Text = readText(OutFile);
  llvm::sys::fs::remove(OutFile);
  auto V = Text ? json::parse(*Text) : llvm::Expected<json::Value>(nullptr);
  if (!V) {
    llvm::consumeError(V.takeError());
    return Out;
  }
  if (const json::Array *A = V->getAsArray())
    for (size_t I = 0; I < A->size() && I < Out.size(); ++I)
      if (const json::Object *O = (*A)[I].getAsObject())
        if (const json::Object *B = O->getObject("bound"))
          if (auto T = B->getNumber("time_us"))
            Out[I] = *T;
  return Out;
}

TuneOutcome choose(const TunePlan &P, const std::string &Coll) {
  TuneOutcome O;
  O.Coll = Coll;
  O.Kind = *tacclrt::parseCollName(Coll, tacclrt::Dialect::Executor);
  const size_t N = P.Request.Sizes.size();
  std::vector<tune::ProgramTimes> Times;
  for (const PlannedJob &J : P.Jobs) {
    if (J.Job.Collective != Coll || !J.Result || J.Result->Status != "ok")
      continue;
    for (const TuneProgram &Prog : J.Result->Programs) {
      O.Programs.push_back({&J, &Prog});
      tune::ProgramTimes T;
      T.TimesUs = Prog.TimesUs;
      T.TimesUs.resize(N);
      T.Nccl = J.Job.What == TuneJob::Baseline;
      const bool Nccl = T.Nccl;
      Times.push_back(std::move(T));
      if (Nccl) {
        auto &Best = O.Nccl[J.Job.Algorithm];
        Best.resize(N);
        for (size_t I = 0; I < N; ++I)
          if (Times.back().TimesUs[I] &&
              (!Best[I] || *Times.back().TimesUs[I] < *Best[I]))
            Best[I] = Times.back().TimesUs[I];
      }
    }
  }
  O.Winners = tune::pickWinners(P.Request.Sizes, Times);
  O.Ranges = tune::stitchRanges(O.Winners);
  O.BestNccl.assign(N, -1);
  for (size_t I = 0; I < N; ++I)
    for (size_t K = 0; K < Times.size(); ++K)
      if (Times[K].Nccl && Times[K].TimesUs[I] &&
          (O.BestNccl[I] < 0 ||
           *Times[K].TimesUs[I] < *Times[O.BestNccl[I]].TimesUs[I]))
        O.BestNccl[I] = int(K);
  return O;
}

} // namespace

int tacclc::writeTuneOutput(const TunePlan &P, const std::string &OutDir,
                            const std::string &Tacclc, double Seconds) {
  const auto D =
      P.Request.Legacy ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
  if (std::error_code EC = llvm::sys::fs::create_directories(OutDir)) {
    llvm::errs() << "tacclc: error: cannot create " << OutDir << ": "
                 << EC.message() << "\n";
    return ExitUserError;
  }
  // The folder holds what an earlier tune wrote, or nothing of TACCL-EF:
  // tune replaces its own files only.
  std::vector<std::string> Old;
  bool Ours = llvm::sys::fs::exists(OutDir + "/report.json");
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(OutDir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.endswith(".xml") || Name.endswith(".svg") ||
        Name.startswith("report."))
      Old.push_back(It->path());
  }
  if (!Ours && llvm::any_of(Old, [](const std::string &F) {
        return llvm::StringRef(F).endswith(".xml");
      })) {
    llvm::errs() << "tacclc: error: " << OutDir
                 << " holds XML files that tune did not write; give tune a "
                    "folder of its own\n";
    return ExitUserError;
  }
  const std::string Stage =
      fmt::format("{}/.tune-staging-{}", OutDir, long(::getpid()));
  llvm::sys::fs::remove_directories(Stage);
  if ((EC = llvm::sys::fs::create_directories(Stage))) {
    llvm::errs() << "tacclc: error: cannot create " << Stage << ": "
                 << EC.message() << "\n";
    return ExitUserError;
  }
  auto Fail = [&](const std::string &Why) {
    llvm::errs() << "tacclc: error: " << Why << "\n";
    llvm::sys::fs::remove_directories(Stage);
    return ExitUserError;
  };

  std::vector<TuneOutcome> Outcomes;
  std::vector<OutputFile> Files;
  for (const std::string &Coll : P.Request.Collectives) {
    TuneOutcome O = choose(P, Coll);
    O.BoundUs = bounds(P, Tacclc, Coll, Stage);
    unsigned Index = 0;
    for (const tune::ServedRange &R : O.Ranges) {
      if (R.Forward || R.Program < 0) {
        O.RangeFiles.push_back("");
        continue;
      }
      const TuneEntry &E = O.Programs[R.Program];
      auto Text = readText(E.Job->Dir + "/" + E.Prog->File);
      if (!Text)
        return Fail("cannot read " + E.Job->Dir + "/" + E.Prog->File);
      auto [Min, Max] = tune::xmlBounds(R, D);
      std::string Name =
          fmt::format("{}-{:02}-{}-{}.xml", Coll, ++Index,
                      fileSafe(E.Job->Job.Label), E.Prog->Protocol);
      O.RangeFiles.push_back(Name);
      Files.push_back({Stage + "/" + Name, withRange(*Text, Min, Max)});
    }
    Outcomes.push_back(std::move(O));
  }
  OutputError OE;
  if (!writeOutputFiles(Files, {}, OE))
    return Fail("cannot write " + OE.Path + ": " + OE.Reason);
  if (auto Why = verifyFolder(P, Outcomes, Stage, Tacclc))
    return Fail(*Why);

  std::vector<OutputFile> Reports{
      {Stage + "/report.json", reportJson(P, Outcomes)},
      {Stage + "/report.md", reportMarkdown(P, Outcomes)}};
  for (const TuneOutcome &O : Outcomes)
    Reports.push_back({Stage + "/" + O.Coll + ".svg", envelopeChart(P, O)});
  if (!writeOutputFiles(Reports, {}, OE))
    return Fail("cannot write " + OE.Path + ": " + OE.Reason);

  // Verified: the earlier output goes, the new one moves in.
  for (const std::string &F : Old)
    llvm::sys::fs::remove(F);
  for (llvm::sys::fs::directory_iterator It(Stage, EC), End; It != End && !EC;
       It.increment(EC)) {
    std::string To = OutDir + "/" + llvm::sys::path::filename(It->path()).str();
    if (std::error_code R = llvm::sys::fs::rename(It->path(), To))
      return Fail("cannot move " + It->path() + " to " + To + ": " +
                  R.message());
  }
  llvm::sys::fs::remove_directories(Stage);
  printSummary(P, Outcomes, OutDir, Seconds);
  return ExitSuccess;
}
