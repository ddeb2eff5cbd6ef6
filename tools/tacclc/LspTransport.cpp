//===- tools/tacclc/LspTransport.cpp - JSON-RPC over stdio ----------------===//
//
// LspTransport (LspTransport.h): headers are read line by line up to the
// empty line; only Content-Length matters (Content-Type is accepted and
// ignored); the body is read in full and parsed with llvm::json. A body over
// 64 MiB is refused without reading it into memory all at once.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/LspTransport.h"

#include "llvm/ADT/StringRef.h"

using namespace tacclc;

namespace {

constexpr size_t MaxBody = 64u << 20;

/// One header line without its line end; false at the end of the input.
bool readLine(std::FILE *In, std::string &Line) {
  Line.clear();
  for (int C; (C = std::fgetc(In)) != EOF;) {
    if (C == '\n') {
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      return true;
    }
    Line += char(C);
    if (Line.size() > 4096)
      return true; // no header is this long; reported as malformed
  }
  return !Line.empty();
}

} // namespace

LspTransport::Read LspTransport::read(llvm::json::Value &Msg,
                                      std::string &Why) {
  std::string Line;
  long long Length = -1;
  bool AnyHeader = false;
  for (;;) {
    if (!readLine(In, Line))
      return Read::End;
    if (Line.empty()) {
      if (AnyHeader)
        break;
      continue; // stray blank lines between messages
    }
    AnyHeader = true;
    llvm::StringRef L(Line);
    if (L.consume_front_insensitive("content-length:")) {
      unsigned long long N = 0;
      if (L.trim().getAsInteger(10, N))
        Length = -2;
      else
        Length = static_cast<long long>(N);
    }
  }
  if (Length < 0) {
    Why = "a message without a valid Content-Length header";
    return Read::Malformed;
  }
  if (static_cast<size_t>(Length) > MaxBody) {
    for (long long I = 0; I < Length && std::fgetc(In) != EOF; ++I)
      ;
    Why = "a message over 64 MiB";
    return Read::Malformed;
  }
  std::string Body(static_cast<size_t>(Length), '\0');
  if (std::fread(Body.data(), 1, Body.size(), In) != Body.size())
    return Read::End;
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Body);
  if (!V) {
    Why = "a body that is not JSON: " + llvm::toString(V.takeError());
    return Read::Malformed;
  }
  Msg = std::move(*V);
  return Read::Message;
}

void LspTransport::send(const llvm::json::Value &Msg) {
  std::string Body;
  llvm::raw_string_ostream OS(Body);
  OS << Msg;
  OS.flush();
  Out << "Content-Length: " << Body.size() << "\r\n\r\n" << Body;
  Out.flush();
}
