//===- ir/Printer.h - Deterministic text form of every IR level -*- C++ -*-===//
//
// One printer per stage output, used by `--emit=ir|routes|schedule` and by
// golden tests. Output depends only on the IR (fixed order, fixed number
// formatting), so the same input always prints the same bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_PRINTER_H
#define TACCLC_IR_PRINTER_H

#include "ir/Routes.h"
#include "ir/Schedule.h"
#include "ir/Sketch.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tacclc::ir {

/// Formats a time in microseconds with 3 decimals ("12.345 us").
std::string formatUs(double Us);
/// Formats a byte count with a binary or decimal unit as it divides evenly
/// ("1 MiB", "1 MB", "1536 B"): support/Sizes.h's formatByteSize().
std::string formatBytes(uint64_t Bytes);

/// Prints the resolved sketch: topology, collective and choices.
void printSketch(const Sketch &S, llvm::raw_ostream &OS);
/// Prints the logical topology as a Graphviz digraph: GPUs grouped by node,
/// one edge style per link class.
void printDot(const Sketch &S, llvm::raw_ostream &OS);
/// Prints each chunk's links.
void printRoutes(const Sketch &S, const Routes &R, llvm::raw_ostream &OS);
/// Prints the timed transfers, link by link.
void printSchedule(const Sketch &S, const Schedule &Sch, llvm::raw_ostream &OS);

} // namespace tacclc::ir

#endif // TACCLC_IR_PRINTER_H
