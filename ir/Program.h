//===- ir/Program.h - The XML-shaped target program -------------*- C++ -*-===//
//
// A TACCL-EF program as codegen builds it: per GPU, threadblocks with at most
// one send peer and one receive peer on one channel, each a list of steps.
// Field for field it mirrors the MSCCL XML (`<algo>`, `<gpu>`, `<tb>`,
// `<step>`), so the XML writer is a plain printer. Step positions are
// implicit (the index in the vector), as the runtimes require.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_PROGRAM_H
#define TACCLC_IR_PROGRAM_H

#include "format/Plan.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tacclc::ir {

/// The three buffers of an MSCCL program: the format's (format/Plan.h).
using Buffer = tacclrt::BufferKind;
/// The XML spelling of a buffer: i, o or s.
llvm::StringRef bufferName(Buffer B);

/// MSCCL step types: the format's (format/Vocabulary.def).
using OpType = tacclrt::StepType;
/// The XML spelling of an op type.
llvm::StringRef opTypeName(OpType T);

/// One `<step>`.
struct Step {
  OpType Type = OpType::Nop;
  Buffer SrcBuf = Buffer::Input;
  int SrcOff = -1;
  Buffer DstBuf = Buffer::Output;
  int DstOff = -1;
  unsigned Count = 0;
  int DepTb = -1;      ///< Threadblock this step waits for, or -1.
  int DepStep = -1;    ///< Step of DepTb this step waits for, or -1.
  bool HasDep = false; ///< Another step waits for this one.
};

/// One `<tb>`.
struct ThreadBlock {
  int Send = -1, Recv = -1;
  unsigned Channel = 0;
  std::vector<Step> Steps;
};

/// One `<gpu>`.
struct GpuProgram {
  unsigned InputChunks = 0, OutputChunks = 0, ScratchChunks = 0;
  std::vector<ThreadBlock> Tbs;
};

/// One `<algo>`.
struct Program {
  std::string Name;
  std::string Protocol = "Simple";
  unsigned NumChannels = 1;
  unsigned ChunksPerLoop = 0;
  std::string Collective; ///< MSCCL `coll` spelling for the target dialect.
  bool InPlace = false, OutOfPlace = true;
  uint64_t MinBytes = 0, MaxBytes = 0;
  /// The root of a rooted collective, written as an extra `root` attribute
  /// (the runtimes ignore it; the verifier reads it); -1 for none.
  int Root = -1;
  std::vector<GpuProgram> Gpus;
};

} // namespace tacclc::ir

#endif // TACCLC_IR_PROGRAM_H
