//===- format/Call.cpp - Names and sizes of element types -----------------===//
//
// NCCL's element types by name and size, generated from
// format/Vocabulary.def.
//
//===----------------------------------------------------------------------===//
#include "format/Call.h"

namespace tacclrt {

std::string_view nameOf(DataType T) {
  switch (T) {
#define TACCLRT_DATA_TYPE(E, Name, Bytes)                                      \
  case DataType::E:                                                            \
    return Name;
#include "format/Vocabulary.def"
  }
  return "?";
}

std::size_t sizeOf(DataType T) {
  switch (T) {
#define TACCLRT_DATA_TYPE(E, Name, Bytes)                                      \
  case DataType::E:                                                            \
    return Bytes;
#include "format/Vocabulary.def"
  }
  return 1;
}

std::optional<DataType> parseDataType(std::string_view Name) {
#define TACCLRT_DATA_TYPE(E, N, Bytes)                                         \
  if (Name == N)                                                               \
    return DataType::E;
#define TACCLRT_DATA_TYPE_ALIAS(N, E)                                          \
  if (Name == N)                                                               \
    return DataType::E;
#include "format/Vocabulary.def"
  return std::nullopt;
}

} // namespace tacclrt
