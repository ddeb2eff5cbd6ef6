//===- tools/tacclc/LspServer.cpp - tacclc lsp ----------------------------===//
//
// `tacclc lsp`: a Language Server for .sketch files over stdin and stdout,
// for any LSP client (the VS Code extension in editors/vscode/ starts it).
// It syncs whole documents; after each open or change it analyses the
// document (LspDocument) and publishes its diagnostics; it answers hover,
// definition, documentSymbol and formatting requests from the latest
// analysis. Messages that are not JSON-RPC get a protocol error and the
// server goes on; unknown requests get MethodNotFound; unknown
// notifications are ignored. It ends on `exit` (status 0 after a
// `shutdown` request, else 1) or at the end of its input (1).
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Commands.h"
#include "tools/tacclc/LspDocument.h"
#include "tools/tacclc/LspTransport.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>

using namespace tacclc;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

// JSON-RPC and LSP error codes.
constexpr int ParseError = -32700, InvalidRequest = -32600,
              MethodNotFound = -32601, InvalidParams = -32602,
              ServerNotInitialized = -32002, RequestFailed = -32803;

class Server {
public:
  Server(LspTransport &T, FrontendOptions FO) : T(T), FO(std::move(FO)) {}

  int run() {
    for (;;) {
      Value Msg = nullptr;
      std::string Why;
      switch (T.read(Msg, Why)) {
      case LspTransport::Read::End:
        return ExitUserError;
      case LspTransport::Read::Malformed:
        error(nullptr, ParseError, Why);
        continue;
      case LspTransport::Read::Message:
        break;
      }
      const Object *O = Msg.getAsObject();
      if (!O || !O->getString("method")) {
        if (O && O->get("id") && (O->get("result") || O->get("error")))
          continue; // a response to us: we send no requests
        error(O && O->get("id") ? *O->get("id") : Value(nullptr),
              InvalidRequest, "not a JSON-RPC request or notification");
        continue;
      }
      if (*O->getString("method") == "exit")
        return ShutDown ? ExitSuccess : ExitUserError;
      handle(*O);
    }
  }

private:
  LspTransport &T;
  FrontendOptions FO;
  bool Initialized = false, ShutDown = false;
  /// The open documents, analysed, by URI.
  std::map<std::string, std::unique_ptr<LspDocument>> Docs;

  void reply(const Value &Id, Value Result) {
    T.send(
        Object{{"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
  }
  void error(const Value &Id, int Code, std::string Message) {
    T.send(Object{{"jsonrpc", "2.0"},
                  {"id", Id},
                  {"error", Object{{"code", Code}, {"message", Message}}}});
  }
  void notify(llvm::StringRef Method, Value Params) {
    T.send(Object{
        {"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}});
  }

  void open(const std::string &Uri, std::string Text) {
    auto Doc = std::make_unique<LspDocument>(Uri, std::move(Text), FO);
    notify("textDocument/publishDiagnostics",
           Object{{"uri", Uri}, {"diagnostics", Doc->diagnostics()}});
    Docs[Uri] = std::move(Doc);
  }

  void handle(const Object &M) {
    const std::string Method = M.getString("method")->str();
    const Value *IdP = M.get("id");
    const Value Id = IdP ? *IdP : Value(nullptr);
    if (IdP && !IdP->getAsInteger() && !IdP->getAsString())
      return error(nullptr, InvalidRequest,
                   "an id must be a number or a "
                   "string");
    const Object *P = M.getObject("params");
    const Object *TD = P ? P->getObject("textDocument") : nullptr;
    std::string Uri = TD && TD->getString("uri") ? TD->getString("uri")->str()
                                                 : std::string();
    if (Method == "initialize") {
      Initialized = true;
      return reply(Id, capabilities());
    }
    if (!Initialized) {
      if (IdP)
        error(Id, ServerNotInitialized, "initialize first");
      return;
    }
    if (ShutDown) {
      if (IdP)
        error(Id, InvalidRequest, "the server is shutting down");
      return;
    }
    if (Method == "shutdown") {
      ShutDown = true;
      return reply(Id, nullptr);
    }
    static const char *const DocumentMethods[] = {
        "textDocument/didOpen",    "textDocument/didChange",
        "textDocument/didClose",   "textDocument/hover",
        "textDocument/definition", "textDocument/documentSymbol",
        "textDocument/formatting"};
    bool AboutDocument = false;
    for (const char *D : DocumentMethods)
      AboutDocument = AboutDocument || Method == D;
    if (AboutDocument && Uri.empty()) {
      if (IdP)
        error(Id, InvalidParams, "params.textDocument.uri is needed");
      return;
    }
    if (Method == "textDocument/didOpen") {
      if (TD && TD->getString("text"))
        open(Uri, TD->getString("text")->str());
      return;
    }
    if (Method == "textDocument/didChange") {
      const Array *Changes = P ? P->getArray("contentChanges") : nullptr;
      if (Changes && !Changes->empty())
        if (const Object *Last = Changes->back().getAsObject())
          if (auto Text = Last->getString("text"))
            open(Uri, Text->str());
      return;
    }
    if (Method == "textDocument/didClose") {
      Docs.erase(Uri);
      notify("textDocument/publishDiagnostics",
             Object{{"uri", Uri}, {"diagnostics", Array()}});
      return;
    }
    if (!IdP)
      return; // a notification we do not need (initialized, didSave, ...)
    auto It = Docs.find(Uri);
    const bool Positional =
        Method == "textDocument/hover" || Method == "textDocument/definition";
    if (Method == "textDocument/documentSymbol" ||
        Method == "textDocument/formatting" || Positional) {
      if (It == Docs.end())
        return error(Id, InvalidParams, "unknown document '" + Uri + "'");
      const LspDocument &Doc = *It->second;
      if (Method == "textDocument/documentSymbol")
        return reply(Id, Doc.symbols());
      if (Method == "textDocument/formatting") {
        if (std::optional<Array> Edits = Doc.formatting())
          return reply(Id, std::move(*Edits));
        return error(Id, RequestFailed,
                     "the document has syntax errors; it was not formatted");
      }
      const Object *Pos = P ? P->getObject("position") : nullptr;
      llvm::Optional<int64_t> Line, Char;
      if (Pos) {
        Line = Pos->getInteger("line");
        Char = Pos->getInteger("character");
      }
      if (!Line || !Char)
        return error(Id, InvalidParams, "a position is needed");
      return reply(Id, Method == "textDocument/hover"
                           ? Doc.hover(*Line, *Char)
                           : Doc.definition(*Line, *Char));
    }
    error(Id, MethodNotFound, "tacclc lsp does not implement '" + Method + "'");
  }

  static Object capabilities() {
    return Object{
        {"capabilities",
         Object{{"textDocumentSync",
                 Object{{"openClose", true}, {"change", 1}}}, // full text
                {"hoverProvider", true},
                {"definitionProvider", true},
                {"documentSymbolProvider", true},
                {"documentFormattingProvider", true}}},
        {"serverInfo", Object{{"name", "tacclc"}}}};
  }
};

} // namespace

int tacclc::runLsp(const LspOptions &Opts) {
  FrontendOptions FO;
  FO.IncludeDirs = Opts.IncludeDirs;
  FO.StdlibDir = Opts.StdlibDir;
  LspTransport T(stdin, llvm::outs());
  return Server(T, FO).run();
}
