//===- exec/device/Probe.cu - CUDA and NCCL probe --------------*- CUDA -*-===//
//
// tacclc-cuda-probe: prints the NCCL library version and the number of CUDA
// devices. It is the smoke test of the CUDA toolchain setup and the first
// step towards a device executor. On a machine without a usable GPU (no
// driver, no device) it says "no GPU: skipping" and still exits 0, so test
// suites can run it everywhere.
//
//===----------------------------------------------------------------------===//
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>

int main() {
  int Version = 0;
  ncclResult_t NcclStatus = ncclGetVersion(&Version);
  if (NcclStatus != ncclSuccess) {
    std::printf("nccl: ncclGetVersion failed: %s\n",
                ncclGetErrorString(NcclStatus));
    return 1;
  }
  std::printf("nccl: version %d.%d.%d (code %d)\n", Version / 10000,
              (Version % 10000) / 100, Version % 100, Version);

  int Runtime = 0;
  cudaRuntimeGetVersion(&Runtime);
  std::printf("cuda: runtime %d.%d\n", Runtime / 1000, (Runtime % 1000) / 10);

  int Devices = 0;
  cudaError_t Err = cudaGetDeviceCount(&Devices);
  if (Err != cudaSuccess || Devices == 0) {
    std::printf("no GPU: skipping (cudaGetDeviceCount: %s)\n",
                Err != cudaSuccess ? cudaGetErrorString(Err) : "0 devices");
    return 0;
  }
  std::printf("cuda: %d device(s)\n", Devices);
  for (int D = 0; D < Devices; ++D) {
    cudaDeviceProp Prop;
    if (cudaGetDeviceProperties(&Prop, D) == cudaSuccess)
      std::printf("  device %d: %s, sm_%d%d, %.1f GiB\n", D, Prop.name,
                  Prop.major, Prop.minor,
                  static_cast<double>(Prop.totalGlobalMem) /
                      (1024.0 * 1024.0 * 1024.0));
  }
  return 0;
}
