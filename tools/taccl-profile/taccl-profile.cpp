//===- tools/taccl-profile/taccl-profile.cpp - Measure a machine ----------===//
//
// taccl-profile [-o FILE.sketch] [--json FILE] [--name NAME] [--date DATE]
//               [--nodes N --node K --id-file PATH]
//               [--simulate MACHINE(args) [--noise X] [--seed N]
//                [--nic-near G] [--remove-link A-B] [--share-nic A,B]]
//
// Measures the GPUs it runs on (CUDA + NCCL, one process per node driving
// every local GPU; with --nodes 2 or more, one such process on each node,
// started by hand or by a launcher, meeting through --id-file) and writes the
// machine as a `.sketch` description with fitted alpha and beta per link class
// (Profile.h). With --simulate it measures a simulated machine instead: a
// described machine (a stdlib one such as `ndv2(nodes: 2)` or
// `FILE.sketch:NAME(args)`) with hidden parts (SimProber.h), which is how the
// inference is tested without a GPU and how a user can see what the profiler
// would write. Exit status: 0 written, 1 a measurement or machine problem, 2
// bad usage.
//
//===----------------------------------------------------------------------===//
#include "CudaProber.h"
#include "Profile.h"
#include "SimProber.h"

#include "frontend/Frontend.h"
#include "support/OutputFile.h"
#include "frontend/MachineRef.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <fmt/format.h>

using namespace llvm;
using namespace tacclc;
using namespace tacclc::profile;

namespace {

cl::OptionCategory Cat("Profile options");
cl::opt<std::string> Output("o",
                            cl::desc("Write the machine here (default: "
                                     "stdout)"),
                            cl::value_desc("file.sketch"), cl::cat(Cat));
cl::opt<std::string> JsonOut("json",
                             cl::desc("Write the raw measurements here"),
                             cl::value_desc("file.json"), cl::cat(Cat));
cl::opt<std::string> Name("name",
                          cl::desc("The machine's name (default "
                                   "measured)"),
                          cl::init("measured"), cl::cat(Cat));
cl::opt<std::string> Date("date",
                          cl::desc("The date written (default: today, UTC)"),
                          cl::cat(Cat));
cl::opt<std::string>
    Simulate("simulate",
             cl::desc("Measure a simulated machine: a stdlib machine with "
                      "arguments or FILE.sketch:NAME(args)"),
             cl::value_desc("machine"), cl::cat(Cat));
cl::list<std::string> IncludeDirs("I",
                                  cl::desc("Search this folder for "
                                           "imports (--simulate)"),
                                  cl::Prefix, cl::cat(Cat));
cl::opt<double> Noise("noise",
                      cl::desc("Simulated: relative noise of every "
                               "timing (default 0.01)"),
                      cl::init(0.01), cl::cat(Cat));
cl::opt<unsigned> Seed("seed", cl::desc("Simulated: the noise's seed"),
                       cl::init(1), cl::cat(Cat));
cl::opt<int> NicNear("nic-near",
                     cl::desc("Simulated: the GPU next to each "
                              "NIC (default its first)"),
                     cl::init(-1), cl::cat(Cat));
cl::list<std::string> RemoveLink("remove-link",
                                 cl::desc("Simulated: a missing link, A-B "
                                          "(local GPUs)"),
                                 cl::cat(Cat));
cl::opt<unsigned> Nodes("nodes",
                        cl::desc("Measure this many nodes, one process on "
                                 "each (default 1)"),
                        cl::init(1), cl::cat(Cat));
cl::opt<unsigned> Node("node",
                       cl::desc("This process's node (0 writes the "
                                "files)"),
                       cl::init(0), cl::cat(Cat));
cl::opt<std::string> IdFile("id-file",
                            cl::desc("With several nodes: a file on a shared "
                                     "file system for NCCL's unique id"),
                            cl::cat(Cat));
cl::opt<std::string> ShareNic("share-nic",
                              cl::desc("Simulated: GPUs whose NICs are one, "
                                       "A,B,..."),
                              cl::cat(Cat));

std::string today() {
  std::time_t Now = std::time(nullptr);
  std::tm Utc{};
  gmtime_r(&Now, &Utc);
  char Buf[16];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%d", &Utc);
  return Buf;
}

/// Prints why an output cannot be written; false, for returning.
bool cannotWrite(const OutputError &Err) {
  errs() << "taccl-profile: error: cannot write '" << Err.Path
         << "': " << Err.Reason << "\n";
  return false;
}

/// Writes the description and the measurements together, or neither
/// (support/OutputFile.h: atomic, through links, never over an input).
bool write(llvm::ArrayRef<OutputFile> Files) {
  OutputError Err;
  return writeOutputFiles(Files, OutputOptions(), Err) || cannotWrite(Err);
}

/// Whether \p Name can name a machine: the language's parser decides
/// (letters, digits and '_', not a keyword).
bool isMachineName(const std::string &Name) {
  if (Name.empty() || Name.find_first_not_of(
                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789_") != std::string::npos)
    return false;
  llvm::SourceMgr SM;
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("machine " + Name + " {}", "name"),
      llvm::SMLoc());
  DiagnosticEngine Quiet(SM);
  return parseSketch(SM, Id, Quiet) != nullptr;
}

} // namespace

int main(int Argc, char **Argv) {
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(
      Argc, Argv,
      "taccl-profile: measure a machine's GPUs and write its .sketch "
      "description (alpha and beta per link class, switches, NICs)\n");
  if (!isMachineName(Name)) {
    errs() << "taccl-profile: error: --name must be a name of the sketch "
              "language (letters, digits, '_'; not a keyword), not '"
           << Name << "'\n";
    return 2;
  }
  std::unique_ptr<Prober> P;
  if (!Simulate.empty()) {
    SimOptions SO;
    SO.Noise = Noise;
    SO.Seed = Seed;
    SO.NicNear = NicNear;
    for (const std::string &L : RemoveLink) {
      unsigned A = 0, B = 0;
      if (std::sscanf(L.c_str(), "%u-%u", &A, &B) != 2) {
        errs() << "taccl-profile: error: --remove-link takes A-B, not '" << L
               << "'\n";
        return 2;
      }
      SO.RemoveLinks.push_back({A, B});
    }
    StringRef Rest(ShareNic);
    while (!Rest.empty()) {
      auto [Item, Tail] = Rest.split(',');
      unsigned G = 0;
      if (Item.trim().getAsInteger(10, G)) {
        errs() << "taccl-profile: error: --share-nic takes A,B,..., not '"
               << ShareNic << "'\n";
        return 2;
      }
      SO.ShareNic.push_back(G);
      Rest = Tail;
    }
    std::optional<ir::Topology> T = instantiateMachine(
        Simulate,
        std::vector<std::string>(IncludeDirs.begin(), IncludeDirs.end()));
    if (!T)
      return 1;
    P = std::make_unique<SimProber>(std::move(*T), SO, Simulate);
  } else {
    std::string Why;
    if (Node >= Nodes) {
      errs() << "taccl-profile: error: --node must be below --nodes\n";
      return 2;
    }
    CudaProberOptions CO;
    CO.Nodes = Nodes;
    CO.Node = Node;
    CO.IdFile = IdFile;
    P = makeCudaProber(CO, Why);
    if (!P) {
      errs() << "taccl-profile: error: " << Why
             << " (--simulate MACHINE measures a simulated machine)\n";
      return 1;
    }
  }
  if (P->gpusPerNode() < 2) {
    errs() << "taccl-profile: error: at least two GPUs are needed, "
           << P->gpusPerNode() << " found\n";
    return 1;
  }
  // Measuring takes minutes: the outputs must be writable before it starts.
  std::vector<std::string> Paths{Output};
  if (!JsonOut.empty())
    Paths.push_back(JsonOut);
  OutputError Err;
  if ((!Simulate.empty() || Node == 0) &&
      !checkOutputPaths(Paths, OutputOptions(), Err)) {
    cannotWrite(Err);
    return 1;
  }
  ProfileOptions O;
  O.Name = Name;
  O.Date = Date.empty() ? today() : std::string(Date);
  MachineModel M = profileMachine(*P, O);
  if (Simulate.empty() && Node != 0)
    return 0; // node 0 writes
  std::string Text = writeSketch(M);
  if (Text.empty()) {
    errs() << "taccl-profile: internal error: the description written does "
              "not parse (please report this)\n";
    return 2;
  }
  std::vector<OutputFile> Files{{Output, Text}};
  if (!JsonOut.empty())
    Files.push_back({JsonOut, writeJson(M)});
  return write(Files) ? 0 : 1;
}
