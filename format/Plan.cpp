//===- format/Plan.cpp - TACCL-EF plan model ------------------------------===//
//
// Names of the plan enums and the op table of the MSCCL executor: which step
// types send, receive, read src, write dst and reduce.
//
//===----------------------------------------------------------------------===//
#include "format/Plan.h"

namespace tacclrt {

std::uint64_t protocolSliceBytes(Protocol P) {
  switch (P) {
#define TACCLRT_PROTOCOL(E, Name, Slice)                                       \
  case Protocol::E:                                                            \
    return Slice;
#include "format/Vocabulary.def"
  }
  return 2u << 20;
}

std::string_view nameOf(Protocol P) {
  switch (P) {
#define TACCLRT_PROTOCOL(E, Name, Slice)                                       \
  case Protocol::E:                                                            \
    return Name;
#include "format/Vocabulary.def"
  }
  return "?";
}

std::string_view nameOf(CollKind C) {
  switch (C) {
#define TACCLRT_COLLECTIVE(E, Name)                                            \
  case CollKind::E:                                                            \
    return Name;
#include "format/Vocabulary.def"
  }
  return "?";
}

std::string_view nameOf(BufferKind B) {
  switch (B) {
#define TACCLRT_BUFFER(E, Name, Letter)                                        \
  case BufferKind::E:                                                          \
    return Name;
#include "format/Vocabulary.def"
  }
  return "?";
}

char toLetter(BufferKind B) {
  switch (B) {
#define TACCLRT_BUFFER(E, Name, Letter)                                        \
  case BufferKind::E:                                                          \
    return Letter;
#include "format/Vocabulary.def"
  }
  return '?';
}

std::optional<BufferKind> parseBufferLetter(char Letter) {
#define TACCLRT_BUFFER(E, Name, L)                                             \
  if (Letter == L)                                                             \
    return BufferKind::E;
#include "format/Vocabulary.def"
  return std::nullopt;
}

std::string_view nameOf(StepType T) {
  switch (T) {
#define TACCLRT_STEP(E, Name, Sends, Receives, ReadsSrc, WritesDst, Reduces)   \
  case StepType::E:                                                            \
    return Name;
#include "format/Vocabulary.def"
  }
  return "?";
}

std::optional<StepType> parseStepType(std::string_view Name) {
#define TACCLRT_STEP(E, N, Sends, Receives, ReadsSrc, WritesDst, Reduces)      \
  if (Name == N)                                                               \
    return StepType::E;
#include "format/Vocabulary.def"
  return std::nullopt;
}

std::optional<Protocol> parseProtocol(std::string_view Name) {
#define TACCLRT_PROTOCOL(E, N, Slice)                                          \
  if (Name == N)                                                               \
    return Protocol::E;
#include "format/Vocabulary.def"
  return std::nullopt;
}

bool sendsMessage(StepType T) {
  switch (T) {
#define TACCLRT_STEP(E, Name, Sends, Receives, ReadsSrc, WritesDst, Reduces)   \
  case StepType::E:                                                            \
    return Sends;
#include "format/Vocabulary.def"
  }
  return false;
}

bool receivesMessage(StepType T) {
  switch (T) {
#define TACCLRT_STEP(E, Name, Sends, Receives, ReadsSrc, WritesDst, Reduces)   \
  case StepType::E:                                                            \
    return Receives;
#include "format/Vocabulary.def"
  }
  return false;
}

bool readsSrc(StepType T) {
  switch (T) {
#define TACCLRT_STEP(E, Name, Sends, Receives, ReadsSrc, WritesDst, Reduces)   \
  case StepType::E:                                                            \
    return ReadsSrc;
#include "format/Vocabulary.def"
  }
  return false;
}

bool writesDst(StepType T) {
  switch (T) {
#define TACCLRT_STEP(E, Name, Sends, Receives, ReadsSrc, WritesDst, Reduces)   \
  case StepType::E:                                                            \
    return WritesDst;
#include "format/Vocabulary.def"
  }
  return false;
}

bool reduces(StepType T) {
  switch (T) {
#define TACCLRT_STEP(E, Name, Sends, Receives, ReadsSrc, WritesDst, Reduces)   \
  case StepType::E:                                                            \
    return Reduces;
#include "format/Vocabulary.def"
  }
  return false;
}

} // namespace tacclrt
