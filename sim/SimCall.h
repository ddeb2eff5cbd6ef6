//===- sim/SimCall.h - What every simulation engine shares ------*- C++ -*-===//
//
// Internal to the runtime: the sizes of one simulated call as the MSCCL
// runtime computes them (elements per chunk, per slice, loop iterations, the
// chunks one message may carry), the size and parts of every message, and
// the checks of a plan against a machine (rank count, a link under every
// connection). The in-house engine (Simulator.cpp) and the SimGrid referee
// use the same shape, so they differ only in how the network is modelled.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SIM_SIMCALL_H
#define TACCLC_SIM_SIMCALL_H

#include "format/IssueSink.h"
#include "format/Program.h"
#include "sim/Simulator.h"

#include <cstdint>
#include <map>
#include <utility>

namespace tacclrt {

/// The sizes of one call and the links its connections use.
struct SimCallShape {
  /// Elements of one chunk over the whole call.
  std::uint64_t SizePerChunk = 0;
  /// Elements of one chunk per loop iteration (the protocol's slice).
  std::uint64_t SliceElems = 1;
  /// Chunks one message of a cnt > 1 step may carry: as many as fit in a
  /// slice, 1 to 71 (MSCCL's maxAllowedCount).
  std::uint64_t MaxCount = 1;
  /// Loop iterations of the call.
  long Iterations = 0;
  /// FIFO steps a connection holds before a send waits.
  unsigned Capacity = 8;
  /// Data bytes of one FIFO step; 0 when every message takes one step.
  double StepBytes = 0;
  /// Element size in bytes.
  unsigned TypeSize = 4;
  /// The link of every ordered rank pair the machine joins.
  std::map<std::pair<int, int>, int> LinkOf;

  /// Data bytes of the message step \p S sends in iteration \p Iter.
  double messageBytes(const Step &S, long Iter) const;
  /// The primitive calls (messages) the runtime splits step \p S into.
  std::uint64_t parts(const Step &S) const;
  /// Data bytes of part \p Part of that split in iteration \p Iter.
  double partBytes(const Step &S, long Iter, std::uint64_t Part) const;
  /// FIFO steps a message of \p DataBytes takes (1 to Capacity).
  unsigned stepsOf(double DataBytes) const;
  /// The link of the connection \p From -> \p To, or -1.
  int linkOf(int From, int To) const;
};

/// Checks plan \p A and its executable program \p P against machine \p M
/// and options \p O, and fills \p Shape; reports every problem to \p Sink
/// and returns false after one.
bool shapeCall(const Algo &A, const Program &P, const SimMachine &M,
               const SimOptions &O, IssueSink &Sink, SimCallShape &Shape);

} // namespace tacclrt

#endif // TACCLC_SIM_SIMCALL_H
