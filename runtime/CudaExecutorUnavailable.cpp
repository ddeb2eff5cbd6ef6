//===- runtime/CudaExecutorUnavailable.cpp - Builds without nvcc ----------===//
//
// runOnCuda() where the CUDA interpreter was not built (nvcc or NCCL was not
// found when the build was configured): every call is refused with a
// message that says so, the same way a run without a GPU is.
//
//===----------------------------------------------------------------------===//
#include "tacclrt/CudaExecutor.h"

namespace tacclrt {

bool cudaInterpreterBuilt() { return false; }

RunResult runOnCuda(const Algo &, const RunOptions &, CudaMode,
                    std::string_view FileName) {
  RunResult R;
  Issue I;
  I.Sev = Issue::Error;
  I.File = std::string(FileName);
  I.Message = "this build has no CUDA interpreter (nvcc and NCCL were not "
              "found when it was configured)";
  R.Issues.add(I);
  R.Summary = "not run: " + I.Message;
  return R;
}

} // namespace tacclrt
