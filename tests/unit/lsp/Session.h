//===- tests/unit/lsp/Session.h - A server driven in memory ---*- C++ -*-===//
//
// For the language server's unit tests: an LspServer handed one message at
// a time, keeping what it sends, with helpers for requests, notifications
// and opening a document.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TESTS_UNIT_LSP_SESSION_H
#define TACCLC_TESTS_UNIT_LSP_SESSION_H

#include "lsp/LspServer.h"

#include "llvm/Support/FormatVariadic.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tacclc {

/// A server driven message by message, keeping what it sends.
struct Session {
  using Object = llvm::json::Object;
  using Value = llvm::json::Value;

  std::vector<Value> Sent;
  std::string Logged;
  llvm::raw_string_ostream Log{Logged};
  LspServer Server;
  int64_t NextId = 1;

  explicit Session(FrontendOptions FO = FrontendOptions())
      : Server(
            std::move(FO),
            [this](llvm::StringRef Json) {
              llvm::Expected<Value> M = llvm::json::parse(Json);
              REQUIRE(bool(M));
              Sent.push_back(std::move(*M));
            },
            Log) {}

  /// Handles \p Body (JSON text); what the server sent for it.
  std::vector<Value> send(llvm::StringRef Body) {
    Sent.clear();
    llvm::Expected<Value> V = llvm::json::parse(Body);
    REQUIRE(bool(V));
    CHECK(!Server.handle(*V));
    return Sent;
  }
  /// The one answer to a request of \p Method with \p Params.
  Object request(llvm::StringRef Method, Value Params) {
    int64_t Id = NextId++;
    std::vector<Value> Out =
        send(llvm::formatv("{0}", Value(Object{{"jsonrpc", "2.0"},
                                               {"id", Id},
                                               {"method", Method},
                                               {"params", std::move(Params)}}))
                 .str());
    REQUIRE(Out.size() == 1);
    Object Answer = *Out[0].getAsObject();
    CHECK(Answer.getInteger("id") == Id);
    return Answer;
  }
  void notify(llvm::StringRef Method, Value Params) {
    send(llvm::formatv("{0}", Value(Object{{"jsonrpc", "2.0"},
                                           {"method", Method},
                                           {"params", std::move(Params)}}))
             .str());
  }
  void open(const std::string &Uri, const std::string &Text) {
    notify("textDocument/didOpen",
           Object{{"textDocument", Object{{"uri", Uri}, {"text", Text}}}});
  }
};

inline int64_t errorCode(const llvm::json::Object &Answer) {
  const llvm::json::Object *E = Answer.getObject("error");
  return E && E->getInteger("code") ? *E->getInteger("code") : 0;
}

inline llvm::json::Object position(int64_t Line, int64_t Char) {
  return llvm::json::Object{{"line", Line}, {"character", Char}};
}

} // namespace tacclc

#endif // TACCLC_TESTS_UNIT_LSP_SESSION_H
