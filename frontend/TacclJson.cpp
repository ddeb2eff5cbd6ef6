//===- frontend/TacclJson.cpp - JSON input with located errors ------------===//
//
// Parsing: the nesting is bounded first (llvm::json recurses once per level,
// so `[[[[...` of a few megabytes would exhaust the stack), then llvm::json
// parses, and its syntax error (`[line:col, byte=N]: message`) is reported at
// byte N. Locating: a value is found again in the (valid) text by walking
// the path, skipping the members and elements before it; a key given twice
// means its last value, as llvm::json and Python's json module read it.
//
//===----------------------------------------------------------------------===//
#include "frontend/TacclJson.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cmath>

using namespace tacclc;
namespace json = llvm::json;

JsonPath JsonPath::field(llvm::StringRef Key) const {
  JsonPath P = *this;
  P.Segments.emplace_back(Key.str());
  return P;
}

JsonPath JsonPath::index(size_t I) const {
  JsonPath P = *this;
  P.Segments.emplace_back(I);
  return P;
}

std::string JsonPath::str() const {
  if (Segments.empty())
    return "the top-level value";
  std::string S;
  for (const auto &Seg : Segments) {
    if (const auto *Key = std::get_if<std::string>(&Seg))
      S += (S.empty() ? "" : ".") + *Key;
    else
      S += "[" + std::to_string(std::get<size_t>(Seg)) + "]";
  }
  return S;
}

std::string JsonPath::quoted() const {
  return Segments.empty() ? str() : "'" + str() + "'";
}

namespace {

/// Walks valid JSON text.
class Cursor {
public:
  explicit Cursor(llvm::StringRef Text) : T(Text) {}
  size_t position() const { return P; }

  /// Moves to the value of the last member \p Key of the object here, or
  /// to its key when \p ToKey.
  bool member(llvm::StringRef Key, bool ToKey = false) {
    if (!open('{'))
      return false;
    std::optional<size_t> Found;
    while (skipSpace() && T[P] != '}') {
      size_t KeyStart = P;
      if (T[P] != '"' || !skipString())
        return false;
      bool Match = decode(T.slice(KeyStart, P)) == Key;
      if (!skipSpace() || T[P] != ':')
        return false;
      ++P;
      if (!skipSpace())
        return false;
      if (Match)
        Found = ToKey ? KeyStart : P;
      if (!skipValue())
        return false;
      skipComma();
    }
    if (!Found)
      return false;
    P = *Found;
    return true;
  }

  /// Moves to element \p I of the array here.
  bool element(size_t I) {
    if (!open('['))
      return false;
    for (size_t J = 0; skipSpace() && T[P] != ']'; ++J) {
      if (J == I)
        return true;
      if (!skipValue())
        return false;
      skipComma();
    }
    return false;
  }

  /// Skips white space; false at the end of the text.
  bool skipSpace() {
    while (P < T.size() && llvm::isSpace(T[P]))
      ++P;
    return P < T.size();
  }

private:
  bool open(char C) {
    if (!skipSpace() || T[P] != C)
      return false;
    ++P;
    return true;
  }
  void skipComma() {
    if (skipSpace() && T[P] == ',')
      ++P;
  }
  /// Skips the string starting here (at its quote).
  bool skipString() {
    for (++P; P < T.size(); ++P) {
      if (T[P] == '\\')
        ++P;
      else if (T[P] == '"')
        return ++P, true;
    }
    return false;
  }
  bool skipValue() {
    if (!skipSpace())
      return false;
    if (T[P] == '"')
      return skipString();
    if (T[P] != '[' && T[P] != '{') {
      while (P < T.size() && !llvm::StringRef(",]} \t\r\n").contains(T[P]))
        ++P;
      return true;
    }
    for (unsigned Depth = 0; P < T.size();) {
      char C = T[P];
      if (C == '"') {
        if (!skipString())
          return false;
        continue;
      }
      ++P;
      if (C == '[' || C == '{')
        ++Depth;
      else if ((C == ']' || C == '}') && --Depth == 0)
        return true;
    }
    return false;
  }
  /// The text of the string token \p Quoted (with its quotes).
  static std::string decode(llvm::StringRef Quoted) {
    llvm::StringRef Inner = Quoted.drop_front().drop_back();
    if (!Inner.contains('\\'))
      return Inner.str();
    llvm::Expected<json::Value> V = json::parse(Quoted);
    if (!V) {
      llvm::consumeError(V.takeError());
      return Inner.str();
    }
    return V->getAsString().getValueOr(Inner).str();
  }

  llvm::StringRef T;
  size_t P = 0;
};

/// The offset of the first array or object nested deeper than \p Max, if
/// any (strings are skipped).
std::optional<size_t> tooDeep(llvm::StringRef T, unsigned Max) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < T.size(); ++I) {
    char C = T[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Max)
        return I;
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth;
    }
  }
  return std::nullopt;
}

/// How a value of \p V's kind is named in messages.
std::string kindOf(const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    if (llvm::Optional<int64_t> I = V.getAsInteger())
      return std::to_string(*I);
    return decimalNumber(*V.getAsNumber());
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  return "a value";
}

} // namespace

std::optional<JsonDocument> JsonDocument::parse(unsigned BufferId,
                                                DiagnosticEngine &Diags) {
  const llvm::MemoryBuffer *Buf =
      Diags.getSourceMgr().getMemoryBuffer(BufferId);
  llvm::StringRef Text = Buf->getBuffer();
  auto At = [&](size_t Offset) {
    return llvm::SMLoc::getFromPointer(Text.data() +
                                       std::min(Offset, Text.size()));
  };
  if (std::optional<size_t> Deep = tooDeep(Text, MaxJsonDepth)) {
    Diags.report(DiagId::JsonTooDeep, At(*Deep), MaxJsonDepth);
    return std::nullopt;
  }
  llvm::Expected<json::Value> V = json::parse(Text);
  if (V)
    return JsonDocument(std::move(*V), Text, Buf->getBufferIdentifier());
  // llvm::json::ParseError logs `[line:col, byte=N]: message`.
  std::string Log = llvm::toString(V.takeError());
  llvm::StringRef Rest = Log;
  size_t Offset = 0;
  llvm::StringRef Message = Log;
  if (Rest.consume_front("[") && Rest.contains("byte=") &&
      Rest.contains("]: ")) {
    Rest.split(']').first.rsplit("byte=").second.getAsInteger(10, Offset);
    Message = Rest.split("]: ").second;
  }
  // llvm::json capitalises its messages; the project's start lower case.
  std::string Shown = Message.str();
  if (!Shown.empty())
    Shown[0] = llvm::toLower(Shown[0]);
  Diags.report(DiagId::JsonSyntax, At(Offset), Shown);
  return std::nullopt;
}

llvm::SMLoc JsonDocument::locate(const JsonPath &Path, bool ToKey) const {
  Cursor C(Text);
  const auto &Segs = Path.segments();
  for (size_t I = 0; I < Segs.size(); ++I) {
    bool Found = std::holds_alternative<std::string>(Segs[I])
                     ? C.member(std::get<std::string>(Segs[I]),
                                ToKey && I + 1 == Segs.size())
                     : C.element(std::get<size_t>(Segs[I]));
    if (!Found)
      return llvm::SMLoc::getFromPointer(Text.data());
  }
  C.skipSpace();
  return llvm::SMLoc::getFromPointer(Text.data() + C.position());
}

void JsonReader::error(const JsonPath &Path, const std::string &Message,
                       bool AtKey) {
  Diags.report(DiagId::ImportBadValue, Doc.locate(Path, AtKey), Path.quoted(),
               Message);
}

void JsonReader::warning(const JsonPath &Path, const std::string &Message) {
  Diags.report(DiagId::ImportIgnored, Doc.locate(Path), Path.quoted(), Message);
}

void JsonReader::wrongType(const json::Value &V, const JsonPath &Path,
                           llvm::StringRef Expected) {
  error(Path, "expected " + Expected.str() + ", not " + kindOf(V));
}

const json::Object *JsonReader::object(const json::Value &V,
                                       const JsonPath &Path) {
  if (const json::Object *O = V.getAsObject())
    return O;
  wrongType(V, Path, "an object");
  return nullptr;
}

const json::Array *JsonReader::array(const json::Value &V,
                                     const JsonPath &Path) {
  if (const json::Array *A = V.getAsArray())
    return A;
  wrongType(V, Path, "an array");
  return nullptr;
}

std::optional<std::string> JsonReader::string(const json::Value &V,
                                              const JsonPath &Path) {
  if (llvm::Optional<llvm::StringRef> S = V.getAsString())
    return S->str();
  wrongType(V, Path, "a string");
  return std::nullopt;
}

std::optional<bool> JsonReader::boolean(const json::Value &V,
                                        const JsonPath &Path) {
  if (llvm::Optional<bool> B = V.getAsBoolean())
    return *B;
  wrongType(V, Path, "true or false");
  return std::nullopt;
}

std::optional<int64_t> JsonReader::integer(const json::Value &V,
                                           const JsonPath &Path, int64_t Lo,
                                           int64_t Hi) {
  llvm::Optional<int64_t> I = V.getAsInteger();
  if (!I) {
    wrongType(V, Path, "a whole number");
    return std::nullopt;
  }
  if (*I < Lo || *I > Hi) {
    error(Path, fmt::format("expected {} to {}, not {}", Lo, Hi, *I));
    return std::nullopt;
  }
  return *I;
}

std::optional<double> JsonReader::number(const json::Value &V,
                                         const JsonPath &Path, double Lo,
                                         bool Positive) {
  llvm::Optional<double> D = V.getAsNumber();
  if (!D) {
    wrongType(V, Path, "a number");
    return std::nullopt;
  }
  if (*D < Lo || (Positive && *D <= Lo) || !std::isfinite(*D)) {
    error(Path, fmt::format("expected a number {} {}, not {}",
                            Positive ? "above" : "of at least",
                            decimalNumber(Lo), decimalNumber(*D)));
    return std::nullopt;
  }
  return *D;
}

const json::Value *JsonReader::required(const json::Object &O,
                                        const JsonPath &Path,
                                        llvm::StringRef Key) {
  if (const json::Value *V = O.get(Key))
    return V;
  Diags.report(DiagId::JsonMissingKey, Doc.locate(Path), Path.quoted(), Key);
  return nullptr;
}

void JsonReader::warnUnknownKeys(const json::Object &O, const JsonPath &Path,
                                 llvm::ArrayRef<llvm::StringRef> Known) {
  std::vector<std::string> Unknown;
  for (const auto &KV : O)
    if (!llvm::is_contained(Known, llvm::StringRef(KV.first)))
      Unknown.push_back(KV.first.str());
  std::sort(Unknown.begin(), Unknown.end());
  for (const std::string &Key : Unknown)
    Diags.report(DiagId::JsonUnknownKey, Doc.locate(Path.field(Key), true), Key,
                 Path.quoted());
}

std::string tacclc::decimalNumber(double V) {
  if (V == 0)
    return "0";
  int Magnitude = static_cast<int>(std::floor(std::log10(std::fabs(V))));
  int Decimals = std::max(0, 5 - Magnitude);
  std::string S = fmt::format("{:.{}f}", V, Decimals);
  if (S.find('.') != std::string::npos) {
    while (S.back() == '0')
      S.pop_back();
    if (S.back() == '.')
      S.pop_back();
  }
  return S;
}
