//===- tools/taccl-profile/CudaProber.h - Timings on real GPUs --*- C++ -*-===//
//
// The Prober of a real machine: one process drives every local GPU through
// NCCL (ncclCommInitAll), and times point-to-point sends (ncclSend/ncclRecv
// in groups) with the host clock around the streams, the best of a few
// repetitions. It measures one node. Built where CUDA and NCCL are found;
// elsewhere makeCudaProber() says so.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PROFILE_CUDAPROBER_H
#define TACCLC_PROFILE_CUDAPROBER_H

#include "Prober.h"

#include <memory>
#include <string>

namespace tacclc::profile {

/// A prober of this machine's GPUs, or null and the reason in \p Why (no
/// CUDA build, no GPU, an NCCL error).
std::unique_ptr<Prober> makeCudaProber(std::string &Why);

} // namespace tacclc::profile

#endif // TACCLC_PROFILE_CUDAPROBER_H
