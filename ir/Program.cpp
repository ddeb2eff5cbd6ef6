//===- ir/Program.cpp - Spellings of program enums ------------------------===//
//
// The XML spellings of buffers and op types, shared by the printer and the
// XML writer.
//
//===----------------------------------------------------------------------===//
#include "ir/Program.h"

using namespace tacclc::ir;

llvm::StringRef tacclc::ir::bufferName(Buffer B) {
  switch (B) {
  case Buffer::Input:
    return "i";
  case Buffer::Output:
    return "o";
  case Buffer::Scratch:
    return "s";
  }
  return "?";
}

llvm::StringRef tacclc::ir::opTypeName(OpType T) {
  switch (T) {
  case OpType::Send:
    return "s";
  case OpType::Recv:
    return "r";
  case OpType::RecvCopySend:
    return "rcs";
  case OpType::RecvReduceSend:
    return "rrs";
  case OpType::RecvReduceCopy:
    return "rrc";
  case OpType::RecvReduceCopySend:
    return "rrcs";
  case OpType::Copy:
    return "cpy";
  case OpType::Reduce:
    return "re";
  case OpType::Nop:
    return "nop";
  }
  return "?";
}
