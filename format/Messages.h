//===- format/Messages.h - Registry of runtime messages ---------*- C++ -*-===//
//
// The runtime counterpart of the compiler's diagnostic registry: MsgId has
// one enumerator per entry of format/Messages.def, and each id has a stable
// kebab-case name, a severity and a fmt format string. message<Id>(args...)
// renders an id with its arguments into an IssueText; the number of
// arguments is checked against the placeholders of the format string at
// compile time. IssueSink::report() and makeIssue() turn such texts into
// Issues whose Id names the message.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_MESSAGES_H
#define TACCLC_FORMAT_MESSAGES_H

#include "format/Diagnostic.h"

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <utility>

namespace tacclrt {

/// One enumerator per runtime message, plus None for issues made without
/// the registry.
enum class MsgId : unsigned {
  None,
#define MSG(Id, Name, Severity, Format) Id,
#include "format/Messages.def"
#undef MSG
};

namespace detail {
/// The format strings, indexed by MsgId.
inline constexpr const char *MsgFormats[] = {
    "",
#define MSG(Id, Name, Severity, Format) Format,
#include "format/Messages.def"
#undef MSG
};

/// The number of replacement fields of the fmt format string \p F
/// (`{{` is a literal brace, not a field).
constexpr std::size_t countPlaceholders(const char *F) {
  std::size_t N = 0;
  for (std::size_t I = 0; F[I] != '\0'; ++I) {
    if (F[I] != '{')
      continue;
    if (F[I + 1] == '{') {
      ++I;
      continue;
    }
    ++N;
  }
  return N;
}
} // namespace detail

/// Number of MsgId values, None included.
constexpr std::size_t NumMsgIds =
    sizeof(detail::MsgFormats) / sizeof(detail::MsgFormats[0]);

/// The stable kebab-case name of \p Id ("" for MsgId::None).
const char *nameOf(MsgId Id);
/// The severity \p Id is reported with (Error for MsgId::None).
Issue::Severity severityOf(MsgId Id);
/// The fmt format string of \p Id ("" for MsgId::None).
constexpr const char *formatOf(MsgId Id) {
  return detail::MsgFormats[static_cast<std::size_t>(Id)];
}

/// A registry message rendered with its arguments.
struct IssueText {
  /// The message.
  MsgId Id = MsgId::None;
  /// Its text, formatOf(Id) with the arguments substituted.
  std::string Text;
};

/// Renders message \p Id with \p Args; the argument count must match the
/// placeholders of its format string.
template <MsgId Id, typename... Args> IssueText message(Args &&...A) {
  static_assert(detail::countPlaceholders(formatOf(Id)) == sizeof...(Args),
                "the arguments do not match the message's format string");
  return {Id,
          fmt::format(fmt::runtime(formatOf(Id)), std::forward<Args>(A)...)};
}

/// An Issue with \p T's id, text and severity and no location.
Issue makeIssue(IssueText T);

/// An Issue for message \p Id rendered with \p Args, with no location.
template <MsgId Id, typename... Args> Issue makeIssue(Args &&...A) {
  return makeIssue(message<Id>(std::forward<Args>(A)...));
}

} // namespace tacclrt

#endif // TACCLC_FORMAT_MESSAGES_H
