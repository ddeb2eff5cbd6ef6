//===- format/Messages.cpp - Registry of runtime messages -----------------===//
//
// The name and severity tables generated from format/Messages.def, and
// makeIssue().
//
//===----------------------------------------------------------------------===//
#include "format/Messages.h"

namespace tacclrt {

namespace {
constexpr const char *Names[] = {
    "",
#define MSG(Id, Name, Severity, Format) Name,
#include "format/Messages.def"
#undef MSG
};

constexpr Issue::Severity Severities[] = {
    Issue::Error,
#define MSG(Id, Name, Severity, Format) Issue::Severity,
#include "format/Messages.def"
#undef MSG
};

static_assert(sizeof(Names) / sizeof(Names[0]) == NumMsgIds &&
                  sizeof(Severities) / sizeof(Severities[0]) == NumMsgIds,
              "one name and one severity per message");
} // namespace

const char *nameOf(MsgId Id) { return Names[static_cast<std::size_t>(Id)]; }

Issue::Severity severityOf(MsgId Id) {
  return Severities[static_cast<std::size_t>(Id)];
}

Issue makeIssue(IssueText T) {
  Issue I;
  I.Sev = severityOf(T.Id);
  I.Id = T.Id;
  I.Message = std::move(T.Text);
  return I;
}

} // namespace tacclrt
