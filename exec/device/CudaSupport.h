//===- exec/device/CudaSupport.h - Executors' host helpers -----*- CUDA -*-===//
//
// What the CUDA executors share on the host side: a guard that owns device
// and mapped host allocations, CUDA error text, the block size that keeps
// every block of a launch resident (blocks wait for each other, so a block
// that is not scheduled would hang the others), the kernel's reduction
// code, and the dispatch from a DataType to the kernel's element type.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_EXEC_DEVICE_CUDASUPPORT_H
#define TACCLC_EXEC_DEVICE_CUDASUPPORT_H

#include "exec/device/Interpreter.cuh"
#include "format/Call.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace tacclrt::cuda {

/// Owns device (and mapped host) allocations; frees them all when it goes.
class DeviceMemory {
public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  ~DeviceMemory() {
    for (auto [Dev, P] : Blocks) {
      cudaSetDevice(Dev);
      cudaFree(P);
    }
    for (void *P : Host)
      cudaFreeHost(P);
  }
  /// Allocates \p Bytes (at least 16) zeroed bytes on the current device;
  /// nullptr on failure.
  void *zeroed(std::uint64_t Bytes) {
    void *P = nullptr;
    int Dev = 0;
    cudaGetDevice(&Dev);
    Bytes = std::max<std::uint64_t>(Bytes, 16);
    if (cudaMalloc(&P, Bytes) != cudaSuccess)
      return nullptr;
    Blocks.push_back({Dev, P});
    if (cudaMemset(P, 0, Bytes) != cudaSuccess)
      return nullptr;
    return P;
  }
  /// A copy of \p N elements at \p Src on the current device.
  template <typename T> T *copy(const T *Src, std::size_t N) {
    T *P = static_cast<T *>(zeroed(N * sizeof(T)));
    if (P && N &&
        cudaMemcpy(P, Src, N * sizeof(T), cudaMemcpyHostToDevice) !=
            cudaSuccess)
      return nullptr;
    return P;
  }
  /// \p Bytes of zeroed host memory every GPU maps; nullptr on failure.
  void *mapped(std::size_t Bytes) {
    void *P = nullptr;
    if (cudaHostAlloc(&P, Bytes, cudaHostAllocMapped | cudaHostAllocPortable) !=
        cudaSuccess)
      return nullptr;
    Host.push_back(P);
    std::memset(P, 0, Bytes);
    return P;
  }

private:
  std::vector<std::pair<int, void *>> Blocks;
  std::vector<void *> Host;
};

/// "message (cudaErrorName)".
inline std::string cudaWhy(cudaError_t E) {
  return fmt::format("{} ({})", cudaGetErrorString(E), cudaGetErrorName(E));
}

/// The block size (256 threads, halved down to 32) at which \p Device holds
/// \p Blocks blocks of \p Kernel at once; 0, with the reason in \p Why, when
/// even 32 threads do not fit.
template <typename KernelT>
unsigned residentBlockSize(KernelT Kernel, int Device, std::uint64_t Blocks,
                           std::string &Why) {
  int Sms = 0;
  cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, Device);
  for (unsigned Threads = 256;; Threads /= 2) {
    int PerSm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, Kernel, int(Threads),
                                                  0);
    if (std::uint64_t(PerSm) * std::uint64_t(Sms) >= Blocks)
      return Threads;
    if (Threads / 2 < 32) {
      Why = fmt::format("GPU {} must hold {} blocks at once and holds {} x "
                        "{} of {} threads",
                        Device, Blocks, PerSm, Sms, Threads);
      return 0;
    }
  }
}

/// The kernel's code for \p Op (DevView::Op).
inline int opCode(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return 0;
  case ReduceOp::Prod:
    return 1;
  case ReduceOp::Min:
    return 2;
  default:
    return 3;
  }
}

/// Calls \p F with a value of the kernel's element type for \p Type
/// (F(T{}) for int8 .. float64, __half, __nv_bfloat16).
template <typename FnT> auto withElementType(DataType Type, FnT &&F) {
  switch (Type) {
  case DataType::Int8:
    return F(std::int8_t{});
  case DataType::UInt8:
    return F(std::uint8_t{});
  case DataType::Int32:
    return F(std::int32_t{});
  case DataType::UInt32:
    return F(std::uint32_t{});
  case DataType::Int64:
    return F(std::int64_t{});
  case DataType::UInt64:
    return F(std::uint64_t{});
  case DataType::Float16:
    return F(__half{});
  case DataType::BFloat16:
    return F(__nv_bfloat16{});
  case DataType::Float32:
    return F(float{});
  case DataType::Float64:
    break;
  }
  return F(double{});
}

} // namespace tacclrt::cuda

#endif // TACCLC_EXEC_DEVICE_CUDASUPPORT_H
