//===- tools/tacclc/Bounds.cpp - The bounds command -----------------------===//
//
// `tacclc bounds --topology REF --collective C --size S` prints the lower
// bounds of passes/Bounds.h on the time of a collective of size S on a
// machine (frontend/MachineRef.h): the cut, per-rank and latency bounds and
// their maximum, each in microseconds and as algbw and busbw, with the cut that
// binds in words; or the same as JSON. `tacclc bounds FILE.xml` takes the
// machine, collective, sizes and root the program records as defaults.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/Output.h"
#include "tools/tacclc/Provenance.h"

#include "format/Loader.h"

#include "frontend/MachineRef.h"
#include "passes/Bounds.h"
#include "support/Sizes.h"
#include "support/Suggest.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

using namespace tacclc;

namespace {
int usage(const std::string &Message) {
  llvm::errs() << "tacclc bounds: error: " << Message << "\n";
  return ExitInternal;
}

std::string quote(llvm::StringRef S) { return jsonQuote(S); }

/// The program \p Path in whichever dialect loads it (the executor's
/// first); nothing after printing the executor's issues.
std::optional<tacclrt::Algo> loadProgram(const std::string &Path) {
  tacclrt::Report Rep;
  tacclrt::LoadOptions LO;
  if (auto A = tacclrt::loadPlanFile(Path, LO, Rep); A && !Rep.hasErrors())
    return A;
  tacclrt::Report Legacy;
  LO.D = tacclrt::Dialect::Legacy;
  if (auto A = tacclrt::loadPlanFile(Path, LO, Legacy);
      A && !Legacy.hasErrors())
    return A;
  for (const tacclrt::Issue &I : Rep)
    llvm::errs() << tacclrt::format(I) << "\n";
  return std::nullopt;
}

/// Fills what \p O leaves open from its program, when it names one: the
/// machine and sizes it records, its collective and root. An exit status
/// after an error; nothing when \p O is complete.
std::optional<int> fillFromProgram(BoundsOptions &O) {
  if (O.Input.empty()) {
    for (auto [Missing, Name] :
         {std::pair(O.Topology.empty(), "--topology"),
          std::pair(O.Collective.empty(), "--collective"),
          std::pair(!O.SizesGiven, "--size")})
      if (Missing)
        return usage(fmt::format("{} is required without a program (tacclc "
                                 "bounds FILE.xml takes it from the file)",
                                 Name));
    return std::nullopt;
  }
  if (!expectProgram(O.Input))
    return ExitInternal;
  std::optional<tacclrt::Algo> A = loadProgram(O.Input);
  if (!A)
    return ExitUserError;
  std::optional<std::string> Machine = programMachine(O.Topology, *A, O.Input);
  if (!Machine)
    return ExitUserError;
  O.Topology = *Machine;
  if (O.Collective.empty())
    O.Collective = std::string(tacclrt::nameOf(A->Coll));
  if (!O.SizesGiven) {
    std::optional<std::vector<uint64_t>> Recorded =
        parseSizeList(A->Origin.Sizes);
    if (A->Origin.Sizes.empty() || !Recorded || Recorded->empty())
      return usage(fmt::format("'{}' records no sizes: give --size", O.Input));
    O.Sizes = std::move(*Recorded);
  }
  if (!O.RootGiven && A->Root >= 0)
    O.Root = A->Root;
  return std::nullopt;
}

/// Formats one bound's numbers: time, algbw and busbw.
struct Numbers {
  double TimeUs, AlgBw, BusBw;
};
Numbers numbers(const CollectiveBounds &B, const Bound &X) {
  double AlgBw = X.TimeUs > 0 ? B.Bytes / (X.TimeUs * 1e3) : 0;
  return {X.TimeUs, AlgBw, AlgBw * busBandwidthFactor(B.Collective, B.Ranks)};
}

std::string jsonBound(const CollectiveBounds &B, const Bound &X,
                      const std::string &Extra = "") {
  Numbers N = numbers(B, X);
  return fmt::format("{{\"time_us\": {:.6g}, \"algbw_GBps\": {:.6g}, "
                     "\"busbw_GBps\": {:.6g}, \"why\": {}{}}}",
                     N.TimeUs, N.AlgBw, N.BusBw, quote(X.Why), Extra);
}

std::string jsonCut(const Cut &C) {
  const char *Kind = C.Kind == CutKind::Rank    ? "rank"
                     : C.Kind == CutKind::Nodes ? "nodes"
                                                : "other";
  std::string Ranks, Through;
  for (unsigned R : C.Inside)
    Ranks += (Ranks.empty() ? "" : ", ") + std::to_string(R);
  for (const auto &[Name, GBps] : C.Through)
    Through += fmt::format("{}{{\"name\": {}, \"GBps\": {:.6g}}}",
                           Through.empty() ? "" : ", ", quote(Name), GBps);
  return fmt::format("{{\"description\": {}, \"kind\": \"{}\", "
                     "\"direction\": \"{}\", \"capacity_GBps\": {:.6g}, "
                     "\"ranks_inside\": [{}], \"through\": [{}]}}",
                     quote(C.Description), Kind, C.Into ? "into" : "out of",
                     C.Capacity / 1e3, Ranks, Through);
}
} // namespace

int tacclc::runBounds(const BoundsOptions &Given) {
  BoundsOptions Opts = Given;
  if (std::optional<int> Status = fillFromProgram(Opts))
    return *Status;
  auto Coll = parseBoundCollective(Opts.Collective);
  if (!Coll) {
    std::vector<llvm::StringRef> Names;
    for (BoundCollective C :
         {BoundCollective::AllGather, BoundCollective::ReduceScatter,
          BoundCollective::AllReduce, BoundCollective::AllToAll,
          BoundCollective::Broadcast, BoundCollective::Reduce})
      Names.push_back(boundCollectiveName(C));
    std::string Close = closestName(Opts.Collective, Names);
    return usage(fmt::format("unknown --collective '{}'; {}", Opts.Collective,
                             Close.empty()
                                 ? "expected one of " + llvm::join(Names, ", ")
                                 : "did you mean '" + Close + "'?"));
  }
  if (Opts.Root < 0)
    return usage("--root must be a rank");
  auto Topo = instantiateMachine(Opts.Topology, Opts.IncludeDirs);
  if (!Topo)
    return ExitUserError;

  std::string Text, Json;
  for (uint64_t Bytes : Opts.Sizes) {
    std::string Error;
    auto B = computeBounds(*Topo, *Coll, double(Bytes), Opts.Root, Error,
                           BoundsModel{Opts.ProtocolCosts});
    if (!B) {
      llvm::errs() << "tacclc bounds: error: " << Error << "\n";
      return ExitUserError;
    }
    bool Rooted =
        *Coll == BoundCollective::Broadcast || *Coll == BoundCollective::Reduce;
    std::string Head =
        fmt::format("{} of {} B on {} ({} ranks{})", boundCollectiveName(*Coll),
                    Bytes, Opts.Topology, B->Ranks,
                    Rooted ? fmt::format(", root {}", B->Root) : std::string());
    Text +=
        fmt::format("# lower bounds: {}\n{:<12} {:>12} {:>13} {:>13}\n", Head,
                    "bound", "time (us)", "algbw (GB/s)", "busbw (GB/s)");
    const std::pair<const char *, const Bound *> Rows[] = {
        {"cut", &B->CutBound},
        {"per-rank", &B->PerRank},
        {"latency", &B->Latency},
        {"lower bound", &B->Combined}};
    for (auto [Name, X] : Rows) {
      Numbers N = numbers(*B, *X);
      Text += fmt::format("{:<12} {:>12.3f} {:>13.3f} {:>13.3f}\n", Name,
                          N.TimeUs, N.AlgBw, N.BusBw);
    }
    Text += fmt::format("cut:         {}{}\n", B->CutBound.Why,
                        B->CutExact ? ""
                                    : " (best of the candidate cuts: the "
                                      "exact sparsest cut is NP-hard)");
    Text += fmt::format("per-rank:    {}\nlatency:     {}\nlimited by:  "
                        "{}\n\n",
                        B->PerRank.Why, B->Latency.Why, B->LimitedBy);

    std::string Reduce =
        B->ReduceCut ? ", \"reduce_cut\": " + jsonCut(*B->ReduceCut) : "";
    Json += fmt::format(
        "{}\n  {{\"topology\": {}, \"collective\": \"{}\", \"ranks\": {}, "
        "\"root\": {}, \"bytes\": {},\n   \"cut\": {},\n   \"binding_cut\": "
        "{}{},\n   \"per_rank\": {},\n   \"latency\": {},\n   \"bound\": {}}}",
        Json.empty() ? "" : ",", quote(Opts.Topology),
        boundCollectiveName(*Coll), B->Ranks,
        Rooted ? std::to_string(B->Root) : "null", Bytes,
        jsonBound(*B, B->CutBound, fmt::format(", \"exact\": {}", B->CutExact)),
        jsonCut(B->Binding), Reduce, jsonBound(*B, B->PerRank),
        jsonBound(*B, B->Latency),
        jsonBound(*B, B->Combined, ", \"limited_by\": " + quote(B->LimitedBy)));
  }
  if (Opts.Json)
    llvm::outs() << "[" << Json << "\n]\n";
  else
    llvm::outs() << Text;
  return ExitSuccess;
}
