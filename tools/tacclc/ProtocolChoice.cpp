//===- tools/tacclc/ProtocolChoice.cpp - `protocol auto` ------------------===//
//
// Step 1 costs one chunk crossing the sketch's slowest link under each
// protocol's time model: the launch, the hop's latency and the chunk's
// wire time (or the FIFO's pace where messages are small), so LL wins where
// latency dominates and Simple where bandwidth does. Step 2 re-times the
// lowered program with the `proto` attribute changed (the schedule and
// program stay; the runtime's slicing and the wire costs follow the
// protocol) at each size and keeps the protocol with the least
// geometric-mean time; ties keep the stages' protocol, then the order
// Simple, LL128, LL; a protocol already 1.5x slower than one with fewer
// wire bytes is not simulated at larger sizes. Step 3 walks the sizes up and
// starts a new part where another protocol beats the winner by more than 2%.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/ProtocolChoice.h"

#include "codegen/SimMachine.h"
#include "ir/Printer.h"
#include "passes/TimeModel.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tacclc;

namespace {

const tacclrt::Protocol Candidates[] = {
    tacclrt::Protocol::Simple, tacclrt::Protocol::LL128, tacclrt::Protocol::LL};

/// One chunk through the slowest link of \p S under protocol \p Name.
double oneChunkUs(ir::Sketch S, std::string_view Name) {
  S.Protocol = std::string(Name);
  TimeModel TM(S);
  double Worst = 0;
  for (unsigned I = 0; I < S.Topo.links().size(); ++I)
    Worst =
        std::max(Worst, TM.hopUs(ir::LinkId(I)) + TM.laneLoadUs(ir::LinkId(I)));
  return TM.launchUs() + Worst;
}

/// At most this many sizes of a range are simulated (its ends included).
constexpr size_t MaxRangeSizes = 14;

/// The sizes to compare: the design point, then the range from its lower
/// end up: the powers of two inside it (every second or fourth one where a
/// range is wide) and its upper end.
std::vector<std::uint64_t> sizesOf(const ir::Sketch &S) {
  std::vector<std::uint64_t> Out{S.SizeBytes};
  if (!S.MinBytes || !S.MaxBytes)
    return Out;
  std::vector<std::uint64_t> Inside;
  for (std::uint64_t P = 1; P && P < S.MaxBytes; P <<= 1)
    if (P > S.MinBytes)
      Inside.push_back(P);
  size_t Stride = 1;
  while (Inside.size() / Stride + 2 > MaxRangeSizes)
    Stride *= 2;
  std::vector<std::uint64_t> Range{S.MinBytes};
  for (size_t I = 0; I < Inside.size(); I += Stride)
    Range.push_back(Inside[I]);
  Range.push_back(S.MaxBytes);
  for (std::uint64_t B : Range)
    if (std::find(Out.begin(), Out.end(), B) == Out.end())
      Out.push_back(B);
  return Out;
}

/// A protocol that puts more bytes on the wire per data byte than another
/// (LL over LL128 over Simple) and is slower than it by more than this
/// factor at one size is not simulated at larger ones: its time grows
/// faster with the size while its latency advantage stays the same, so it
/// cannot catch up, and simulating LL's 32 KiB slices at gigabytes costs
/// minutes.
constexpr double PruneFactor = 1.5;

/// Within this factor of the fastest, the overall winner keeps a size.
constexpr double SplitTolerance = 1.02;

/// Under `protocol auto`: the runs of sizes of \p C (ascending) that share
/// a fastest protocol, each starting at its first size.
std::vector<ProtocolPiece> autoPieces(const ir::Sketch &S,
                                      const ProtocolChoice &C) {
  std::vector<size_t> Order(C.Sizes.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::sort(Order,
             [&](size_t A, size_t B) { return C.Sizes[A] < C.Sizes[B]; });
  const std::vector<double> *BestTimes = nullptr;
  for (const auto &[P, Times] : C.Times)
    if (P == C.Best)
      BestTimes = &Times;
  std::vector<ProtocolPiece> Pieces;
  for (size_t I : Order) {
    tacclrt::Protocol Winner = C.Best;
    double Fastest = std::numeric_limits<double>::infinity();
    for (const auto &[P, Times] : C.Times)
      if (Times[I] < Fastest) {
        Fastest = Times[I];
        Winner = P;
      }
    if (BestTimes && (*BestTimes)[I] <= SplitTolerance * Fastest)
      Winner = C.Best;
    if (Pieces.empty()) {
      Pieces.push_back({Winner, S.MinBytes, S.MaxBytes});
    } else if (Winner != Pieces.back().Proto) {
      Pieces.back().MaxBytes = C.Sizes[I] - 1;
      Pieces.push_back({Winner, C.Sizes[I], S.MaxBytes});
    }
  }
  return Pieces;
}

} // namespace

std::string tacclc::stageProtocol(const ir::Sketch &S) {
  if (!S.ProtocolAuto)
    return S.Protocol;
  std::string Best = "Simple";
  double BestUs = std::numeric_limits<double>::infinity();
  for (tacclrt::Protocol P : Candidates) {
    double Us = oneChunkUs(S, tacclrt::nameOf(P));
    if (Us < BestUs) {
      BestUs = Us;
      Best = std::string(tacclrt::nameOf(P));
    }
  }
  return Best;
}

std::optional<ProtocolChoice> tacclc::chooseProtocol(const tacclrt::Algo &Plan,
                                                     const ir::Sketch &S,
                                                     long MaxFlowUpdates) {
  ProtocolChoice C;
  C.Sizes = sizesOf(S);
  tacclrt::Protocol Assumed =
      tacclrt::parseProtocol(S.Protocol).value_or(tacclrt::Protocol::Simple);
  // The machine and the call at each size do not depend on the protocol.
  std::vector<SketchCall> Calls;
  for (std::uint64_t Bytes : C.Sizes) {
    ir::Sketch At = S;
    At.SizeBytes = Bytes;
    std::optional<SketchCall> Call = sketchCall(Plan, At);
    if (!Call)
      return std::nullopt;
    Call->Options.MaxFlowUpdates = MaxFlowUpdates;
    Calls.push_back(std::move(*Call));
  }
  std::vector<size_t> Ascending(C.Sizes.size());
  for (size_t I = 0; I < Ascending.size(); ++I)
    Ascending[I] = I;
  llvm::sort(Ascending,
             [&](size_t A, size_t B) { return C.Sizes[A] < C.Sizes[B]; });
  double BestScore = std::numeric_limits<double>::infinity();
  bool Any = false;
  for (tacclrt::Protocol P : Candidates) {
    tacclrt::Algo A = Plan;
    A.Proto = P;
    double Wire = tacclrt::protocolCosts(P).WirePerDataByte;
    std::vector<double> Times(C.Sizes.size(),
                              std::numeric_limits<double>::infinity());
    double LogSum = 0;
    bool Ok = true, Pruned = false;
    for (size_t I : Ascending) {
      if (Pruned) { // the larger sizes are left at infinity
        LogSum = std::numeric_limits<double>::infinity();
        break;
      }
      tacclrt::SimResult R =
          tacclrt::simulate(A, Calls[I].Machine, Calls[I].Options);
      if (R.Stopped)
        C.Stopped.push_back(P);
      if (!R.Ok || !(R.TimeUs > 0)) {
        Ok = false;
        break;
      }
      Times[I] = R.TimeUs;
      LogSum += std::log(R.TimeUs);
      for (const auto &[Q, Earlier] : C.Times)
        if (tacclrt::protocolCosts(Q).WirePerDataByte < Wire &&
            R.TimeUs > PruneFactor * Earlier[I])
          Pruned = true;
    }
    if (!Ok)
      continue;
    double Score = LogSum / double(Times.size());
    // Within a part in a million counts as a tie.
    bool Better = Score < BestScore - 1e-6 ||
                  (std::abs(Score - BestScore) <= 1e-6 && P == Assumed);
    if (!Any || Better) {
      BestScore = std::min(BestScore, Score);
      C.Best = P;
    }
    Any = true;
    C.Times.emplace_back(P, std::move(Times));
  }
  // Every simulation stopped at the budget: the protocol the stages
  // assumed stays, and the summary says why.
  if (!Any && !C.Stopped.empty())
    C.Best = Assumed;
  else if (!Any)
    return std::nullopt;
  return C;
}

std::vector<ProtocolPiece> tacclc::protocolPieces(const ir::Sketch &S,
                                                  const ProtocolChoice *C,
                                                  bool Split) {
  auto Named = [](llvm::StringRef Name) {
    return tacclrt::parseProtocol(Name).value_or(tacclrt::Protocol::Simple);
  };
  if (!S.ProtocolRanges.empty()) {
    std::vector<ProtocolPiece> Pieces;
    std::uint64_t From = S.MinBytes;
    for (const ir::ProtocolRange &R : S.ProtocolRanges) {
      Pieces.push_back({Named(R.Protocol), From,
                        R.BelowBytes ? R.BelowBytes - 1 : S.MaxBytes});
      From = R.BelowBytes;
    }
    return Pieces;
  }
  if (C && Split && S.ProtocolAuto && S.MinBytes && S.MaxBytes)
    return autoPieces(S, *C);
  return {{C ? C->Best : Named(S.Protocol), S.MinBytes, S.MaxBytes}};
}

void tacclc::printProtocolChoice(llvm::raw_ostream &OS,
                                 const ProtocolChoice &C) {
  std::vector<std::string> Sizes;
  for (std::uint64_t B : C.Sizes)
    Sizes.push_back(ir::formatBytes(B));
  std::vector<std::string> Rows;
  for (const auto &[P, Times] : C.Times) {
    std::vector<std::string> Us;
    for (double T : Times)
      Us.push_back(std::isfinite(T) ? ir::formatUs(T) : std::string("-"));
    Rows.push_back(
        fmt::format("{} {}", tacclrt::nameOf(P), fmt::join(Us, " / ")));
  }
  for (tacclrt::Protocol P : C.Stopped)
    Rows.push_back(
        fmt::format("{} stopped at the work budget", tacclrt::nameOf(P)));
  OS << fmt::format("protocol    {} (auto): {} at {} by tacclc sim\n",
                    tacclrt::nameOf(C.Best), fmt::join(Rows, ", "),
                    fmt::join(Sizes, " / "));
}
