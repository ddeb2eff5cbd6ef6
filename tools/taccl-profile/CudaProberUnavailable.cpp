//===- tools/taccl-profile/CudaProberUnavailable.cpp - Builds without CUDA ===//
//
// makeCudaProber() where CUDA and NCCL were not found at configure time.
//
//===----------------------------------------------------------------------===//
#include "CudaProber.h"

std::unique_ptr<tacclc::profile::Prober>
tacclc::profile::makeCudaProber(const CudaProberOptions &, std::string &Why) {
  Why = "this build has no CUDA (nvcc and NCCL were not found when it was "
        "configured)";
  return nullptr;
}
