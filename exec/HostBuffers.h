//===- exec/HostBuffers.h - Call buffers on the host ------------*- C++ -*-===//
//
// Internal to the runtime: the buffers of one call on the host, filled with
// inputs, and the check of the outputs afterwards. The CPU executor runs on
// them; a device executor copies them to the GPU and back.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_HOSTBUFFERS_H
#define TACCLC_EXEC_HOSTBUFFERS_H

#include "exec/CallSetup.h"
#include "exec/CpuWorker.h"
#include "format/Program.h"

#include "format/IssueSink.h"
#include <optional>

#include <string>
#include <vector>

namespace tacclrt {

/// Allocates every rank's storages for call \p S of \p A with NCCL's
/// in-place aliasing, fills them with the sentinel and the inputs, and
/// sets up write tracking (S.Cfg.Tracking says whether it is possible).
/// False, with an error in \p Sink, when the memory is refused or missing.
bool allocateHostBuffers(const Algo &A, CallSetup &S,
                         std::vector<CpuRankMemory> &Mem, IssueSink &Sink);

/// Compares every output element of \p Mem with the reference; counts into
/// \p R (ElementsChecked, WrongElements) and lists the first wrong ones in
/// \p Sink.
void verifyOutputs(const Algo &A, const CallSetup &S,
                   const std::vector<CpuRankMemory> &Mem, IssueSink &Sink,
                   RunResult &R);

/// The message of the first error in \p R ("unknown error" if none), for
/// one-line summaries.
std::string firstError(const Report &R);

/// The summary of a call that did not run: "not run: " and firstError().
std::string notRunSummary(const Report &R);

/// What every executor starts from: the program, the call, and every rank's
/// host buffers filled with the inputs.
struct PreparedRun {
  std::optional<Program> P;
  CallSetup S;
  std::vector<CpuRankMemory> Mem;
};

/// Builds \p Run for call \p O of \p A; false after errors (in \p Out,
/// through \p Sink).
bool prepareRun(const Algo &A, const RunOptions &O, IssueSink &Sink,
                Report &Out, std::string_view FileName, PreparedRun &Run);

} // namespace tacclrt

#endif // TACCLC_EXEC_HOSTBUFFERS_H
