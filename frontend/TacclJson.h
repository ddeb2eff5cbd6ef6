//===- frontend/TacclJson.h - JSON input with located errors ----*- C++ -*-===//
//
// The JSON side of `tacclc import-taccl`: a document parsed with llvm::json
// from a buffer of the diagnostics' SourceMgr, and a reader whose typed
// accessors report what is wrong (a missing key, a value of the wrong type or
// out of range) as `file:line:col: error:` at the offending value, naming its
// JSON path (`internode_sketch.internode_conn`, `symmetry_offsets[1][0]`).
// llvm::json keeps no positions, so a value is found again in the text by
// following its path when an error needs it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_TACCLJSON_H
#define TACCLC_FRONTEND_TACCLJSON_H

#include "support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tacclc {

/// Where a value sits in a JSON document: object keys and array indices
/// from the top-level value down.
class JsonPath {
public:
  /// The path of a field of the value at this path.
  JsonPath field(llvm::StringRef Key) const;
  /// The path of an element of the array at this path.
  JsonPath index(size_t I) const;
  /// `a.b[2]`; `the top-level value` for the empty path.
  std::string str() const;
  /// `'a.b[2]'` (quoted); `the top-level value` for the empty path.
  std::string quoted() const;
  /// The segments, outermost first.
  const std::vector<std::variant<std::string, size_t>> &segments() const {
    return Segments;
  }

private:
  std::vector<std::variant<std::string, size_t>> Segments;
};

/// The deepest nesting of arrays and objects a document may have; TACCL's
/// files nest three levels, and llvm::json recurses once per level.
inline constexpr unsigned MaxJsonDepth = 64;

/// One parsed JSON file.
class JsonDocument {
public:
  /// Parses buffer \p BufferId of \p SM. Syntax errors and nesting deeper
  /// than MaxJsonDepth are reported to \p Diags at their position; returns
  /// nothing after them.
  static std::optional<JsonDocument> parse(unsigned BufferId,
                                           DiagnosticEngine &Diags);

  /// The top-level value.
  const llvm::json::Value &root() const { return Root; }
  /// Where the value at \p Path starts in the text, or its key when
  /// \p ToKey and the path ends with a key (the start of the document when
  /// the path is not found there).
  llvm::SMLoc locate(const JsonPath &Path, bool ToKey = false) const;
  /// The file's name, as the SourceMgr knows it.
  llvm::StringRef name() const { return Name; }

private:
  JsonDocument(llvm::json::Value Root, llvm::StringRef Text,
               llvm::StringRef Name)
      : Root(std::move(Root)), Text(Text), Name(Name) {}
  llvm::json::Value Root;
  llvm::StringRef Text; ///< Owned by the SourceMgr.
  llvm::StringRef Name;
};

/// Typed access to a JsonDocument that reports every mismatch, located.
class JsonReader {
public:
  JsonReader(const JsonDocument &Doc, DiagnosticEngine &Diags)
      : Doc(Doc), Diags(Diags) {}

  /// The value at \p Path as an object, or null after an error.
  const llvm::json::Object *object(const llvm::json::Value &V,
                                   const JsonPath &Path);
  /// The value at \p Path as an array, or null after an error.
  const llvm::json::Array *array(const llvm::json::Value &V,
                                 const JsonPath &Path);
  /// The value at \p Path as a string.
  std::optional<std::string> string(const llvm::json::Value &V,
                                    const JsonPath &Path);
  /// The value at \p Path as a boolean.
  std::optional<bool> boolean(const llvm::json::Value &V, const JsonPath &Path);
  /// The value at \p Path as a whole number in [Lo, Hi].
  std::optional<int64_t> integer(const llvm::json::Value &V,
                                 const JsonPath &Path, int64_t Lo, int64_t Hi);
  /// The value at \p Path as a number (integer or not) >= \p Lo, or > \p Lo
  /// when \p Positive.
  std::optional<double> number(const llvm::json::Value &V, const JsonPath &Path,
                               double Lo, bool Positive);

  /// The field \p Key of object \p O at \p Path; reports it missing (at the
  /// object) and returns null when it is not there.
  const llvm::json::Value *required(const llvm::json::Object &O,
                                    const JsonPath &Path, llvm::StringRef Key);
  /// Warns about every key of \p O that is not in \p Known (in key order).
  void warnUnknownKeys(const llvm::json::Object &O, const JsonPath &Path,
                       llvm::ArrayRef<llvm::StringRef> Known);

  /// Reports \p Message, prefixed with the path, at the value at \p Path
  /// (at its key when \p AtKey).
  void error(const JsonPath &Path, const std::string &Message,
             bool AtKey = false);
  /// Warns \p Message, prefixed with the path, at the value at \p Path.
  void warning(const JsonPath &Path, const std::string &Message);

  /// The document read.
  const JsonDocument &document() const { return Doc; }

private:
  /// Reports that the value at \p Path is not \p Expected.
  void wrongType(const llvm::json::Value &V, const JsonPath &Path,
                 llvm::StringRef Expected);

  const JsonDocument &Doc;
  DiagnosticEngine &Diags;
};

/// \p V in decimal, rounded to 6 significant digits, without an exponent or
/// trailing zeros (`0.3`, `102.5`), as the language writes numbers (and
/// messages show them).
std::string decimalNumber(double V);

} // namespace tacclc

#endif // TACCLC_FRONTEND_TACCLJSON_H
