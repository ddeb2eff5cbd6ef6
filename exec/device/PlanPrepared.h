//===- exec/device/PlanPrepared.h - Plans of prepared runs ------*- C++ -*-===//
//
// Internal to the device executors: the device plan of a call whose
// program and host buffers are already prepared (exec/HostBuffers.h), so
// that an executor that has prepared a run does not load and check the
// plan a second time.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_PLANPREPARED_H
#define TACCLC_EXEC_DEVICE_PLANPREPARED_H

#include "exec/CallSetup.h"
#include "exec/device/DevicePlan.h"
#include "format/IssueSink.h"
#include "format/Program.h"

#include <optional>

namespace tacclrt {

/// planForDevice() for a program and call already prepared (warnings were
/// reported then; errors go to \p Sink).
std::optional<DevicePlan> planPrepared(const Algo &A, const RunOptions &O,
                                       const Program &P, const CallSetup &S,
                                       IssueSink &Sink);

} // namespace tacclrt

#endif // TACCLC_EXEC_DEVICE_PLANPREPARED_H
