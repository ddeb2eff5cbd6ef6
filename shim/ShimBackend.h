//===- shim/ShimBackend.h - Where a served call runs ------------*- C++ -*-===//
//
// libtaccl-nccl serves a collective by running a selected TACCL-EF algorithm
// on a backend:
//   - cuda: the CUDA interpreter on the call's stream, each rank in its own
//     process or thread on its own GPU, peers reached through an NCCL
//     symmetric window of the real communicator (ShimCuda.cu); built where
//     CUDA is found;
//   - cpu: the CPU executor, for tests with a fake NCCL: all ranks of a
//     communicator live in one process with host buffers, and the call runs
//     when the last rank has made it (ShimCpu.cpp).
// TACCL_BACKEND picks one (cuda by default where built; `off` serves
// nothing).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_SHIM_SHIMBACKEND_H
#define TACCLC_SHIM_SHIMBACKEND_H

#include "shim/AlgoRegistry.h"
#include "shim/NcclAbi.h"
#include "shim/ShimInfo.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tacclrt::shim {

/// What the shim knows of a communicator.
struct CommInfo {
  ncclComm_t Comm = nullptr;
  int Rank = 0, NRanks = 1, Device = 0;
  /// Communicators created together (one ncclCommInitAll, or one unique
  /// id) share a clique.
  std::uint64_t Clique = 0;
  /// Several ranks of the clique are in this process (ncclCommInitAll, or
  /// communicators created inside one group).
  bool SharedProcess = false;
  /// Created with a non-blocking configuration: declined by every backend
  /// (its calls may return ncclInProgress).
  bool NonBlocking = false;
};

/// One call the shim serves.
struct ServedCall {
  const LoadedAlgo *Algo = nullptr;
  CallShape Shape;
  const void *Send = nullptr;
  void *Recv = nullptr;
  cudaStream_t Stream = nullptr;
  /// Every loaded algorithm (a backend may size its resources for all).
  const std::vector<LoadedAlgo> *All = nullptr;
};

/// Runs served calls.
class ShimBackend {
public:
  virtual ~ShimBackend() = default;
  virtual const char *name() const = 0;
  /// Where the ranks it serves are, for the INFO log ("on one node (one
  /// NVLink domain)").
  virtual const char *scope() const = 0;
  /// Why calls on \p C cannot run here (they are forwarded), or
  /// Decline::None. \p C.Rank < 0: the communicator may still be
  /// initializing, so the real NCCL must not be asked about it.
  virtual Decline declines(const CommInfo &C) const {
    (void)C;
    return Decline::None;
  }
  /// Whether \p Call can run now (else it is forwarded; every rank must
  /// decide alike).
  virtual bool ready(const CommInfo &C, const ServedCall &Call) {
    (void)C;
    (void)Call;
    return true;
  }
  /// Runs (or starts) rank \p C's part of \p Call; on failure an error code
  /// and the reason in \p Why.
  virtual ncclResult_t run(const CommInfo &C, const ServedCall &Call,
                           std::string &Why) = 0;
  /// Releases what the backend holds for \p Comm (before it is destroyed;
  /// \p Aborting: its peers may be gone, so nothing collective may run).
  virtual void forget(ncclComm_t Comm, bool Aborting) {
    (void)Comm;
    (void)Aborting;
  }
};

/// The CPU executor backend.
std::unique_ptr<ShimBackend> makeCpuBackend();
/// The CUDA interpreter backend, or null in builds without CUDA.
std::unique_ptr<ShimBackend> makeCudaBackend();

} // namespace tacclrt::shim

#endif // TACCLC_SHIM_SHIMBACKEND_H
