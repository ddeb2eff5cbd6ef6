//===- ir/Program.cpp - Spellings of program enums ------------------------===//
//
// The XML spellings of buffers and op types, shared by the printer and the
// XML writer: the format's own (format/Vocabulary.def).
//
//===----------------------------------------------------------------------===//
#include "ir/Program.h"

using namespace tacclc::ir;

llvm::StringRef tacclc::ir::bufferName(Buffer B) {
  static constexpr char Letters[] = {
#define TACCLRT_BUFFER(E, Name, Letter) Letter,
#include "format/Vocabulary.def"
  };
  return llvm::StringRef(&Letters[static_cast<unsigned>(B)], 1);
}

llvm::StringRef tacclc::ir::opTypeName(OpType T) {
  std::string_view Name = tacclrt::nameOf(T);
  return llvm::StringRef(Name.data(), Name.size());
}
