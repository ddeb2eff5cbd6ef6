//===- tools/tacclc/TunePlan.cpp - The jobs of one tune -------------------===//
//
// Planning a tune (the machine, the candidates, the user's sketches, NCCL's
// algorithms, each job's key and folder), loading the results a cache
// already holds, and running the rest in parallel child processes
// (tools/tacclc/TunePlan.h).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/TunePlan.h"

#include "frontend/Frontend.h"
#include "frontend/MachineRef.h"
#include "support/InputFile.h"
#include "support/OutputFile.h"
#include "support/Stdlib.h"
#include "tune/Cache.h"
#include "tune/Candidates.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

using namespace tacclc;

namespace {
std::string absolute(llvm::StringRef Path) {
  llvm::SmallString<256> P(Path);
  llvm::sys::fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

std::string currentDir() {
  llvm::SmallString<256> P;
  llvm::sys::fs::current_path(P);
  return std::string(P);
}

std::optional<std::string> readText(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

/// How the generated sketches reach the machine: the module they import
/// and the folders to search for it.
struct MachineSource {
  std::string Import, Call;
  std::vector<std::string> IncludeDirs;
  std::string Text; ///< The machine file's text, for the keys.
};

std::optional<MachineSource> machineSource(const std::string &Reference,
                                           const TuneRequest &R) {
  MachineSource M;
  llvm::StringRef Ref(Reference);
  std::string File;
  size_t Colon = Ref.find(".sketch:");
  if (Colon != llvm::StringRef::npos) {
    File = absolute(Ref.substr(0, Colon + 7));
    M.Call = Ref.substr(Colon + 8).str();
    M.Import = llvm::sys::path::stem(File).str();
    M.IncludeDirs.push_back(std::string(llvm::sys::path::parent_path(File)));
  } else {
    M.Call = Reference;
    std::string Name = Ref.take_until([](char C) { return C == '('; }).str();
    std::string Std = stdlibDir() + "/topologies/" + Name + ".sketch";
    M.Import = llvm::sys::fs::exists(Std) ? "topologies/" + Name : Name;
    M.IncludeDirs.push_back(currentDir());
  }
  for (const std::string &I : R.IncludeDirs)
    M.IncludeDirs.push_back(absolute(I));
  FrontendOptions FO;
  FO.IncludeDirs = M.IncludeDirs;
  FO.StdlibDir = stdlibDir();
  std::string Path = findImport(M.Import, "/nonexistent/tune.sketch", FO);
  auto Text = Path.empty() ? std::nullopt : readText(Path);
  if (!Text) {
    llvm::errs() << "tacclc: error: tune cannot find the file of machine '"
                 << Reference << "' to import\n";
    return std::nullopt;
  }
  M.Text = *Text;
  return M;
}

std::string sizesText(const std::vector<std::uint64_t> &Sizes) {
  std::vector<std::string> S;
  for (std::uint64_t B : Sizes)
    S.push_back(std::to_string(B));
  return llvm::join(S, ",");
}

/// The key parts every job shares: the compiler, the machine, the
/// simulation's sweep and engine, the dialect.
std::vector<std::string> commonKey(const std::string &Digest, const TunePlan &P,
                                   const MachineSource &M) {
  return {"tacclc-tune-job-1",
          Digest,
          P.Reference,
          M.Text,
          sizesText(P.Request.Sizes),
          P.Request.Engine,
          P.Request.Legacy ? "legacy" : "executor"};
}

/// One sketch of a user's file, as tune needs it.
struct UserSketch {
  std::string Name, Collective;
  /// The machine it is on, as --topology names it.
  std::string Machine;
  unsigned Ranks = 0, GpusPerNode = 0;
};

/// A user's sketch file, loaded and analysed.
struct UserFile {
  std::string Path; ///< Absolute.
  std::vector<std::string> IncludeDirs;
  /// The text of every file its sketches read: part of their keys.
  std::vector<std::string> Texts;
  std::vector<UserSketch> Sketches;
};

/// Loads and analyses every sketch of \p File; nothing after printing the
/// front end's diagnostics.
std::optional<UserFile> loadUserFile(const std::string &File,
                                     const TuneRequest &R) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  // Errors and warnings alike are printed, whichever way this returns.
  struct Flush {
    DiagnosticEngine &D;
    ~Flush() { D.flush(llvm::errs()); }
  } Printed{Diags};
  std::string Why;
  auto Buf = readSourceFile(File, Why);
  if (!Buf) {
    llvm::errs() << "tacclc: error: cannot read " << File << ": " << Why
                 << "\n";
    return std::nullopt;
  }
  unsigned Id = SM.AddNewSourceBuffer(std::move(Buf), llvm::SMLoc());
  UserFile U;
  U.Path = absolute(File);
  FrontendOptions FO;
  for (const std::string &I : R.IncludeDirs)
    FO.IncludeDirs.push_back(absolute(I));
  FO.StdlibDir = stdlibDir();
  U.IncludeDirs = FO.IncludeDirs;
  auto Mods = loadModules(SM, Id, FO, Diags);
  if (!Mods)
    return std::nullopt;
  for (unsigned B = 1; B <= SM.getNumBuffers(); ++B)
    U.Texts.push_back(SM.getMemoryBuffer(B)->getBuffer().str());
  SketchAnalyzer Analyzer(*Mods, Diags);
  for (const SketchSummary &S : listSketches(*Mods)) {
    auto Sk = Analyzer.analyze(*S.Decl, Diags);
    if (!Sk)
      return std::nullopt;
    U.Sketches.push_back({S.Name, ir::collectiveName(Sk->Coll.getKind()).str(),
                          machineReference(Sk->On, SM, "."),
                          Sk->Topo.getNumRanks(), Sk->Topo.getGpusPerNode()});
  }
  return U;
}

/// Fills in what the request leaves to the user's files: the machine their
/// sketches are on (it must be one) and the collectives they do. False
/// after printing why.
bool requestFromFiles(TuneRequest &R, const std::vector<UserFile> &Files) {
  std::vector<std::string> Machines;
  for (const UserFile &U : Files)
    for (const UserSketch &S : U.Sketches) {
      if (!R.Collectives.empty() &&
          !llvm::is_contained(R.Collectives, S.Collective))
        continue;
      if (!tune::tunableCollective(S.Collective)) {
        llvm::errs() << "tacclc: warning: tune leaves out sketch '" << S.Name
                     << "': it synthesises allgather, alltoall, "
                        "reducescatter and allreduce, not "
                     << S.Collective << "\n";
        continue;
      }
      if (R.Topology.empty() && !S.Machine.empty() &&
          !llvm::is_contained(Machines, S.Machine))
        Machines.push_back(S.Machine);
    }
  const bool Derived = R.Topology.empty();
  if (Derived) {
    if (Machines.empty()) {
      llvm::errs() << "tacclc: error: tune needs --topology MACHINE: the "
                      "files of --sketches have no sketch it can tune\n";
      return false;
    }
    if (Machines.size() > 1) {
      llvm::errs() << "tacclc: error: the sketches of --sketches are on "
                      "several machines ("
                   << llvm::join(Machines, "; ")
                   << "): give --topology to tune one of them\n";
      return false;
    }
    R.Topology = Machines.front();
  }
  if (R.Collectives.empty())
    for (const UserFile &U : Files)
      for (const UserSketch &S : U.Sketches)
        if ((!Derived || S.Machine == R.Topology) &&
            tune::tunableCollective(S.Collective) &&
            !llvm::is_contained(R.Collectives, S.Collective))
          R.Collectives.push_back(S.Collective);
  if (R.Collectives.empty()) {
    llvm::errs() << "tacclc: error: tune needs --collective: no sketch of "
                    "--sketches does one it tunes\n";
    return false;
  }
  return true;
}

/// The jobs of the sketches of \p U that are on the tuned machine and do
/// one of the tuned collectives.
void userSketchJobs(const UserFile &U, TunePlan &P, const MachineSource &M,
                    const std::string &Digest, const std::string &CacheDir) {
  unsigned Taken = 0;
  for (const UserSketch &S : U.Sketches) {
    if (!llvm::is_contained(P.Request.Collectives, S.Collective) ||
        S.Ranks != P.Ranks || S.GpusPerNode != P.GpusPerNode)
      continue;
    PlannedJob J;
    J.Job.What = TuneJob::Sketch;
    J.Job.Label = S.Name;
    J.Job.Family = llvm::sys::path::filename(U.Path).str();
    J.Job.Collective = S.Collective;
    J.Job.SketchFile = U.Path;
    J.Job.SketchName = S.Name;
    J.Job.IncludeDirs = U.IncludeDirs;
    std::vector<std::string> Key = commonKey(Digest, P, M);
    Key.insert(Key.end(), {"user", S.Name,
                           fmt::format("{:g}", P.Request.TimeLimitSeconds)});
    Key.insert(Key.end(), U.Texts.begin(), U.Texts.end());
    J.Key = tune::contentKey(Key);
    J.Dir = CacheDir + "/" + J.Key;
    P.Jobs.push_back(std::move(J));
    ++Taken;
  }
  if (!Taken)
    llvm::errs() << "tacclc: warning: " << U.Path
                 << " has no sketch of the tuned collectives on " << P.Reference
                 << "\n";
}

/// NCCL's algorithms for \p Coll on the machine of \p P.
std::vector<std::string> baselineAlgorithms(const TunePlan &P,
                                            llvm::StringRef Coll) {
  std::vector<std::string> Out{"ring", "direct"};
  if (Coll == "allreduce")
    Out.push_back("tree");
  if (P.Nodes > 1)
    Out.push_back("hierarchical");
  return Out;
}
} // namespace

std::optional<TunePlan> tacclc::planTune(const TuneRequest &R,
                                         const std::string &Tacclc,
                                         const std::string &CacheDir) {
  TunePlan P;
  P.Request = R;
  std::vector<UserFile> Files;
  for (const std::string &File : R.SketchFiles) {
    auto U = loadUserFile(File, R);
    if (!U)
      return std::nullopt;
    Files.push_back(std::move(*U));
  }
  if ((R.Topology.empty() || R.Collectives.empty()) &&
      !requestFromFiles(P.Request, Files))
    return std::nullopt;
  for (const std::string &C : P.Request.Collectives)
    if (!tune::tunableCollective(C)) {
      llvm::errs() << "tacclc: error: tune synthesises allgather, alltoall, "
                      "reducescatter and allreduce, not '"
                   << C << "'\n";
      return std::nullopt;
    }
  auto Digest = tune::fileDigest(Tacclc);
  if (!Digest) {
    llvm::errs() << "tacclc: error: cannot read the compiler " << Tacclc
                 << "\n";
    return std::nullopt;
  }
  auto T = instantiateMachine(P.Request.Topology, R.IncludeDirs, llvm::errs(),
                              &P.Reference);
  if (!T)
    return std::nullopt;
  P.Ranks = T->getNumRanks();
  P.Nodes = T->getNumNodes();
  P.GpusPerNode = T->getGpusPerNode();
  auto M = machineSource(P.Reference, R);
  if (!M)
    return std::nullopt;
  const std::string Work = currentDir();
  auto Base = [&](PlannedJob &J) {
    J.Job.Topology = P.Reference;
    J.Job.WorkDir = Work;
    J.Job.TimeLimitSeconds = R.TimeLimitSeconds;
    J.Job.Legacy = R.Legacy;
    J.Job.Sizes = R.Sizes;
    J.Job.Engine = R.Engine;
  };
  tune::MachineFacts Facts = tune::describeMachine(*T, M->Import, M->Call);
  auto Bands = tune::sizeBands(R.Sizes.front(), R.Sizes.back());
  for (const std::string &Coll : P.Request.Collectives) {
    if (!R.NoCandidates)
      for (tune::Candidate &C : tune::generateCandidates(Facts, Coll, Bands)) {
        PlannedJob J;
        J.Job.What = TuneJob::Sketch;
        J.Job.Label = C.Name;
        J.Job.Family = C.Family;
        J.Job.Collective = Coll;
        J.Job.Band = C.Band;
        J.Job.IncludeDirs = M->IncludeDirs;
        std::vector<std::string> Key = commonKey(*Digest, P, *M);
        Key.insert(Key.end(), {"candidate", C.Text,
                               fmt::format("{:g}", R.TimeLimitSeconds)});
        J.Key = tune::contentKey(Key);
        J.Dir = CacheDir + "/" + J.Key;
        J.Job.SketchFile = J.Dir + "/" + C.Name + ".sketch";
        J.SketchText = std::move(C.Text);
        P.Jobs.push_back(std::move(J));
      }
    for (const std::string &Algo : baselineAlgorithms(P, Coll))
      for (const char *Proto : {"Simple", "LL128", "LL"}) {
        PlannedJob J;
        J.Job.What = TuneJob::Baseline;
        J.Job.Label = Algo + " " + Proto;
        J.Job.Family = "NCCL " + Algo;
        J.Job.Collective = Coll;
        J.Job.Algorithm = Algo;
        J.Job.Protocol = Proto;
        std::vector<std::string> Key = commonKey(*Digest, P, *M);
        Key.insert(Key.end(), {"baseline", Algo, Proto, Coll});
        J.Key = tune::contentKey(Key);
        J.Dir = CacheDir + "/" + J.Key;
        P.Jobs.push_back(std::move(J));
      }
  }
  for (const UserFile &U : Files)
    userSketchJobs(U, P, *M, *Digest, CacheDir);
  for (PlannedJob &J : P.Jobs)
    Base(J);
  return P;
}

bool tacclc::prepareJobs(TunePlan &P) {
  for (PlannedJob &J : P.Jobs) {
    if (std::error_code EC = llvm::sys::fs::create_directories(J.Dir)) {
      llvm::errs() << "tacclc: error: cannot create " << J.Dir << ": "
                   << EC.message() << "\n";
      return false;
    }
    std::vector<OutputFile> Files{{J.Dir + "/job.json", jobJson(J.Job)}};
    if (!J.SketchText.empty())
      Files.push_back({J.Job.SketchFile, J.SketchText});
    OutputError E;
    if (!writeOutputFiles(Files, {}, E)) {
      llvm::errs() << "tacclc: error: cannot write " << E.Path << ": "
                   << E.Reason << "\n";
      return false;
    }
  }
  return true;
}

namespace {
/// Loads \p J's result from its folder or the same-named folder under one
/// of \p MoreDirs; false if there is none.
bool loadResult(PlannedJob &J, const std::vector<std::string> &MoreDirs) {
  std::vector<std::string> Where{J.Dir};
  for (const std::string &D : MoreDirs)
    Where.push_back(D + "/" + J.Key);
  for (const std::string &Dir : Where) {
    auto Text = readText(Dir + "/result.json");
    if (!Text)
      continue;
    std::string Error;
    J.Result = parseResultJson(*Text, Error);
    if (!J.Result) {
      J.Missing = Dir + "/result.json: " + Error;
      continue;
    }
    J.Dir = Dir;
    J.Cached = true;
    J.Missing.clear();
    return true;
  }
  return false;
}
} // namespace

void tacclc::loadResults(TunePlan &P,
                         const std::vector<std::string> &MoreDirs) {
  for (PlannedJob &J : P.Jobs)
    loadResult(J, MoreDirs);
}

namespace {
/// A progress line: a bar on a terminal, a plain line in a log.
void progress(unsigned Done, unsigned Total, const PlannedJob &J,
              double Elapsed) {
  const TuneResult &R = *J.Result;
  std::string What = R.Status == "ok"
                         ? fmt::format("ok, {:.1f} s", R.Seconds)
                         : fmt::format("{}: {}", R.Status, R.Message);
  std::string Line = fmt::format("tune: [{}/{}] {} {}: {}", Done, Total,
                                 J.Job.Collective, J.Job.Label, What);
  if (llvm::sys::Process::StandardErrIsDisplayed()) {
    const unsigned Width = 24;
    unsigned Fill = Total ? Done * Width / Total : Width;
    Line = fmt::format("[{}{}] {:.0f} s  ", std::string(Fill, '#'),
                       std::string(Width - Fill, '.'), Elapsed) +
           Line.substr(6);
  }
  llvm::errs() << Line << "\n";
}
} // namespace

void tacclc::runTuneJobs(TunePlan &P, const std::string &Tacclc,
                         unsigned Parallel, double BudgetSeconds) {
  std::vector<PlannedJob *> Todo;
  for (PlannedJob &J : P.Jobs)
    if (!J.Result)
      Todo.push_back(&J);
  const auto Start = std::chrono::steady_clock::now();
  auto Elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  };
  struct Running {
    PlannedJob *J;
    llvm::sys::ProcessInfo PI;
  };
  std::vector<Running> Busy;
  size_t Next = 0;
  unsigned Done = 0;
  Parallel = std::max(Parallel, 1u);
  while (Next < Todo.size() || !Busy.empty()) {
    while (Next < Todo.size() && Busy.size() < Parallel) {
      PlannedJob &J = *Todo[Next++];
      if (BudgetSeconds > 0 && Elapsed() >= BudgetSeconds) {
        J.Missing =
            fmt::format("not run: over the budget of {:g} s", BudgetSeconds);
        continue;
      }
      std::vector<llvm::StringRef> Args{Tacclc, "tune", "--run-job", J.Dir};
      std::string Err;
      llvm::sys::ProcessInfo PI =
          llvm::sys::ExecuteNoWait(Tacclc, Args, llvm::None, {}, 0, &Err);
      if (PI.Pid <= 0) {
        J.Missing = "could not start: " + Err;
        continue;
      }
      Busy.push_back({&J, PI});
    }
    bool Any = false;
    for (size_t I = 0; I < Busy.size();) {
      llvm::sys::ProcessInfo W =
          llvm::sys::Wait(Busy[I].PI, 0, /*WaitUntilTerminates=*/false);
      if (W.Pid == 0) {
        ++I;
        continue;
      }
      PlannedJob &J = *Busy[I].J;
      Busy.erase(Busy.begin() + I);
      Any = true;
      ++Done;
      if (!loadResult(J, {})) {
        J.Missing =
            fmt::format("the job process failed (exit {})", W.ReturnCode);
        llvm::errs() << "tune: " << J.Job.Label << ": " << J.Missing << "\n";
        continue;
      }
      J.Cached = false;
      progress(Done, unsigned(Todo.size()), J, Elapsed());
    }
    if (!Any)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}
