//===- support/Suggest.cpp - "Did you mean" suggestions -------------------===//
//
// Normalised equality first (case and separators are the commonest slips:
// NCCL spells `ncclAllGather`, MPI `MPI_Allgather`), then LLVM's edit
// distance, bounded so that short names are not matched to anything.
//
//===----------------------------------------------------------------------===//
#include "support/Suggest.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace tacclc;

std::string tacclc::normalizeName(llvm::StringRef Name) {
  std::string Out;
  for (char C : Name)
    if (C != '_' && C != '-' && C != '.')
      Out += llvm::toLower(C);
  return Out;
}

std::string tacclc::closestName(llvm::StringRef Name,
                                llvm::ArrayRef<llvm::StringRef> Candidates,
                                unsigned MaxDistance) {
  const std::string Key = normalizeName(Name);
  for (llvm::StringRef C : Candidates)
    if (!Key.empty() && normalizeName(C) == Key)
      return C.str();
  // A distance must also be below the name's length: `ib` is two edits from
  // any two-letter name.
  const unsigned Limit =
      std::min<size_t>(MaxDistance, Name.empty() ? 0 : Name.size() - 1);
  llvm::StringRef Best;
  unsigned BestDist = Limit + 1;
  for (llvm::StringRef C : Candidates) {
    unsigned D = Name.edit_distance(C, true, BestDist);
    if (D < BestDist) {
      BestDist = D;
      Best = C;
    }
  }
  return Best.str();
}
