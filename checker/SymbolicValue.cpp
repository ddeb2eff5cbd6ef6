//===- checker/SymbolicValue.cpp - Chunk values of the checker ------------===//
//
// Multiset reduction and the descriptions used in checker messages.
//
//===----------------------------------------------------------------------===//
#include "checker/SymbolicValue.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace tacclrt {

namespace {
/// A 64-bit finaliser (splitmix64's).
std::uint64_t mix(std::uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}
} // namespace

SymValue SymValue::input(unsigned Rank, unsigned Chunk) {
  SymValue V;
  V.Init = true;
  V.Parts.push_back({Rank, Chunk});
  V.Order = mix((std::uint64_t(Rank) << 32 | Chunk) + 0x9e3779b97f4a7c15ULL);
  return V;
}

SymValue reduceValues(const SymValue &A, const SymValue &B,
                      std::optional<Contribution> &Dup) {
  Dup.reset();
  SymValue R;
  if (!A.Init || !B.Init)
    return R;
  R.Init = true;
  R.Parts.reserve(A.Parts.size() + B.Parts.size());
  std::merge(A.Parts.begin(), A.Parts.end(), B.Parts.begin(), B.Parts.end(),
             std::back_inserter(R.Parts));
  std::vector<Contribution> Common;
  std::set_intersection(A.Parts.begin(), A.Parts.end(), B.Parts.begin(),
                        B.Parts.end(), std::back_inserter(Common));
  if (!Common.empty())
    Dup = Common.front();
  std::uint64_t Lo = std::min(A.Order, B.Order),
                Hi = std::max(A.Order, B.Order);
  R.Order = mix(mix(Lo) ^ (Hi + 0x632be59bd9b4e019ULL));
  return R;
}

std::string describe(const Contribution &C) {
  return fmt::format("input chunk {} of rank {}", C.Chunk, C.Rank);
}

std::string describe(const SymValue &V, unsigned NRanks) {
  if (!V.Init)
    return "an uninitialised value";
  if (V.Parts.size() == 1)
    return describe(V.Parts.front());
  std::string Out = "the reduction of ";
  std::size_t I = 0;
  bool First = true;
  while (I < V.Parts.size()) {
    unsigned Chunk = V.Parts[I].Chunk;
    std::vector<unsigned> Ranks;
    while (I < V.Parts.size() && V.Parts[I].Chunk == Chunk)
      Ranks.push_back(V.Parts[I++].Rank);
    bool All = Ranks.size() == NRanks;
    for (unsigned R = 0; All && R < NRanks; ++R)
      All = Ranks[R] == R;
    if (!First)
      Out += " + ";
    First = false;
    if (All)
      Out += fmt::format("input chunk {} of all {} ranks", Chunk, NRanks);
    else
      Out += fmt::format("input chunk {} of rank{} {}", Chunk,
                         Ranks.size() == 1 ? "" : "s", fmt::join(Ranks, ", "));
  }
  return Out;
}

} // namespace tacclrt
