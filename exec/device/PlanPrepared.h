//===- exec/device/PlanPrepared.h - Plans of prepared runs ------*- C++ -*-===//
//
// Internal to the device executors: the device plan of a call whose
// program and host buffers are already prepared (exec/HostBuffers.h), so
// that an executor that has prepared a run does not load and check the
// plan a second time, and the one preparation every device executor starts
// with.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_PLANPREPARED_H
#define TACCLC_EXEC_DEVICE_PLANPREPARED_H

#include "exec/CallSetup.h"
#include "exec/HostBuffers.h"
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

/// What a device executor starts from: the prepared run (program, call,
/// host buffers) and its device plan.
struct PreparedDeviceRun {
  PreparedRun Run;
  DevicePlan Plan;
};

/// prepareRun() and then planPrepared() for call \p O of \p A; nothing
/// after errors (in \p Out, through \p Sink).
std::optional<PreparedDeviceRun> prepareDeviceRun(const Algo &A,
                                                  const RunOptions &O,
                                                  IssueSink &Sink, Report &Out,
                                                  std::string_view FileName);

} // namespace tacclrt

#endif // TACCLC_EXEC_DEVICE_PLANPREPARED_H
