//===- tools/tacclc/Bounds.cpp - The bounds command -----------------------===//
//
// `tacclc bounds --topology REF --collective C --size S` prints the lower
// bounds of passes/Bounds.h on the time of a collective of size S on a
// machine (frontend/MachineRef.h): the cut, per-rank and latency bounds and
// their maximum, each in microseconds and as algbw and busbw, with the cut that
// binds in words; or the same as JSON.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/Output.h"

#include "frontend/MachineRef.h"
#include "passes/Bounds.h"
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

int tacclc::runBounds(const BoundsOptions &Opts) {
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
