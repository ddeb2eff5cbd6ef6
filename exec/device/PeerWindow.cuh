//===- exec/device/PeerWindow.cuh - Peers in a window ----------*- CUDA -*-===//
//
// The multi-process executors (NcclRank.cu, the shim's ShimCuda.cu) keep the
// memory their peers write in one NCCL symmetric window: the connection
// counts at offset 0, the FIFO slots at FifoOffset. The interpreter reaches
// a peer through per-rank pointer arrays; this kernel fills them with each
// peer's address of the window (NCCL 2.28 device API). Launch it with one
// block.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_PEERWINDOW_CUH
#define TACCLC_EXEC_DEVICE_PEERWINDOW_CUH

#include <nccl.h>
#include <nccl_device.h>

#include <cstdint>

namespace tacclrt::cuda {
namespace {

/// Counts[p] and Fifo[p]: peer p's counts and FIFO memory in \p Win.
__global__ void resolvePeerWindow(ncclWindow_t Win, int NRanks,
                                  std::uint64_t FifoOffset, char **Fifo,
                                  unsigned long long **Counts) {
  for (int P = int(threadIdx.x); P < NRanks; P += int(blockDim.x)) {
    Counts[P] =
        static_cast<unsigned long long *>(ncclGetPeerPointer(Win, 0, P));
    Fifo[P] = static_cast<char *>(ncclGetPeerPointer(Win, FifoOffset, P));
  }
}

} // namespace
} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_PEERWINDOW_CUH
