//===- tests/fuzz/LspFuzzer.cpp - libFuzzer target: the language server ---===//
//
// Feeds arbitrary bytes to the core of `tacclc lsp` (tools/tacclc/
// LspServer.h) as its standard input would: the bytes go through the
// transport (LspTransport: headers, body limits, the JSON depth check,
// llvm::json) and every message it reads is handled by one LspServer, which
// keeps its state (open documents, the lifecycle) from one message to the
// next. Imports resolve in the repository's stdlib-sketches/.
//
// An input is either the raw byte stream, when it starts with a
// `Content-Length` header, or else one JSON-RPC message per line, each line
// framed with its exact Content-Length before it is handed to the transport
// (so that mutations reach the server instead of breaking the framing);
// tests/fuzz/seeds/lsp/ has both kinds. tests/e2e/e2e.py (`regressions`)
// replays saved inputs through `tacclc lsp` with the same rule.
//
// Besides sanitizer reports, the target checks the server's contract, and
// aborts (libFuzzer keeps the input) when it is broken: every message sent
// is a JSON-RPC 2.0 object whose text the transport reads back unchanged
// (the nesting limit included); a message the transport refuses gets one parse
// error (-32700, id null); a request with a usable id gets exactly one response
// carrying that id; and `exit` ends the session.
//
//===----------------------------------------------------------------------===//
#include "lsp/LspServer.h"
#include "lsp/LspTransport.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using llvm::json::Object;
using llvm::json::Value;

namespace {

[[noreturn]] void contractViolation(const char *What) {
  std::fprintf(stderr, "LspFuzzer: contract violated: %s\n", What);
  std::abort();
}

/// The fuzz input as the byte stream of the transport.
std::string streamOf(llvm::StringRef Data) {
  if (Data.size() >= 14 &&
      Data.take_front(14).equals_insensitive("content-length"))
    return Data.str();
  std::string Out;
  while (!Data.empty()) {
    auto [Line, Rest] = Data.split('\n');
    Data = Rest;
    if (Line.trim().empty())
      continue;
    Out += "Content-Length: " + std::to_string(Line.size()) + "\r\n\r\n";
    Out += Line.str();
  }
  return Out;
}

/// Checks one message the server sent (its JSON text) and keeps it.
void checkSent(llvm::StringRef Json, std::vector<Value> &Sent) {
  llvm::Expected<Value> Msg = llvm::json::parse(Json);
  if (!Msg) {
    llvm::consumeError(Msg.takeError());
    contractViolation("a message sent is not JSON");
  }
  const Object *O = Msg->getAsObject();
  if (!O || O->getString("jsonrpc") != llvm::StringRef("2.0"))
    contractViolation("a message sent is not a JSON-RPC 2.0 object");
  if (!O->getString("method") && !O->get("id"))
    contractViolation("a message sent is neither a response nor a "
                      "notification");
  if (O->get("id") && !O->get("result") == !O->get("error"))
    contractViolation("a response needs exactly one of result and error");
  // What the client reads: the transport must take it back unchanged.
  std::string Framed;
  llvm::raw_string_ostream OS(Framed);
  tacclc::LspMemoryInput Nothing("");
  tacclc::LspTransport(Nothing, OS).send(Json);
  OS.flush();
  tacclc::LspMemoryInput In(Framed);
  tacclc::LspTransport Reader(In, llvm::nulls());
  Value Back = nullptr;
  std::string Why;
  if (Reader.read(Back, Why) != tacclc::LspTransport::Read::Message ||
      Back != *Msg)
    contractViolation("a message sent does not read back as itself");
  Sent.push_back(std::move(*Msg));
}

/// The id a request must be answered with, or nothing for notifications,
/// responses and messages whose id cannot be answered.
const Value *answerableId(const Value &Msg) {
  const Object *O = Msg.getAsObject();
  if (!O || !O->getString("method") || *O->getString("method") == "exit")
    return nullptr;
  const Value *Id = O->get("id");
  return Id && tacclc::isRequestId(*Id) ? Id : nullptr;
}

} // namespace

/// libFuzzer entry point: one session of the language server.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string Stream =
      streamOf(llvm::StringRef(reinterpret_cast<const char *>(Data), Size));
  tacclc::FrontendOptions FO;
  FO.StdlibDir = TACCLC_STDLIB_DIR;
  std::vector<Value> Sent;
  tacclc::LspServer Server(
      FO, [&](llvm::StringRef Json) { checkSent(Json, Sent); }, llvm::nulls());
  tacclc::LspMemoryInput In(Stream);
  tacclc::LspTransport T(In, llvm::nulls());
  for (;;) {
    Value Msg = nullptr;
    std::string Why;
    Sent.clear();
    tacclc::LspTransport::Read R = T.read(Msg, Why);
    if (R == tacclc::LspTransport::Read::End)
      break;
    if (R == tacclc::LspTransport::Read::Malformed) {
      Server.malformed(Why);
      const Object *E = Sent.size() == 1 ? Sent[0].getAsObject() : nullptr;
      const Object *Err = E ? E->getObject("error") : nullptr;
      if (!Err || Err->getInteger("code") != int64_t(-32700) ||
          *E->get("id") != Value(nullptr))
        contractViolation("a refused message needs one parse error");
      continue;
    }
    std::optional<int> Exit = Server.handle(Msg);
    if (Exit) {
      if (*Exit != 0 && *Exit != 1)
        contractViolation("exit with a status other than 0 or 1");
      break;
    }
    if (const Value *Id = answerableId(Msg)) {
      unsigned Answers = 0;
      for (const Value &S : Sent) {
        const Object *O = S.getAsObject();
        Answers += !O->get("method") && *O->get("id") == *Id;
      }
      if (Answers != 1)
        contractViolation("a request needs exactly one response with its id");
    }
  }
  return 0;
}
