//===- tools/taccl-profile/CudaProber.cpp - Timings on real GPUs ----------===//
//
// CudaProber (CudaProber.h): one communicator per local GPU, a send and a
// receive buffer of the largest message on each, one stream each. A timing
// enqueues the group of sends and receives, waits for every stream, and
// keeps the best of three repetitions after one warm-up.
//
//===----------------------------------------------------------------------===//
#include "CudaProber.h"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

using namespace tacclc::profile;

namespace {

constexpr double MaxBytes = 16 << 20;

class CudaProber : public Prober {
public:
  ~CudaProber() override {
    for (size_t G = 0; G < Comms.size(); ++G) {
      cudaSetDevice(int(G));
      if (Comms[G])
        ncclCommDestroy(Comms[G]);
      cudaFree(Send[G]);
      cudaFree(Recv[G]);
      if (Streams[G])
        cudaStreamDestroy(Streams[G]);
    }
  }

  bool init(std::string &Why) {
    int N = 0;
    if (cudaGetDeviceCount(&N) != cudaSuccess || N < 1) {
      Why = "no CUDA GPU is available";
      return false;
    }
    Comms.assign(size_t(N), nullptr);
    Send.assign(size_t(N), nullptr);
    Recv.assign(size_t(N), nullptr);
    Streams.assign(size_t(N), nullptr);
    std::vector<int> Devs(static_cast<size_t>(N));
    for (int G = 0; G < N; ++G)
      Devs[size_t(G)] = G;
    if (ncclResult_t R = ncclCommInitAll(Comms.data(), N, Devs.data());
        R != ncclSuccess) {
      Comms.assign(size_t(N), nullptr);
      Why = std::string("ncclCommInitAll: ") + ncclGetErrorString(R);
      return false;
    }
    for (int G = 0; G < N; ++G) {
      cudaSetDevice(G);
      // Room for several messages in flight to each peer.
      const size_t Bytes = size_t(MaxBytes) * 4;
      if (cudaMalloc(&Send[size_t(G)], Bytes) != cudaSuccess ||
          cudaMalloc(&Recv[size_t(G)], Bytes) != cudaSuccess ||
          cudaStreamCreate(&Streams[size_t(G)]) != cudaSuccess) {
        Why = "out of GPU memory for the probe buffers";
        return false;
      }
    }
    cudaDeviceProp Prop{};
    cudaGetDeviceProperties(&Prop, 0);
    Gpu = Prop.name;
    return true;
  }

  unsigned gpusPerNode() const override { return unsigned(Comms.size()); }
  unsigned nodes() const override { return 1; }

  double sequential(unsigned A, unsigned B, double Bytes, unsigned N) override {
    return best([&] {
      for (unsigned K = 0; K < N; ++K) {
        enqueue({{A, B}}, Bytes, 1);
        sync({A, B});
      }
    });
  }
  double concurrent(unsigned A, unsigned B, double Bytes, unsigned N) override {
    return best([&] {
      enqueue({{A, B}}, Bytes, N);
      sync({A, B});
    });
  }
  double together(const std::vector<std::pair<unsigned, unsigned>> &Pairs,
                  double Bytes) override {
    std::vector<unsigned> All;
    for (auto [A, B] : Pairs) {
      All.push_back(A);
      All.push_back(B);
    }
    return best([&] {
      enqueue(Pairs, Bytes, 1);
      sync(All);
    });
  }
  std::string describe() const override {
    return fmt::format("{} x {} (NCCL {}.{}.{})", Comms.size(), Gpu, NCCL_MAJOR,
                       NCCL_MINOR, NCCL_PATCH);
  }

private:
  std::vector<ncclComm_t> Comms;
  std::vector<void *> Send, Recv;
  std::vector<cudaStream_t> Streams;
  std::string Gpu;

  /// Copies messages of \p Bytes, \p N per pair, in one NCCL group.
  void enqueue(const std::vector<std::pair<unsigned, unsigned>> &Pairs,
               double Bytes, unsigned N) {
    const size_t Count = size_t(std::min(Bytes, MaxBytes));
    ncclGroupStart();
    for (auto [A, B] : Pairs)
      for (unsigned K = 0; K < N && K < 4; ++K) {
        ncclSend(static_cast<char *>(Send[A]) + K * size_t(MaxBytes), Count,
                 ncclInt8, int(B), Comms[A], Streams[A]);
        ncclRecv(static_cast<char *>(Recv[B]) + K * size_t(MaxBytes), Count,
                 ncclInt8, int(A), Comms[B], Streams[B]);
      }
    ncclGroupEnd();
  }
  void sync(const std::vector<unsigned> &Gpus) {
    for (unsigned G : Gpus) {
      cudaSetDevice(int(G));
      cudaStreamSynchronize(Streams[G]);
    }
  }
  /// The best of three timed runs of \p Run after one warm-up, seconds.
  double best(const std::function<void()> &Run) {
    Run();
    double Best = 1e30;
    for (int K = 0; K < 3; ++K) {
      auto T0 = std::chrono::steady_clock::now();
      Run();
      Best = std::min(Best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - T0)
                                .count());
    }
    return Best;
  }
};

} // namespace

std::unique_ptr<Prober> tacclc::profile::makeCudaProber(std::string &Why) {
  auto P = std::make_unique<CudaProber>();
  if (!P->init(Why))
    return nullptr;
  return P;
}
