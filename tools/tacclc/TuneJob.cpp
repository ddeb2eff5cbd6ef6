//===- tools/tacclc/TuneJob.cpp - One compile and its simulations ---------===//
//
// job.json and result.json, and `tacclc tune --run-job DIR`: the compile
// (or NCCL's baseline) as a child tacclc with a hard time limit, then one
// `tacclc sim` per program it wrote, at the sweep sizes the program may
// serve (tools/tacclc/TuneJob.h).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/TuneJob.h"
#include "tools/tacclc/Commands.h"

#include "format/Dialect.h"
#include "format/Loader.h"
#include "support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

using namespace tacclc;
namespace json = llvm::json;

namespace {
json::Array strings(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

std::vector<std::string> strings(const json::Object &O, llvm::StringRef Key) {
  std::vector<std::string> Out;
  if (const json::Array *A = O.getArray(Key))
    for (const json::Value &V : *A)
      if (auto S = V.getAsString())
        Out.push_back(S->str());
  return Out;
}

std::string str(const json::Object &O, llvm::StringRef Key) {
  auto S = O.getString(Key);
  return S ? S->str() : "";
}

std::string printed(const json::Value &V) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", V) << "\n";
  return OS.str();
}

std::optional<std::string> readText(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

/// The last line of \p Log that says `error:`, else its last line.
std::string lastError(const std::string &Log) {
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  llvm::StringRef(Log).split(Lines, '\n', -1, false);
  for (auto It = Lines.rbegin(); It != Lines.rend(); ++It)
    if (It->contains("error:"))
      return It->trim().str();
  return Lines.empty() ? "" : Lines.back().trim().str();
}

/// Whether a program may serve \p Bytes: the runtime would select it for
/// that size (its minBytes/maxBytes), the call divides into its chunks
/// (counted in 4-byte elements, the strictest of the common types), and
/// for LL without an upper bound, at most 16 MiB: LL's lines carry half
/// their bytes, so it loses to the other protocols long before, and its
/// simulation gets slow at large sizes.
bool mayServe(const tacclrt::Algo &A, std::uint64_t Bytes, bool Legacy) {
  const auto D = Legacy ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
  if (!(A.MinBytes == 0 && A.MaxBytes == 0) && !selectsSize(A, Bytes, D))
    return false;
  const std::uint64_t Per = std::max<std::uint64_t>(A.NChunksPerLoop, 1);
  if (Bytes % 4 || (Bytes / 4) % Per)
    return false;
  if (A.MaxBytes == 0 && A.Proto == tacclrt::Protocol::LL && Bytes > (16 << 20))
    return false;
  return true;
}

/// Runs \p Args (Args[0] the program) with stdout and stderr to files;
/// the exit code, -1 when it could not start, -2 after a crash or the
/// time limit. \p Seconds receives the wall time.
int runChild(const std::vector<std::string> &Args, const std::string &Out,
             const std::string &Err, unsigned Timeout, double &Seconds) {
  std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
  llvm::Optional<llvm::StringRef> Redirects[] = {
      llvm::StringRef(""), llvm::StringRef(Out), llvm::StringRef(Err)};
  auto Start = std::chrono::steady_clock::now();
  int Rc =
      llvm::sys::ExecuteAndWait(Args[0], Refs, llvm::None, Redirects, Timeout);
  Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Rc;
}
} // namespace

std::string tacclc::jobJson(const TuneJob &J) {
  json::Array Sizes;
  for (std::uint64_t S : J.Sizes)
    Sizes.push_back(int64_t(S));
  json::Object O{{"kind", J.What == TuneJob::Sketch ? "sketch" : "baseline"},
                 {"label", J.Label},
                 {"family", J.Family},
                 {"collective", J.Collective},
                 {"band", J.Band},
                 {"topology", J.Topology},
                 {"work_dir", J.WorkDir},
                 {"sketch_file", J.SketchFile},
                 {"sketch_name", J.SketchName},
                 {"include_dirs", strings(J.IncludeDirs)},
                 {"time_limit_s", J.TimeLimitSeconds},
                 {"algorithm", J.Algorithm},
                 {"protocol", J.Protocol},
                 {"dialect", J.Legacy ? "msccl-legacy" : "msccl-executor"},
                 {"sizes", std::move(Sizes)},
                 {"engine", J.Engine}};
  return printed(json::Value(std::move(O)));
}

std::optional<TuneJob> tacclc::parseJobJson(const std::string &Text,
                                            std::string &Error) {
  auto V = json::parse(Text);
  if (!V) {
    Error = llvm::toString(V.takeError());
    return std::nullopt;
  }
  const json::Object *O = V->getAsObject();
  if (!O) {
    Error = "not a JSON object";
    return std::nullopt;
  }
  TuneJob J;
  std::string Kind = str(*O, "kind");
  if (Kind != "sketch" && Kind != "baseline") {
    Error = "kind must be sketch or baseline";
    return std::nullopt;
  }
  J.What = Kind == "sketch" ? TuneJob::Sketch : TuneJob::Baseline;
  J.Label = str(*O, "label");
  J.Family = str(*O, "family");
  J.Collective = str(*O, "collective");
  J.Band = str(*O, "band");
  J.Topology = str(*O, "topology");
  J.WorkDir = str(*O, "work_dir");
  J.SketchFile = str(*O, "sketch_file");
  J.SketchName = str(*O, "sketch_name");
  J.IncludeDirs = strings(*O, "include_dirs");
  J.TimeLimitSeconds = O->getNumber("time_limit_s").getValueOr(60);
  J.Algorithm = str(*O, "algorithm");
  J.Protocol = str(*O, "protocol");
  J.Legacy = str(*O, "dialect") == "msccl-legacy";
  if (const json::Array *A = O->getArray("sizes"))
    for (const json::Value &S : *A)
      if (auto N = S.getAsInteger(); N && *N > 0)
        J.Sizes.push_back(std::uint64_t(*N));
  J.Engine = str(*O, "engine");
  if (J.Sizes.empty() || J.Topology.empty() || J.Collective.empty()) {
    Error = "sizes, topology and collective are required";
    return std::nullopt;
  }
  return J;
}

std::string tacclc::resultJson(const TuneResult &R) {
  json::Array Programs;
  for (const TuneProgram &P : R.Programs) {
    json::Array Times;
    for (const auto &T : P.TimesUs)
      Times.push_back(T ? json::Value(*T) : json::Value(nullptr));
    Programs.push_back(json::Object{{"file", P.File},
                                    {"protocol", P.Protocol},
                                    {"min_bytes", int64_t(P.MinBytes)},
                                    {"max_bytes", int64_t(P.MaxBytes)},
                                    {"times_us", std::move(Times)}});
  }
  return printed(json::Object{{"status", R.Status},
                              {"seconds", R.Seconds},
                              {"message", R.Message},
                              {"programs", std::move(Programs)}});
}

std::optional<TuneResult> tacclc::parseResultJson(const std::string &Text,
                                                  std::string &Error) {
  auto V = json::parse(Text);
  if (!V) {
    Error = llvm::toString(V.takeError());
    return std::nullopt;
  }
  const json::Object *O = V->getAsObject();
  if (!O) {
    Error = "not a JSON object";
    return std::nullopt;
  }
  TuneResult R;
  R.Status = str(*O, "status");
  R.Seconds = O->getNumber("seconds").getValueOr(0);
  R.Message = str(*O, "message");
  if (const json::Array *A = O->getArray("programs"))
    for (const json::Value &PV : *A) {
      const json::Object *P = PV.getAsObject();
      if (!P)
        continue;
      TuneProgram Prog;
      Prog.File = str(*P, "file");
      Prog.Protocol = str(*P, "protocol");
      Prog.MinBytes = std::uint64_t(P->getInteger("min_bytes").getValueOr(0));
      Prog.MaxBytes = std::uint64_t(P->getInteger("max_bytes").getValueOr(0));
      if (const json::Array *T = P->getArray("times_us"))
        for (const json::Value &X : *T) {
          if (auto N = X.getAsNumber())
            Prog.TimesUs.push_back(*N);
          else
            Prog.TimesUs.push_back(std::nullopt);
        }
      R.Programs.push_back(std::move(Prog));
    }
  if (R.Status != "ok" && R.Status != "failed" && R.Status != "timeout") {
    Error = "status must be ok, failed or timeout";
    return std::nullopt;
  }
  return R;
}

namespace {
/// Simulates the program \p Path at every size of \p J it may serve.
TuneProgram simulate(const std::string &Tacclc, const TuneJob &J,
                     const std::string &Dir, const std::string &Name,
                     const tacclrt::Algo &A, std::string &Error) {
  TuneProgram P;
  P.File = Name;
  P.Protocol = std::string(tacclrt::nameOf(A.Proto));
  P.MinBytes = A.MinBytes;
  P.MaxBytes = A.MaxBytes;
  P.TimesUs.assign(J.Sizes.size(), std::nullopt);
  std::vector<std::string> Sizes;
  std::vector<unsigned> Index;
  for (unsigned I = 0; I < J.Sizes.size(); ++I)
    if (mayServe(A, J.Sizes[I], J.Legacy)) {
      Sizes.push_back(std::to_string(J.Sizes[I]));
      Index.push_back(I);
    }
  if (Sizes.empty())
    return P;
  std::string Path = Dir + "/" + Name;
  std::vector<std::string> Args{Tacclc,
                                "sim",
                                Path,
                                "--topology",
                                J.Topology,
                                "--sizes",
                                llvm::join(Sizes, ","),
                                "--json",
                                "--engine",
                                J.Engine};
  if (J.Legacy)
    Args.push_back("--dialect=msccl-legacy");
  std::string Out = Dir + "/" + Name + ".sim.json",
              Log = Dir + "/" + Name + ".sim.log";
  double Secs = 0;
  int Rc = runChild(Args, Out, Log, 3600, Secs);
  auto Text = readText(Out);
  auto V = Text ? json::parse(*Text) : llvm::Expected<json::Value>(nullptr);
  if (Rc != 0 || !V) {
    if (!V)
      llvm::consumeError(V.takeError());
    Error = fmt::format("simulating {} failed: {}", Name,
                        lastError(readText(Log).value_or("")));
    return P;
  }
  const json::Array *Files = V->getAsArray();
  const json::Object *F =
      Files && !Files->empty() ? (*Files)[0].getAsObject() : nullptr;
  const json::Array *Rows = F ? F->getArray("results") : nullptr;
  if (!Rows || Rows->size() != Index.size()) {
    Error = fmt::format("simulating {}: unexpected output", Name);
    return P;
  }
  for (size_t K = 0; K < Index.size(); ++K)
    if (const json::Object *Row = (*Rows)[K].getAsObject())
      if (auto T = Row->getNumber("time_us"))
        P.TimesUs[Index[K]] = *T;
  return P;
}
} // namespace

int tacclc::runTuneJob(const std::string &Tacclc, const std::string &Dir) {
  std::string Error;
  auto Text = readText(Dir + "/job.json");
  if (!Text) {
    llvm::errs() << "tacclc: error: cannot read " << Dir << "/job.json\n";
    return ExitInternal;
  }
  auto J = parseJobJson(*Text, Error);
  if (!J) {
    llvm::errs() << "tacclc: error: " << Dir << "/job.json: " << Error << "\n";
    return ExitInternal;
  }
  if (!J->WorkDir.empty())
    llvm::sys::fs::set_current_path(J->WorkDir);
  // An earlier, interrupted run's programs go first.
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::StringRef(It->path()).endswith(".xml"))
      llvm::sys::fs::remove(It->path());

  std::vector<std::string> Args{Tacclc};
  if (J->What == TuneJob::Sketch) {
    Args.push_back(J->SketchFile);
    if (!J->SketchName.empty())
      Args.insert(Args.end(), {"--sketch", J->SketchName});
    Args.insert(Args.end(), {"-o", Dir + "/out.xml", "--time-limit",
                             fmt::format("{:g}", J->TimeLimitSeconds)});
    for (const std::string &I : J->IncludeDirs)
      Args.push_back("-I" + I);
  } else {
    Args.insert(Args.end(),
                {"baseline", J->Algorithm, "--topology", J->Topology,
                 "--collective", J->Collective, "--protocol", J->Protocol, "-o",
                 Dir + "/out.xml"});
  }
  if (J->Legacy)
    Args.push_back("--dialect=msccl-legacy");
  TuneResult R;
  const unsigned Hard = unsigned(J->TimeLimitSeconds * 2 + 60);
  int Rc = runChild(Args, Dir + "/compile.out", Dir + "/compile.log", Hard,
                    R.Seconds);
  if (Rc != 0) {
    bool TimedOut = Rc == -2 && R.Seconds >= Hard - 1;
    std::string Log = readText(Dir + "/compile.log").value_or("");
    // The compiler's own limit ends a compile with "ran out of time".
    R.Status = TimedOut || llvm::StringRef(Log).contains("ran out of time")
                   ? "timeout"
                   : "failed";
    R.Message = TimedOut ? fmt::format("killed after {} s", Hard)
                : Rc < 0 ? "the compiler crashed"
                         : lastError(Log);
  } else {
    R.Status = "ok";
    std::vector<std::string> Names;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC)) {
      llvm::StringRef Name = llvm::sys::path::filename(It->path());
      if (Name.startswith("out") && Name.endswith(".xml"))
        Names.push_back(Name.str());
    }
    std::sort(Names.begin(), Names.end());
    for (const std::string &Name : Names) {
      tacclrt::LoadOptions LO;
      LO.D = J->Legacy ? tacclrt::Dialect::Legacy : tacclrt::Dialect::Executor;
      tacclrt::Report Rep;
      auto A = tacclrt::loadPlanFile(Dir + "/" + Name, LO, Rep);
      if (!A) {
        R.Status = "failed";
        R.Message = Name + " does not load";
        break;
      }
      std::string SimError;
      R.Programs.push_back(simulate(Tacclc, *J, Dir, Name, *A, SimError));
      if (!SimError.empty() && R.Message.empty())
        R.Message = SimError;
    }
    if (R.Programs.empty() && R.Status == "ok") {
      R.Status = "failed";
      R.Message = "the compile wrote no program";
    }
  }
  OutputError OE;
  if (!writeOutputFiles({{Dir + "/result.json", resultJson(R)}}, {}, OE)) {
    llvm::errs() << "tacclc: error: cannot write " << OE.Path << ": "
                 << OE.Reason << "\n";
    return ExitInternal;
  }
  return ExitSuccess;
}
