//===- lsp/LspTransport.cpp - JSON-RPC over a byte stream -----------------===//
//
// LspTransport (LspTransport.h): headers are read line by line up to the
// empty line; only Content-Length matters (Content-Type is accepted and
// ignored). The body is read in pieces as it arrives (a Content-Length
// alone reserves no memory), checked for its nesting depth and parsed with
// llvm::json, which also rejects invalid UTF-8. A body over MaxBodyBytes is
// refused and skipped without being kept.
//
//===----------------------------------------------------------------------===//
#include "lsp/LspTransport.h"

#include <algorithm>

using namespace tacclc;

bool tacclc::jsonDepthAtMost(llvm::StringRef Text, unsigned Max) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0, E = Text.size(); I < E; ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I; // the escaped character, `"` and `\` included
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Max)
        return false;
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth; // unbalanced closers are the parser's to report
    }
  }
  return true;
}

LspInput::~LspInput() = default;

int LspFileInput::get() {
  int C = std::fgetc(In);
  return C == EOF ? -1 : C;
}

size_t LspFileInput::read(char *Into, size_t Size) {
  return std::fread(Into, 1, Size, In);
}

int LspMemoryInput::get() {
  if (Rest.empty())
    return -1;
  unsigned char C = static_cast<unsigned char>(Rest.front());
  Rest = Rest.drop_front();
  return C;
}

size_t LspMemoryInput::read(char *Into, size_t Size) {
  size_t N = std::min(Size, Rest.size());
  std::copy_n(Rest.data(), N, Into);
  Rest = Rest.drop_front(N);
  return N;
}

/// One header line without its line end; false at the end of the input. A
/// line longer than any header is cut into pieces (each is ignored).
bool LspTransport::readLine(std::string &Line) {
  Line.clear();
  for (int C; (C = In.get()) >= 0;) {
    if (C == '\n') {
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      return true;
    }
    Line += char(C);
    if (Line.size() > 4096)
      return true;
  }
  return !Line.empty();
}

LspTransport::Read LspTransport::read(llvm::json::Value &Msg,
                                      std::string &Why) {
  for (char Scratch[4096]; Skip > 0;) {
    size_t Want = size_t(std::min<uint64_t>(Skip, sizeof(Scratch)));
    size_t Got = In.read(Scratch, Want);
    Skip -= Got;
    if (Got < Want)
      return Read::End;
  }
  std::string Line;
  enum { Missing, Valid, Invalid } Length = Missing;
  uint64_t Declared = 0;
  bool AnyHeader = false;
  for (;;) {
    if (!readLine(Line))
      return Read::End;
    if (Line.empty()) {
      if (AnyHeader)
        break;
      continue; // stray blank lines between messages
    }
    AnyHeader = true;
    llvm::StringRef L(Line);
    if (L.consume_front_insensitive("content-length:")) {
      L = L.trim();
      // Digits only: getAsInteger would also take a `0x` or `0b` prefix.
      bool Digits = !L.empty() &&
                    L.find_first_not_of("0123456789") == llvm::StringRef::npos;
      Length = Digits && !L.getAsInteger(10, Declared) ? Valid : Invalid;
    }
  }
  if (Length != Valid) {
    Why = Length == Missing
              ? "a message without a Content-Length header"
              : "a message whose Content-Length is not a byte count";
    return Read::Malformed;
  }
  if (Declared > MaxBodyBytes) {
    Skip = Declared;
    Why = "a message body of " + std::to_string(Declared) +
          " bytes, over the limit of " + std::to_string(MaxBodyBytes);
    return Read::Malformed;
  }
  std::string Body;
  while (Body.size() < Declared) {
    size_t Old = Body.size();
    size_t Want = std::min<size_t>(size_t(1) << 20, size_t(Declared) - Old);
    Body.resize(Old + Want);
    if (In.read(&Body[Old], Want) < Want)
      return Read::End;
  }
  if (!jsonDepthAtMost(Body, MaxJsonDepth)) {
    Why = "a body nested deeper than " + std::to_string(MaxJsonDepth) +
          " arrays or objects";
    return Read::Malformed;
  }
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Body);
  if (!V) {
    Why = "a body that is not JSON: " + llvm::toString(V.takeError());
    return Read::Malformed;
  }
  Msg = std::move(*V);
  return Read::Message;
}

void LspTransport::send(llvm::StringRef Json) {
  Out << "Content-Length: " << Json.size() << "\r\n\r\n" << Json;
  Out.flush();
}
