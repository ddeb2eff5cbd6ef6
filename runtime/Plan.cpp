//===- runtime/Plan.cpp - TACCL-EF plan model -----------------------------===//
//
// Names of the plan enums and the op table of the MSCCL executor: which step
// types send, receive, read src, write dst and reduce.
//
//===----------------------------------------------------------------------===//
#include "tacclrt/Plan.h"

namespace tacclrt {

std::uint64_t protocolSliceBytes(Protocol P) {
  switch (P) {
  case Protocol::LL:
    return 32u << 10;
  case Protocol::LL128:
    return 576000;
  default:
    return 2u << 20;
  }
}

std::string_view nameOf(Protocol P) {
  switch (P) {
  case Protocol::Simple:
    return "Simple";
  case Protocol::LL:
    return "LL";
  case Protocol::LL128:
    return "LL128";
  }
  return "?";
}

std::string_view nameOf(CollKind C) {
  switch (C) {
  case CollKind::AllGather:
    return "allgather";
  case CollKind::AllToAll:
    return "alltoall";
  case CollKind::AllReduce:
    return "allreduce";
  case CollKind::ReduceScatter:
    return "reducescatter";
  case CollKind::Broadcast:
    return "broadcast";
  case CollKind::Reduce:
    return "reduce";
  case CollKind::Gather:
    return "gather";
  case CollKind::Scatter:
    return "scatter";
  case CollKind::AllToAllV:
    return "alltoallv";
  case CollKind::Send:
    return "send";
  case CollKind::Recv:
    return "recv";
  case CollKind::Custom:
    return "custom";
  }
  return "?";
}

std::string_view nameOf(BufferKind B) {
  switch (B) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Output:
    return "output";
  case BufferKind::Scratch:
    return "scratch";
  }
  return "?";
}

char toLetter(BufferKind B) {
  switch (B) {
  case BufferKind::Input:
    return 'i';
  case BufferKind::Output:
    return 'o';
  case BufferKind::Scratch:
    return 's';
  }
  return '?';
}

std::string_view nameOf(StepType T) {
  switch (T) {
  case StepType::Send:
    return "s";
  case StepType::Recv:
    return "r";
  case StepType::RecvCopySend:
    return "rcs";
  case StepType::RecvReduceSend:
    return "rrs";
  case StepType::RecvReduceCopy:
    return "rrc";
  case StepType::RecvReduceCopySend:
    return "rrcs";
  case StepType::Copy:
    return "cpy";
  case StepType::Reduce:
    return "re";
  case StepType::Nop:
    return "nop";
  }
  return "?";
}

std::optional<Protocol> parseProtocol(std::string_view Name) {
  for (Protocol P : {Protocol::Simple, Protocol::LL, Protocol::LL128})
    if (nameOf(P) == Name)
      return P;
  return std::nullopt;
}

bool sendsMessage(StepType T) {
  return T == StepType::Send || T == StepType::RecvCopySend ||
         T == StepType::RecvReduceSend || T == StepType::RecvReduceCopySend;
}

bool receivesMessage(StepType T) {
  return T == StepType::Recv || T == StepType::RecvCopySend ||
         T == StepType::RecvReduceSend || T == StepType::RecvReduceCopy ||
         T == StepType::RecvReduceCopySend;
}

bool readsSrc(StepType T) {
  return T == StepType::Send || T == StepType::RecvReduceSend ||
         T == StepType::RecvReduceCopy || T == StepType::RecvReduceCopySend ||
         T == StepType::Copy || T == StepType::Reduce;
}

bool writesDst(StepType T) {
  return T == StepType::Recv || T == StepType::RecvCopySend ||
         T == StepType::RecvReduceCopy || T == StepType::RecvReduceCopySend ||
         T == StepType::Copy || T == StepType::Reduce;
}

bool reduces(StepType T) {
  return T == StepType::RecvReduceSend || T == StepType::RecvReduceCopy ||
         T == StepType::RecvReduceCopySend || T == StepType::Reduce;
}

} // namespace tacclrt
