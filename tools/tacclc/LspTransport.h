//===- tools/tacclc/LspTransport.h - JSON-RPC over stdio --------*- C++ -*-===//
//
// The Language Server Protocol's base layer: messages are JSON bodies after
// a `Content-Length: N` header and an empty line (`\r\n`), in both
// directions. The transport reads one message at a time from a stream and
// writes one (header and body) at a time, flushed.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_LSPTRANSPORT_H
#define TACCLC_TOOLS_TACCLC_LSPTRANSPORT_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>

namespace tacclc {

/// Reads and writes LSP messages.
class LspTransport {
public:
  LspTransport(std::FILE *In, llvm::raw_ostream &Out) : In(In), Out(Out) {}

  /// What read() found.
  enum class Read {
    Message,   ///< A JSON body, in Msg.
    Malformed, ///< A header or body that is not a message (Why says how).
    End,       ///< The end of the input.
  };
  /// Reads the next message into \p Msg.
  Read read(llvm::json::Value &Msg, std::string &Why);

  /// Writes \p Msg with its header.
  void send(const llvm::json::Value &Msg);

private:
  std::FILE *In;
  llvm::raw_ostream &Out;
};

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_LSPTRANSPORT_H
