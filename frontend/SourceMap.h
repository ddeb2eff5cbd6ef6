//===- frontend/SourceMap.h - ANTLR indices to source locations -*- C++ -*-===//
//
// ANTLR's input stream counts code points, llvm::SourceMgr counts bytes. The
// SourceMap translates ANTLR character indices (token start/stop) into
// SMLoc/SMRange inside the SourceMgr buffer, so carets stay right even after
// non-ASCII text in comments. Internal to frontend/.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_SOURCEMAP_H
#define TACCLC_FRONTEND_SOURCEMAP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstddef>
#include <vector>

namespace tacclc {

/// Maps code-point indices of one buffer to byte locations.
class SourceMap {
public:
  /// Builds the map for \p Buffer (which must stay alive).
  explicit SourceMap(llvm::StringRef Buffer) : Buffer(Buffer) {
    for (size_t I = 0; I < Buffer.size(); ++I)
      if ((static_cast<unsigned char>(Buffer[I]) & 0xC0) != 0x80)
        Starts.push_back(I);
    Starts.push_back(Buffer.size());
  }
  /// Location of code point \p Index (clamped to the end of the buffer).
  llvm::SMLoc loc(size_t Index) const {
    size_t Byte = Index < Starts.size() ? Starts[Index] : Buffer.size();
    return llvm::SMLoc::getFromPointer(Buffer.data() + Byte);
  }
  /// Range covering code points [Start, Stop] inclusive, as ANTLR tokens do.
  llvm::SMRange range(size_t Start, size_t Stop) const {
    if (Stop < Start)
      Stop = Start;
    return llvm::SMRange(loc(Start), loc(Stop + 1));
  }

private:
  llvm::StringRef Buffer;
  std::vector<size_t> Starts;
};

} // namespace tacclc

#endif // TACCLC_FRONTEND_SOURCEMAP_H
