//===- format/XmlLexer.h - MSCCL XML lexer rules ----------------*- C++ -*-===//
//
// Internal to the loader. A real XML parser (pugixml) accepts files that the
// hand-written NCCL/MSCCL XML lexer rejects or silently misreads: an `<?xml`
// declaration, tabs, tags split across lines, single-quoted values, spaces
// around '=', more than 16 attributes, names or values longer than 255
// characters. checkLexicalRules() scans the raw text the way that lexer does
// and reports each such construct with its line and column. LineTable maps
// byte offsets to 1-based line/column pairs.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_XMLLEXER_H
#define TACCLC_FORMAT_XMLLEXER_H

#include "format/IssueSink.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace tacclrt {

/// Maps byte offsets of one text to 1-based line and column numbers.
class LineTable {
public:
  /// Indexes the line starts of \p Text.
  explicit LineTable(std::string_view Text);
  /// The position of byte \p Offset (clamped to the text).
  Where at(std::size_t Offset) const;

private:
  std::vector<std::size_t> Starts;
  std::size_t Size;
};

/// Longest element name, attribute name or value the MSCCL lexer keeps.
constexpr std::size_t MscclMaxStrLen = 255;
/// Most attributes per element the MSCCL lexer keeps.
constexpr unsigned MscclMaxAttrCount = 16;

/// Reports every construct of \p Text that the MSCCL XML lexer rejects or
/// misreads although it is (or may be) well-formed XML.
void checkLexicalRules(std::string_view Text, const LineTable &Lines,
                       IssueSink &Sink);

} // namespace tacclrt

#endif // TACCLC_FORMAT_XMLLEXER_H
