//===- support/Sizes.cpp - Byte sizes on command lines --------------------===//
//
// parseSizeList(): a range doubles from its low end until it passes the
// high end; units (K, KB, KiB, M, ..., any case) are powers of 1024; sizes
// above 2^50 bytes are refused.
//
//===----------------------------------------------------------------------===//
#include "support/Sizes.h"

#include "llvm/ADT/SmallVector.h"

using namespace tacclc;

std::optional<std::vector<uint64_t>>
tacclc::parseSizeList(llvm::StringRef Spec) {
  auto One = [](llvm::StringRef S) -> std::optional<uint64_t> {
    S = S.trim();
    uint64_t Mul = 1;
    for (auto [Suffix, M] :
         {std::pair("KiB", uint64_t(1) << 10),
          std::pair("MiB", uint64_t(1) << 20),
          std::pair("GiB", uint64_t(1) << 30),
          std::pair("KB", uint64_t(1) << 10),
          std::pair("MB", uint64_t(1) << 20),
          std::pair("GB", uint64_t(1) << 30), std::pair("K", uint64_t(1) << 10),
          std::pair("M", uint64_t(1) << 20), std::pair("G", uint64_t(1) << 30),
          std::pair("B", uint64_t(1))})
      if (S.consume_back_insensitive(Suffix)) {
        Mul = M;
        break;
      }
    uint64_t V;
    if (S.trim().getAsInteger(10, V) || V == 0 || V > (uint64_t(1) << 50) / Mul)
      return std::nullopt;
    return V * Mul;
  };
  std::vector<uint64_t> Out;
  if (auto [Lo, Hi] = Spec.split(':'); !Hi.empty()) {
    auto L = One(Lo), H = One(Hi);
    if (!L || !H || *L > *H)
      return std::nullopt;
    for (uint64_t S = *L; S <= *H; S *= 2)
      Out.push_back(S);
    return Out;
  }
  llvm::SmallVector<llvm::StringRef> Parts;
  Spec.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    auto V = One(P);
    if (!V)
      return std::nullopt;
    Out.push_back(*V);
  }
  return Out;
}
