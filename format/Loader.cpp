//===- format/Loader.cpp - TACCL-EF XML loader ----------------------------===//
//
// loadPlan(): lexical rules first (XmlLexer), then pugixml for the tree, then
// attribute reading into a Plan (TreeReader), then the semantic rules
// (Validator). Attribute errors stop before the semantic rules so that a
// missing value does not cascade into misleading follow-up errors. Files are
// read by readPlanText() (PlanFile.h: regular files of bounded size only)
// and parsed in place, without a copy. The dialect tables (collective
// names, step limits) live here too.
//
//===----------------------------------------------------------------------===//
#include "format/Loader.h"

#include "format/IssueSink.h"
#include "format/PlanFile.h"
#include "format/TreeReader.h"
#include "format/Validator.h"
#include "format/XmlLexer.h"

#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>
#include <cctype>

namespace tacclrt {

namespace {

std::string lowerFirst(std::string S) {
  if (!S.empty())
    S[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(S[0])));
  return S;
}

/// Parses and validates \p Buffer, which holds the text and is parsed in
/// place (no copy of the text is made).
std::optional<Algo> loadBuffer(std::string &Buffer, std::string_view FileName,
                               const LoadOptions &Opts, Report &Out) {
  IssueSink Sink(Out, FileName, MaxReportedErrors);
  LineTable Lines(Buffer);
  checkLexicalRules(Buffer, Lines, Sink);

  pugi::xml_document Doc;
  pugi::xml_parse_result Parsed = Doc.load_buffer_inplace(
      Buffer.data(), Buffer.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!Parsed) {
    Sink.report<MsgId::MalformedXml>(
        Lines.at(static_cast<std::size_t>(Parsed.offset)),
        lowerFirst(Parsed.description()));
    return std::nullopt;
  }

  bool AttrErrors = false;
  std::optional<Algo> A =
      readPlanTree(Doc, Buffer.data(), Lines, Opts, Sink, AttrErrors);
  if (!A || AttrErrors)
    return std::nullopt;
  validateAlgo(*A, Opts, Sink);
  if (Sink.errors() != 0)
    return std::nullopt;

  std::sort(A->Gpus.begin(), A->Gpus.end(),
            [](const Gpu &L, const Gpu &R) { return L.Id < R.Id; });
  for (Gpu &G : A->Gpus)
    std::sort(G.Tbs.begin(), G.Tbs.end(),
              [](const Tb &L, const Tb &R) { return L.Id < R.Id; });
  return A;
}

} // namespace

std::optional<Algo> loadPlan(std::string_view Text, std::string_view FileName,
                             const LoadOptions &Opts, Report &Out) {
  if (Text.size() > MaxPlanFileBytes) {
    IssueSink Sink(Out, FileName);
    Sink.report<MsgId::PlanTooLarge>(Where(), tooLargeMessage(Text.size()));
    return std::nullopt;
  }
  std::string Buffer(Text);
  return loadBuffer(Buffer, FileName, Opts, Out);
}

std::optional<Algo> loadPlanFile(const std::string &Path,
                                 const LoadOptions &Opts, Report &Out) {
  std::string Text;
  if (std::optional<std::string> Why = readPlanText(Path, Text)) {
    IssueSink Sink(Out, Path);
    Sink.report<MsgId::CannotReadPlan>(Where(), std::move(*Why));
    return std::nullopt;
  }
  return loadBuffer(Text, Path, Opts, Out);
}

Report validatePlan(const Algo &A, const LoadOptions &Opts,
                    std::string_view FileName) {
  Report Out;
  IssueSink Sink(Out, FileName, MaxReportedErrors);
  validateAlgo(A, Opts, Sink);
  return Out;
}

} // namespace tacclrt
