//===- format/PlanWriter.h - Plan to TACCL-EF XML ---------------*- C++ -*-===//
//
// Prints an Algo (format/Plan.h) as the MSCCL XML both runtimes' hand-written
// lexers accept, in the spellings of one dialect. The compiler's program IR
// is the plan model itself, so this is the one XML printer: codegen builds
// an Algo and prints it here, the loader (Loader.h) reads the text back.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_PLANWRITER_H
#define TACCLC_FORMAT_PLANWRITER_H

#include "format/Dialect.h"
#include "format/Plan.h"

#include <ostream>
#include <string>

namespace tacclrt {

/// Prints \p A as TACCL-EF XML for runtime \p D: no XML declaration, one
/// element per line with all its attributes in a fixed order, double quotes,
/// two spaces per level and no tabs. Ids, `s` and `ngpus` are the positions
/// in the vectors (Gpu::Id, Tb::Id, Step::S and Algo::NGpus are not read),
/// `coll` is collName(A.Coll, D) (nameOf() where \p D has no spelling), a
/// nop step prints its buffers, offsets and count as i/-1, o/-1 and 0, and
/// `root` is printed only when A.Root >= 0. The provenance attributes
/// (A.Origin: `tacclc-version`, `machine`, `sketch`, `sizes`) follow, each
/// only when set and when the MSCCL lexer keeps its value (at most 255
/// characters once escaped, no control characters).
void writePlan(const Algo &A, Dialect D, std::ostream &OS);

/// The text writePlan(A, D, OS) prints.
std::string writePlan(const Algo &A, Dialect D);

} // namespace tacclrt

#endif // TACCLC_FORMAT_PLANWRITER_H
