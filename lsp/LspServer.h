//===- lsp/LspServer.h - The language server's core -------------*- C++ -*-===//
//
// What `tacclc lsp` does with each message, apart from how messages travel:
// the lifecycle (initialize, shutdown, exit), the open documents (each
// version analysed once, lsp/LspDocument.h) and the answers to
// requests. One message is handled at a time, so the server can be driven
// from a transport (serve) or message by message (handle), as the unit
// tests and the fuzzer (tests/fuzz/LspFuzzer.cpp) do.
//
// Every request gets exactly one answer, a result or a JSON-RPC error;
// notifications with unusable parameters are logged and ignored.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_LSP_LSPSERVER_H
#define TACCLC_LSP_LSPSERVER_H

#include "lsp/LspDocument.h"
#include "lsp/LspTransport.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// Whether \p Id can identify a request: an LSP integer (32 bits: larger
/// numbers may have been clamped by the JSON parser) or a string.
bool isRequestId(const llvm::json::Value &Id);

/// The (line, character) of an LSP Position, or nothing when \p Pos is
/// not one.
std::optional<std::pair<int64_t, int64_t>>
position(const llvm::json::Value *Pos);

/// The language server's state and message handling.
class LspServer {
public:
  /// What the server sends: the JSON text of each answer and notification.
  using Sender = std::function<void(llvm::StringRef Json)>;

  /// A server resolving imports with \p FO that sends through \p Send and
  /// logs the notifications it ignores to \p Log.
  LspServer(FrontendOptions FO, Sender Send, llvm::raw_ostream &Log);

  /// Handles one message. Returns the exit status once it was `exit`: 0
  /// after a `shutdown` request, else 1.
  std::optional<int> handle(const llvm::json::Value &Msg);
  /// Answers a message the transport could not read (\p Why) with a parse
  /// error.
  void malformed(llvm::StringRef Why);
  /// Handles every message \p T reads until `exit` or the end of the input
  /// (status 1); the exit status.
  int serve(LspTransport &T);

private:
  FrontendOptions FO;
  Sender Send;
  llvm::raw_ostream &Log;
  bool Initialized = false, ShutDown = false;
  /// The open documents, each analysed at its latest version, by URI.
  std::map<std::string, std::unique_ptr<LspDocument>> Docs;

  /// Writes a value into a message being sent.
  using Writer = llvm::function_ref<void(llvm::json::OStream &)>;
  /// Sends {"jsonrpc": "2.0", ...} with the members \p Members writes.
  void send(Writer Members);
  void reply(const llvm::json::Value &Id, Writer Result);
  void reply(const llvm::json::Value &Id, const llvm::json::Value &Result);
  void error(const llvm::json::Value &Id, int Code, llvm::StringRef Message);
  void notify(llvm::StringRef Method, Writer Params);
  void ignore(llvm::StringRef Method, llvm::StringRef Why);

  void open(const std::string &Uri, std::string Text,
            llvm::Optional<int64_t> Version);
  void request(llvm::StringRef Method, const llvm::json::Value *Id,
               const llvm::json::Object *Params);
  /// didOpen, didChange and didClose of \p Uri; false for other methods.
  bool synchronize(llvm::StringRef Method, const std::string &Uri,
                   const llvm::json::Object &Params);
  /// hover, definition, documentSymbol, formatting, completion and
  /// codeAction of \p Uri.
  void query(llvm::StringRef Method, const llvm::json::Value &Id,
             const std::string &Uri, const llvm::json::Object &Params);
  /// The quick fixes of the range \p Params names in \p Doc.
  void codeActions(const llvm::json::Value &Id, const LspDocument &Doc,
                   const llvm::json::Object &Params);
};

/// Options of `tacclc lsp`.
struct LspOptions {
  std::vector<std::string> IncludeDirs; ///< -I, searched for imports.
  std::string StdlibDir;                ///< The standard library.
};

/// `tacclc lsp`: a language server over stdin and stdout until `exit`;
/// the exit status (0 after a `shutdown` request, else 1).
int runLsp(const LspOptions &Opts);

} // namespace tacclc

#endif // TACCLC_LSP_LSPSERVER_H
