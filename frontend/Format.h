//===- frontend/Format.h - The canonical layout of a sketch -----*- C++ -*-===//
//
// `tacclc fmt`: every .sketch file has one canonical layout, so that files
// shared across a team differ only where their meaning does. The formatter
// works on the parse tree and keeps every comment; it never changes what a
// file means (`tacclc fmt` checks that by comparing the syntax trees of the
// input and the output), and formatting its output again changes nothing.
//
// The layout: one statement per line, two spaces per level of braces, `{`
// at the end of its line and `}` on a line of its own; a class (or a
// profile point) whose body holds only costs on one line when it fits,
// `class ib { alpha = 2.6 us; beta = 105 us/MB }`; single spaces between
// tokens except `n:g`, `0..n` in a `for`, `us/MB`, `-x`, `uc-min`, `f(x)`,
// and none inside brackets or before `,`; statement separators (`;`)
// dropped where nothing needs them; lines over the column limit broken
// after commas, continued under the first element of the list; at most one
// blank line kept between statements and comments, none at the start or
// end of a block; comments kept where they were, a comment that followed
// code on its line still follows it.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_FORMAT_H
#define TACCLC_FRONTEND_FORMAT_H

#include "support/Diagnostics.h"

#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>

namespace tacclc {

/// Layout parameters.
struct FormatOptions {
  /// Lines are broken after commas to stay within this many columns.
  unsigned ColumnLimit = 80;
  /// Spaces per level of braces.
  unsigned IndentWidth = 2;
};

/// The canonical text of buffer \p BufferId of \p SM; nothing after syntax
/// errors, which are reported to \p Diags.
std::optional<std::string> formatSketch(llvm::SourceMgr &SM, unsigned BufferId,
                                        DiagnosticEngine &Diags,
                                        const FormatOptions &Opts = {});

} // namespace tacclc

#endif // TACCLC_FRONTEND_FORMAT_H
