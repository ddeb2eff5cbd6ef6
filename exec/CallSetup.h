//===- exec/CallSetup.h - One call of a plan, before memory -----*- C++ -*-===//
//
// Internal to the runtime: what the CPU executor and the device planner
// derive from a plan and the call options before they touch any memory
// (buffer layout, elements per chunk and per slice, loop iterations).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_CALLSETUP_H
#define TACCLC_EXEC_CALLSETUP_H

#include "exec/CpuWorker.h"
#include "format/Call.h"
#include "format/Collective.h"
#include "format/IssueSink.h"

#include <cstdint>
#include <string_view>

namespace tacclrt {

/// Iterations per call the runtime's flag encoding allows (MSCCL_MAX_ITER).
constexpr std::uint64_t MaxIterations = 65535;

/// Everything derived from the options before memory is touched.
struct CallSetup {
  /// The buffers of every rank.
  CollectiveLayout L;
  /// Type, reduction, chunk and slice sizes, iterations.
  CpuRunConfig Cfg;
};

/// Checks the call \p O of plan \p A and fills \p S; reports problems to
/// \p Sink (and layout errors to \p Out, labelled \p FileName) and
/// returns false on any error.
bool prepareCall(const Algo &A, const RunOptions &O, IssueSink &Sink,
                 Report &Out, std::string_view FileName, CallSetup &S);

} // namespace tacclrt

#endif // TACCLC_EXEC_CALLSETUP_H
