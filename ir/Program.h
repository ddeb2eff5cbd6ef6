//===- ir/Program.h - The XML-shaped target program -------------*- C++ -*-===//
//
// A TACCL-EF program as codegen builds it is the format's plan model
// (format/Plan.h): per GPU, threadblocks with at most one send peer and one
// receive peer on one channel, each a list of steps, field for field the
// MSCCL XML. The names below are the compiler's for those structs; the
// writer (format/PlanWriter.h) prints them. Positions are implicit (the
// index in the vector): the writer prints positions, and codegen sets the
// Id, S and NGpus fields to match them, as a loaded plan has them; Line and
// Col stay 0.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_PROGRAM_H
#define TACCLC_IR_PROGRAM_H

#include "format/Plan.h"

namespace tacclc::ir {

/// The three buffers of an MSCCL program (format/Plan.h).
using Buffer = tacclrt::BufferKind;
/// MSCCL step types (format/Vocabulary.def).
using OpType = tacclrt::StepType;
/// One `<step>`.
using Step = tacclrt::Step;
/// One `<tb>`.
using ThreadBlock = tacclrt::Tb;
/// One `<gpu>`.
using GpuProgram = tacclrt::Gpu;
/// One `<algo>`.
using Program = tacclrt::Algo;

} // namespace tacclc::ir

#endif // TACCLC_IR_PROGRAM_H
