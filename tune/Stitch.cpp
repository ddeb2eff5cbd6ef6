//===- tune/Stitch.cpp - The fastest program for every size ---------------===//
//
// Winners per size, runs of one winner merged into ranges, and the ranges
// written in each runtime's minBytes/maxBytes convention (tune/Stitch.h).
//
//===----------------------------------------------------------------------===//
#include "tune/Stitch.h"

#include <cassert>

using namespace tacclc;
using namespace tacclc::tune;

std::vector<SizeWinner> tune::pickWinners(llvm::ArrayRef<std::uint64_t> Sizes,
                                          llvm::ArrayRef<ProgramTimes> Programs,
                                          double TieFraction) {
  std::vector<SizeWinner> Out;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    SizeWinner W;
    W.Bytes = Sizes[I];
    double Best = 0;
    bool Any = false;
    for (const ProgramTimes &P : Programs)
      if (I < P.TimesUs.size() && P.TimesUs[I] &&
          (!Any || *P.TimesUs[I] < Best)) {
        Best = *P.TimesUs[I];
        Any = true;
      }
    if (Any) {
      // Among the programs within the tie margin of the fastest: NCCL's
      // first, then the lowest index.
      const double Limit = Best * (1 + TieFraction);
      for (int Pass = 0; Pass < 2 && W.Program < 0; ++Pass)
        for (size_t J = 0; J < Programs.size(); ++J) {
          const ProgramTimes &P = Programs[J];
          if (P.Nccl != (Pass == 0) || I >= P.TimesUs.size() || !P.TimesUs[I] ||
              *P.TimesUs[I] > Limit)
            continue;
          W.Program = int(J);
          W.Forward = P.Nccl;
          W.TimeUs = *P.TimesUs[I];
          break;
        }
    }
    Out.push_back(W);
  }
  return Out;
}

std::vector<ServedRange>
tune::stitchRanges(llvm::ArrayRef<SizeWinner> Winners) {
  std::vector<ServedRange> Out;
  for (unsigned I = 0; I < Winners.size(); ++I) {
    const SizeWinner &W = Winners[I];
    // NCCL's algorithms all mean one thing to the runtime: forward.
    bool SameAsLast =
        !Out.empty() &&
        (W.Forward || W.Program < 0
             ? Out.back().Forward == W.Forward &&
                   (W.Forward || Out.back().Program < 0)
             : !Out.back().Forward && Out.back().Program == W.Program);
    if (SameAsLast) {
      Out.back().LastSize = I;
      continue;
    }
    ServedRange R;
    R.Program = W.Forward ? -1 : W.Program;
    R.Forward = W.Forward;
    R.MinBytes = W.Bytes;
    R.FirstSize = R.LastSize = I;
    Out.push_back(R);
  }
  for (size_t K = 0; K < Out.size(); ++K)
    Out[K].MaxBytes =
        K + 1 < Out.size() ? Out[K + 1].MinBytes - 1 : Winners.back().Bytes;
  return Out;
}

std::pair<std::uint64_t, std::uint64_t> tune::xmlBounds(const ServedRange &R,
                                                        tacclrt::Dialect D) {
  assert(R.MinBytes <= R.MaxBytes && "an empty range");
  if (D == tacclrt::Dialect::Legacy)
    return {R.MinBytes, R.MaxBytes + 1};
  return {R.MinBytes, R.MaxBytes};
}
