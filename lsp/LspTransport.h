//===- lsp/LspTransport.h - JSON-RPC over a byte stream ---------*- C++ -*-===//
//
// The Language Server Protocol's base layer: messages are JSON bodies after
// a `Content-Length: N` header and an empty line (`\r\n`), in both
// directions. The transport reads one message at a time from a byte source
// (standard input for `tacclc lsp`, a block of memory for the fuzzer and the
// unit tests) and writes one (header and body) at a time, flushed.
//
// Reading is bounded so that no input can crash the server or make it use
// unbounded memory: a header line is at most 4 KiB, a body at most
// MaxBodyBytes (a larger one is refused and skipped), and a body nested
// deeper than MaxJsonDepth is refused before llvm::json, which parses
// recursively, sees it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_LSP_LSPTRANSPORT_H
#define TACCLC_LSP_LSPTRANSPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace tacclc {

/// The largest message body read, in bytes (64 MiB).
constexpr size_t MaxBodyBytes = size_t(64) << 20;
/// The deepest nesting of arrays and objects accepted in a body.
constexpr unsigned MaxJsonDepth = 128;

/// Whether arrays and objects in \p Text nest at most \p Max deep. A linear
/// scan that skips strings (escapes included), so that brackets inside
/// strings do not count; it does not validate the JSON.
bool jsonDepthAtMost(llvm::StringRef Text, unsigned Max);

/// Where the transport reads bytes from.
class LspInput {
public:
  virtual ~LspInput();
  /// The next byte, or -1 at the end of the input.
  virtual int get() = 0;
  /// Reads up to \p Size bytes into \p Into; fewer only at the end.
  virtual size_t read(char *Into, size_t Size) = 0;
};

/// Bytes from a stdio stream (standard input for `tacclc lsp`).
class LspFileInput : public LspInput {
public:
  explicit LspFileInput(std::FILE *In) : In(In) {}
  int get() override;
  size_t read(char *Into, size_t Size) override;

private:
  std::FILE *In;
};

/// Bytes from memory, which must outlive the input.
class LspMemoryInput : public LspInput {
public:
  explicit LspMemoryInput(llvm::StringRef Bytes) : Rest(Bytes) {}
  int get() override;
  size_t read(char *Into, size_t Size) override;

private:
  llvm::StringRef Rest;
};

/// Reads and writes LSP messages.
class LspTransport {
public:
  LspTransport(LspInput &In, llvm::raw_ostream &Out) : In(In), Out(Out) {}

  /// What read() found.
  enum class Read {
    Message,   ///< A JSON body, in Msg.
    Malformed, ///< A header or body that is not a message (Why says how).
    End,       ///< The end of the input.
  };
  /// Reads the next message into \p Msg. After a Malformed result the
  /// stream goes on with the next message: a body that was too big is
  /// skipped when the next message is read (so that the caller can answer
  /// first).
  Read read(llvm::json::Value &Msg, std::string &Why);

  /// Writes the message \p Json (JSON text) with its header.
  void send(llvm::StringRef Json);

private:
  LspInput &In;
  llvm::raw_ostream &Out;
  /// Bytes of a refused body still to be skipped.
  uint64_t Skip = 0;

  bool readLine(std::string &Line);
};

} // namespace tacclc

#endif // TACCLC_LSP_LSPTRANSPORT_H
