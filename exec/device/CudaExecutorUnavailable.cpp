//===- exec/device/CudaExecutorUnavailable.cpp - Builds without nvcc ------===//
//
// runOnCuda(), runOnNcclRanks() and ncclBaselineSeconds() where the CUDA
// interpreter was not built (nvcc or NCCL was not found when the build was
// configured): every call is refused with a message that says so, the same
// way a run without a GPU is.
//
//===----------------------------------------------------------------------===//
#include "exec/HostBuffers.h"
#include "exec/device/CudaExecutor.h"

#include "format/Messages.h"

namespace tacclrt {

namespace {

constexpr const char *NotBuilt = "this build has no CUDA interpreter (nvcc "
                                 "and NCCL were not found when it was "
                                 "configured)";

RunResult refused(std::string_view FileName) {
  RunResult R;
  Issue I = makeIssue<MsgId::NoCudaBuild>();
  I.File = std::string(FileName);
  R.Issues.add(I);
  R.Summary = notRunSummary(R.Issues);
  return R;
}

} // namespace

bool cudaInterpreterBuilt() { return false; }

RunResult runOnCuda(const Algo &, const RunOptions &, CudaMode,
                    std::string_view FileName) {
  return refused(FileName);
}

RepeatedRun runOnNcclRanks(const Algo &, const RunOptions &,
                           const RepeatOptions &, std::string_view FileName) {
  RepeatedRun R;
  R.Run = refused(FileName);
  return R;
}

std::optional<double> ncclBaselineSeconds(const Algo &, const RunOptions &,
                                          const RepeatOptions &,
                                          std::string &Why) {
  Why = NotBuilt;
  return std::nullopt;
}

} // namespace tacclrt
