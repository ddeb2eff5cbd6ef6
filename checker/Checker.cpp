//===- checker/Checker.cpp - Symbolic plan checker ------------------------===//
//
// checkPlan(): builds the executable Program, picks the chunk-level buffer
// model of each call kind the plan serves (in-place and/or out-of-place),
// runs a SymbolicMachine per kind and merges the two reports, tagging issues
// that only one kind of call exhibits. A rooted plan without a root
// attribute is checked for each candidate root until one works.
//
//===----------------------------------------------------------------------===//
#include "checker/Checker.h"

#include "checker/SymbolicMachine.h"
#include "format/Collective.h"
#include "format/IssueSink.h"
#include "format/Program.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace tacclrt {

namespace {

/// Checks one call kind; returns its issues (without call-kind tags).
Report checkCall(const Algo &A, const Program &P, bool InPlace,
                 const CheckOptions &Opts, std::string_view FileName,
                 unsigned Root) {
  Report Out;
  IssueSink Sink(Out, FileName);
  ChunkModel Model;
  Model.IdenticalOrder = Opts.IdenticalOrder;
  Where AlgoW;
  AlgoW.Line = A.Line;
  AlgoW.Col = A.Col;
  if (isSupportedCollective(A.Coll)) {
    std::uint64_t Mult = sizeMultiplier(A.Coll, static_cast<unsigned>(A.NGpus));
    std::uint64_t Chunks = static_cast<std::uint64_t>(A.NChunksPerLoop);
    if (Chunks % Mult != 0) {
      Sink.report<MsgId::ChunksStraddleRanks>(AlgoW, A.NChunksPerLoop, A.NGpus,
                                              nameOf(A.Coll));
      return Out;
    }
    Report Ignored;
    Model.Layout =
        describeCollective(A.Coll, static_cast<unsigned>(A.NGpus),
                           Chunks / Mult, InPlace, Ignored, FileName, Root);
  } else {
    // Without the collective's definition nothing proves the result, so
    // the plan is not accepted; deadlocks, races and message matching are
    // still reported (buffers sized by i_chunks/o_chunks).
    Sink.report<MsgId::PostconditionUnknown>(AlgoW, nameOf(A.Coll));
  }
  SymbolicMachine(A, P, Model, Opts.FifoCapacity, Sink, Opts.CheckRaces).run();
  return Out;
}

bool sameIssue(const Issue &L, const Issue &R) {
  return L.Sev == R.Sev && L.Line == R.Line && L.Col == R.Col &&
         L.Rank == R.Rank && L.Tb == R.Tb && L.Step == R.Step &&
         L.Message == R.Message;
}

bool contains(const Report &R, const Issue &I) {
  for (const Issue &J : R)
    if (sameIssue(I, J))
      return true;
  return false;
}

/// Checks every call kind the plan serves for one root and merges the
/// reports.
Report checkCalls(const Algo &A, const Program &P, const CheckOptions &Opts,
                  std::string_view FileName, unsigned Root) {
  Report Out;
  IssueSink Sink(Out, FileName);
  std::vector<bool> Calls;
  if (A.OutOfPlace && Opts.CheckOutOfPlace)
    Calls.push_back(false);
  if (A.InPlace && Opts.CheckInPlace)
    Calls.push_back(true);
  if (Calls.empty()) {
    Where W;
    W.Line = A.Line;
    W.Col = A.Col;
    Sink.report<MsgId::NoCallKindSelected>(W);
    Calls.push_back(false);
  }
  if (Calls.size() == 1) {
    Out.append(checkCall(A, P, Calls.front(), Opts, FileName, Root));
    return Out;
  }

  Report OutOfPlace = checkCall(A, P, false, Opts, FileName, Root);
  Report InPlace = checkCall(A, P, true, Opts, FileName, Root);
  for (const Issue &I : OutOfPlace) {
    Issue Copy = I;
    if (!contains(InPlace, I))
      Copy.Message += " (out-of-place call)";
    Out.add(std::move(Copy));
  }
  for (const Issue &I : InPlace) {
    if (contains(OutOfPlace, I))
      continue;
    Issue Copy = I;
    Copy.Message += " (in-place call)";
    Out.add(std::move(Copy));
  }
  return Out;
}

} // namespace

/// The most roots tried for a rooted plan without a root attribute.
constexpr std::size_t MaxRootCandidates = 16;

/// The most chunk slots (all ranks and buffers) a symbolic check tracks.
constexpr std::uint64_t MaxSymbolicSlots = std::uint64_t(1) << 22;

Report checkPlan(const Algo &A, std::string_view FileName) {
  return checkPlan(A, FileName, CheckOptions());
}

Report checkPlan(const Algo &A, std::string_view FileName,
                 const CheckOptions &Opts) {
  Report Out;
  IssueSink Sink(Out, FileName);
  // The symbolic state holds every chunk slot of every rank (the collective
  // reference may size buffers from nchunksperloop); refuse plans whose state
  // would not fit in memory rather than exhausting it.
  // (A gather's or scatter's larger buffer is ngpus x nchunksperloop.)
  std::uint64_t Layout = std::uint64_t(std::max(0, A.NChunksPerLoop));
  if (A.Coll == CollKind::Gather || A.Coll == CollKind::Scatter)
    Layout *= std::uint64_t(std::max(0, A.NGpus));
  std::uint64_t Slots = 0;
  for (const Gpu &G : A.Gpus)
    Slots += std::uint64_t(std::max(0, G.IChunks)) +
             std::uint64_t(std::max(0, G.OChunks)) +
             std::uint64_t(std::max(0, G.SChunks)) + Layout;
  if (Slots > MaxSymbolicSlots) {
    Where W;
    W.Line = A.Line;
    W.Col = A.Col;
    Sink.report<MsgId::TooManyChunkSlots>(W, Slots, MaxSymbolicSlots);
    return Out;
  }
  std::optional<Program> P = buildProgram(A, Sink);
  if (!P)
    return Out;

  if (!isRooted(A.Coll) || Opts.Root >= 0 || A.Root >= 0) {
    int Root = Opts.Root >= 0 ? Opts.Root : std::max(A.Root, 0);
    if (Root >= A.NGpus) {
      Where W;
      W.Line = A.Line;
      W.Col = A.Col;
      Sink.report<MsgId::CheckRootNotARank>(W, Root, A.NGpus);
      return Out;
    }
    Out.append(checkCalls(A, *P, Opts, FileName, unsigned(Root)));
    return Out;
  }
  // No root given: try the likely roots first, then the others.
  std::vector<unsigned> Likely, Others;
  bool Spreads = A.Coll == CollKind::Broadcast || A.Coll == CollKind::Scatter;
  for (const Gpu &G : A.Gpus) {
    bool Quiet = true;
    for (const Tb &T : G.Tbs)
      Quiet = Quiet && (Spreads ? T.Recv < 0 : T.Send < 0);
    (Quiet ? Likely : Others).push_back(static_cast<unsigned>(G.Id));
  }
  Likely.insert(Likely.end(), Others.begin(), Others.end());
  if (Likely.size() > MaxRootCandidates)
    Likely.resize(MaxRootCandidates);
  Where W;
  W.Line = A.Line;
  W.Col = A.Col;
  std::optional<Report> First;
  for (unsigned Root : Likely) {
    Report R = checkCalls(A, *P, Opts, FileName, Root);
    if (!R.hasErrors()) {
      Out.append(std::move(R));
      Sink.report<MsgId::RootInferred>(W, Root);
      return Out;
    }
    if (!First)
      First = std::move(R);
  }
  if (First)
    Out.append(std::move(*First));
  Sink.report<MsgId::NoRootWorks>(W, Likely.size(),
                                  Likely.empty() ? 0 : Likely.front());
  return Out;
}

} // namespace tacclrt
