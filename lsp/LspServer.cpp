//===- lsp/LspServer.cpp - tacclc lsp -------------------------------------===//
//
// `tacclc lsp`: a Language Server for .sketch files over stdin and stdout,
// for any LSP client (the VS Code extension in editors/vscode/ starts it).
// It syncs whole documents; after each open or change it analyses the
// document (LspDocument) and publishes its diagnostics; it answers hover,
// definition, documentSymbol, formatting, completion and codeAction
// requests from that analysis, which is kept until the next change (the
// names that completion offers outlive a change that does not parse). Messages
// that are not JSON-RPC get a protocol error and the server goes on; unknown
// requests get MethodNotFound; unknown notifications are ignored. It ends on
// `exit` (status 0 after a `shutdown` request, else 1) or at the end of its
// input (1).
//
//===----------------------------------------------------------------------===//
#include "lsp/LspServer.h"

#include "llvm/ADT/STLExtras.h"

#include <cstdint>

using namespace tacclc;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

// JSON-RPC and LSP error codes.
constexpr int ParseError = -32700, InvalidRequest = -32600,
              MethodNotFound = -32601, InvalidParams = -32602,
              ServerNotInitialized = -32002, RequestFailed = -32803;

Object capabilities() {
  return Object{
      {"capabilities",
       Object{{"textDocumentSync",
               Object{{"openClose", true}, {"change", 1}}}, // full text
              {"hoverProvider", true},
              {"definitionProvider", true},
              {"documentSymbolProvider", true},
              {"documentFormattingProvider", true},
              // After `module.`, and in an import's path.
              {"completionProvider",
               Object{{"triggerCharacters", Array{".", "\"", "/"}}}},
              {"codeActionProvider",
               Object{{"codeActionKinds", Array{"quickfix"}}}}}},
      {"serverInfo", Object{{"name", "tacclc"}}}};
}

} // namespace

std::optional<std::pair<int64_t, int64_t>>
tacclc::position(const llvm::json::Value *Pos) {
  const Object *O = Pos ? Pos->getAsObject() : nullptr;
  llvm::Optional<int64_t> Line = O ? O->getInteger("line") : llvm::None;
  llvm::Optional<int64_t> Char = O ? O->getInteger("character") : llvm::None;
  if (!Line || !Char)
    return std::nullopt;
  return std::make_pair(*Line, *Char);
}

bool tacclc::isRequestId(const Value &Id) {
  llvm::Optional<int64_t> N = Id.getAsInteger();
  return Id.getAsString() || (N && *N >= INT32_MIN && *N <= INT32_MAX);
}

LspServer::LspServer(FrontendOptions FO, Sender Send, llvm::raw_ostream &Log)
    : FO(std::move(FO)), Send(std::move(Send)), Log(Log) {}

void LspServer::send(Writer Members) {
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  llvm::json::OStream J(OS);
  J.object([&] {
    J.attribute("jsonrpc", "2.0");
    Members(J);
  });
  OS.flush();
  Send(Json);
}

void LspServer::reply(const Value &Id, Writer Result) {
  send([&](llvm::json::OStream &J) {
    J.attribute("id", Id);
    J.attributeBegin("result");
    Result(J);
    J.attributeEnd();
  });
}

void LspServer::reply(const Value &Id, const Value &Result) {
  reply(Id, [&](llvm::json::OStream &J) { J.value(Result); });
}

void LspServer::error(const Value &Id, int Code, llvm::StringRef Message) {
  send([&](llvm::json::OStream &J) {
    J.attribute("id", Id);
    J.attributeObject("error", [&] {
      J.attribute("code", Code);
      J.attribute("message", Message);
    });
  });
}

void LspServer::notify(llvm::StringRef Method, Writer Params) {
  send([&](llvm::json::OStream &J) {
    J.attribute("method", Method);
    J.attributeBegin("params");
    Params(J);
    J.attributeEnd();
  });
}

void LspServer::ignore(llvm::StringRef Method, llvm::StringRef Why) {
  Log << "tacclc lsp: ignored " << Method << ": " << Why << "\n";
  Log.flush();
}

void LspServer::malformed(llvm::StringRef Why) {
  error(nullptr, ParseError, Why);
}

int LspServer::serve(LspTransport &T) {
  for (;;) {
    Value Msg = nullptr;
    std::string Why;
    switch (T.read(Msg, Why)) {
    case LspTransport::Read::End:
      return 1; // the input ended without `exit`
    case LspTransport::Read::Malformed:
      malformed(Why);
      continue;
    case LspTransport::Read::Message:
      if (std::optional<int> Status = handle(Msg))
        return *Status;
    }
  }
}

std::optional<int> LspServer::handle(const Value &Msg) {
  const Object *O = Msg.getAsObject();
  const Value *Id = O ? O->get("id") : nullptr;
  llvm::Optional<llvm::StringRef> Method =
      O ? O->getString("method") : llvm::None;
  if (!Method) {
    if (Id && (O->get("result") || O->get("error")))
      return std::nullopt; // a response to us: we send no requests
    error(Id && isRequestId(*Id) ? *Id : nullptr, InvalidRequest,
          "not a JSON-RPC request or notification");
    return std::nullopt;
  }
  if (*Method == "exit")
    return ShutDown ? 0 : 1;
  if (Id && !isRequestId(*Id)) {
    // Not an id the answer could carry (null, a fraction, a huge number).
    error(nullptr, InvalidRequest,
          "an id must be a string or an integer of 32 bits");
    return std::nullopt;
  }
  request(*Method, Id, O->getObject("params"));
  return std::nullopt;
}

void LspServer::request(llvm::StringRef Method, const Value *IdP,
                        const Object *P) {
  const Value Id = IdP ? *IdP : Value(nullptr);
  if (Method == "initialize") {
    if (IdP)
      reply(Id, capabilities());
    Initialized = true;
    return;
  }
  if (!Initialized || ShutDown) {
    if (IdP)
      error(Id, Initialized ? InvalidRequest : ServerNotInitialized,
            Initialized ? "the server is shutting down" : "initialize first");
    return;
  }
  if (Method == "shutdown") {
    ShutDown = true;
    if (IdP)
      reply(Id, Value(nullptr));
    return;
  }
  static const char *const DocumentMethods[] = {
      "textDocument/didOpen",    "textDocument/didChange",
      "textDocument/didClose",   "textDocument/hover",
      "textDocument/definition", "textDocument/documentSymbol",
      "textDocument/formatting", "textDocument/completion",
      "textDocument/codeAction"};
  if (!llvm::is_contained(DocumentMethods, Method)) {
    if (IdP)
      error(Id, MethodNotFound,
            "tacclc lsp does not implement '" + Method.str() + "'");
    return; // a notification we do not need (initialized, didSave, ...)
  }
  const Object *TD = P ? P->getObject("textDocument") : nullptr;
  llvm::Optional<llvm::StringRef> Uri = TD ? TD->getString("uri") : llvm::None;
  if (!Uri || Uri->empty()) {
    if (IdP)
      error(Id, InvalidParams, "params.textDocument.uri is needed");
    else
      ignore(Method, "params.textDocument.uri is needed");
    return;
  }
  if (synchronize(Method, Uri->str(), *P)) {
    if (IdP) // a notification sent as a request still gets its answer
      reply(Id, Value(nullptr));
  } else if (IdP) {
    query(Method, Id, Uri->str(), *P);
  }
}

void LspServer::open(const std::string &Uri, std::string Text,
                     llvm::Optional<int64_t> Version) {
  // The previous version goes first: freeing a big analysis takes a while,
  // better before the diagnostics than before the next request. Its names
  // stay for completion, for when this version does not parse.
  DocumentNames Previous;
  if (auto It = Docs.find(Uri); It != Docs.end()) {
    Previous = It->second->names();
    Docs.erase(It);
  }
  auto Doc = std::make_unique<LspDocument>(Uri, std::move(Text), FO, Previous);
  Previous = DocumentNames(); // the names Doc did not keep go now, too
  notify("textDocument/publishDiagnostics", [&](llvm::json::OStream &J) {
    J.object([&] {
      J.attribute("uri", Uri);
      if (Version)
        J.attribute("version", *Version);
      J.attributeBegin("diagnostics");
      Doc->diagnostics(J);
      J.attributeEnd();
    });
  });
  Docs[Uri] = std::move(Doc);
}

bool LspServer::synchronize(llvm::StringRef Method, const std::string &Uri,
                            const Object &P) {
  const Object *TD = P.getObject("textDocument");
  llvm::Optional<int64_t> Version = TD->getInteger("version");
  if (Method == "textDocument/didOpen") {
    if (llvm::Optional<llvm::StringRef> Text = TD->getString("text"))
      open(Uri, Text->str(), Version);
    else
      ignore(Method, "params.textDocument.text is needed");
    return true;
  }
  if (Method == "textDocument/didChange") {
    // Full sync: the last change holds the whole text.
    const Array *Changes = P.getArray("contentChanges");
    const Object *Last =
        Changes && !Changes->empty() ? Changes->back().getAsObject() : nullptr;
    if (llvm::Optional<llvm::StringRef> Text =
            Last ? Last->getString("text") : llvm::None)
      open(Uri, Text->str(), Version);
    else
      ignore(Method, "params.contentChanges needs a change with a text");
    return true;
  }
  if (Method == "textDocument/didClose") {
    Docs.erase(Uri);
    notify("textDocument/publishDiagnostics", [&](llvm::json::OStream &J) {
      J.value(Object{{"uri", Uri}, {"diagnostics", Array()}});
    });
    return true;
  }
  return false;
}

void LspServer::query(llvm::StringRef Method, const Value &Id,
                      const std::string &Uri, const Object &P) {
  auto It = Docs.find(Uri);
  if (It == Docs.end())
    return error(Id, InvalidParams, "unknown document '" + Uri + "'");
  const LspDocument &Doc = *It->second;
  if (Method == "textDocument/documentSymbol")
    return reply(Id, [&](llvm::json::OStream &J) { Doc.symbols(J); });
  if (Method == "textDocument/formatting") {
    if (std::optional<std::string> Formatted = Doc.formatted())
      return reply(
          Id, [&](llvm::json::OStream &J) { Doc.formatting(*Formatted, J); });
    return error(Id, RequestFailed,
                 "the document has syntax errors; it was not formatted");
  }
  if (Method == "textDocument/codeAction")
    return codeActions(Id, Doc, P);
  std::optional<std::pair<int64_t, int64_t>> At = position(P.get("position"));
  if (!At)
    return error(Id, InvalidParams, "a position is needed");
  auto [Line, Char] = *At;
  reply(Id, [&](llvm::json::OStream &J) {
    if (Method == "textDocument/hover")
      Doc.hover(Line, Char, J);
    else if (Method == "textDocument/completion")
      Doc.completion(Line, Char, J);
    else
      Doc.definition(Line, Char, J);
  });
}

void LspServer::codeActions(const Value &Id, const LspDocument &Doc,
                            const Object &P) {
  const Object *R = P.getObject("range");
  auto From = position(R ? R->get("start") : nullptr);
  auto To = position(R ? R->get("end") : nullptr);
  if (!From || !To)
    return error(Id, InvalidParams, "a range is needed");
  // Only quick fixes are offered: none when the client asks for other
  // kinds only.
  const Object *Context = P.getObject("context");
  const Array *Only = Context ? Context->getArray("only") : nullptr;
  bool Wanted = !Only || llvm::is_contained(*Only, Value("quickfix"));
  reply(Id, [&](llvm::json::OStream &J) {
    if (Wanted)
      Doc.codeActions(From->first, From->second, To->first, To->second, J);
    else
      J.array([] {});
  });
}

int tacclc::runLsp(const LspOptions &Opts) {
  FrontendOptions FO;
  FO.IncludeDirs = Opts.IncludeDirs;
  FO.StdlibDir = Opts.StdlibDir;
  LspFileInput In(stdin);
  LspTransport T(In, llvm::outs());
  LspServer S(
      FO, [&T](llvm::StringRef Json) { T.send(Json); }, llvm::errs());
  return S.serve(T);
}
