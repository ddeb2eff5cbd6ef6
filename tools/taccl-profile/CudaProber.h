//===- tools/taccl-profile/CudaProber.h - Timings on real GPUs --*- C++ -*-===//
//
// The Prober of a real machine: one process per node drives every local GPU
// through NCCL (one rank per GPU, ncclCommInitRank in a group), and times
// point-to-point sends (ncclSend/ncclRecv in groups) with the host clock
// around the streams, the best of a few repetitions. With several nodes the
// processes run the same measurements in lockstep: every timing is agreed on
// (the maximum over the processes, by an NCCL allreduce) before it is used,
// so every process makes the same decisions; rank 0's unique id reaches the
// others through a file on a shared file system. Built where CUDA and NCCL
// are found; elsewhere makeCudaProber() says so.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PROFILE_CUDAPROBER_H
#define TACCLC_PROFILE_CUDAPROBER_H

#include "Prober.h"

#include <memory>
#include <string>

namespace tacclc::profile {

/// Where this process is among the nodes measured.
struct CudaProberOptions {
  unsigned Nodes = 1, Node = 0;
  /// With several nodes: node 0 writes NCCL's unique id here, the others
  /// wait for it (up to IdWaitSeconds).
  std::string IdFile;
  double IdWaitSeconds = 300;
};

/// A prober of this machine's GPUs, or null and the reason in \p Why (no
/// CUDA build, no GPU, no id file, an NCCL error).
std::unique_ptr<Prober> makeCudaProber(const CudaProberOptions &O,
                                       std::string &Why);

} // namespace tacclc::profile

#endif // TACCLC_PROFILE_CUDAPROBER_H
