//===- tune/Cache.cpp - Where tune keeps what it has done -----------------===//
//
// Content keys and the default cache folder (tune/Cache.h).
//
//===----------------------------------------------------------------------===//
#include "tune/Cache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <cstdlib>

using namespace tacclc;

std::string tune::contentKey(llvm::ArrayRef<std::string> Parts) {
  llvm::SHA256 H;
  for (const std::string &P : Parts) {
    H.update(std::to_string(P.size()) + ":");
    H.update(P);
  }
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

std::optional<std::string> tune::fileDigest(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  llvm::SHA256 H;
  H.update((*Buf)->getBuffer());
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

std::string tune::defaultCacheDir() {
  auto Env = [](const char *Name) -> std::string {
    const char *V = std::getenv(Name);
    return V && *V ? V : "";
  };
  if (std::string D = Env("TACCLC_CACHE_DIR"); !D.empty())
    return D;
  llvm::SmallString<256> P;
  if (std::string X = Env("XDG_CACHE_HOME"); !X.empty())
    P = X;
  else if (std::string Home = Env("HOME"); !Home.empty())
    llvm::sys::path::append(P, Home, ".cache");
  else
    return "";
  llvm::sys::path::append(P, "tacclc", "tune");
  return std::string(P);
}
