//===- format/TreeReader.h - pugixml tree to Plan ---------------*- C++ -*-===//
//
// Internal to the loader: walks the pugixml document of a TACCL-EF file and
// builds the Algo, reading every attribute with its exact line and column,
// integers with strtol(base 0) semantics and trailing-junk rejection, and
// reporting missing, duplicate, unknown or malformed attributes and
// unexpected elements.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_TREEREADER_H
#define TACCLC_FORMAT_TREEREADER_H

#include "format/IssueSink.h"
#include "format/Loader.h"
#include "format/Plan.h"
#include "format/XmlLexer.h"

#include <pugixml.hpp>

#include <optional>

namespace tacclrt {

/// Builds the plan of \p Doc, which was parsed in place from the buffer
/// starting at \p Base (so that names map back to offsets in \p Lines).
/// Sets \p AttrErrors when an attribute was missing or malformed; the plan
/// is then incomplete. Returns std::nullopt when there is no usable <algo>.
std::optional<Algo> readPlanTree(const pugi::xml_document &Doc,
                                 const char *Base, const LineTable &Lines,
                                 const LoadOptions &Opts, IssueSink &Sink,
                                 bool &AttrErrors);

} // namespace tacclrt

#endif // TACCLC_FORMAT_TREEREADER_H
