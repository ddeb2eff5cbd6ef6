//===- frontend/FormatChecked.h - The formatter with its checks -*- C++ -*-===//
//
// What `tacclc fmt` and the language server's formatting share: the
// canonical layout of a text (frontend/Format.h), accepted only when its
// syntax tree equals the input's (locations aside) and formatting it again
// changes nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_FORMATCHECKED_H
#define TACCLC_FRONTEND_FORMATCHECKED_H

#include "support/Diagnostics.h"

#include <optional>
#include <string>

namespace tacclc {

/// What formatChecked() found.
enum class FormatOutcome {
  Formatted,   ///< The text returned is the checked layout.
  SyntaxError, ///< The input does not parse (reported to Diags).
  Unsafe,      ///< The layout would change the meaning or is not stable.
};

/// The checked canonical layout of \p Text (FormatChecked.cpp), named \p Name
/// in diagnostics, which go to \p Diags, whose SourceMgr receives the
/// buffer.
std::optional<std::string> formatChecked(const std::string &Text,
                                         const std::string &Name,
                                         DiagnosticEngine &Diags,
                                         FormatOutcome &Outcome);

} // namespace tacclc

#endif // TACCLC_FRONTEND_FORMATCHECKED_H
