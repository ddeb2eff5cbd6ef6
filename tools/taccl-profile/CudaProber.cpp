//===- tools/taccl-profile/CudaProber.cpp - Timings on real GPUs ----------===//
//
// CudaProber (CudaProber.h): one NCCL rank per local GPU (rank node * gpus +
// gpu), a send and a receive buffer of four of the largest messages on
// each, one stream each. A timing enqueues this process's part of a group of
// sends and receives (the sends of its GPUs, the receives into them), waits
// for its streams, keeps the best of three repetitions after one warm-up,
// and agrees on it with the other processes.
//
//===----------------------------------------------------------------------===//
#include "CudaProber.h"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

using namespace tacclc::profile;

namespace {

constexpr double MaxBytes = 16 << 20;
constexpr unsigned MaxInFlight = 4;

/// A measurement that cannot go on: said, and the process ends (the other
/// nodes' processes then fail in NCCL too).
[[noreturn]] void fail(const std::string &Why) {
  std::fprintf(stderr, "taccl-profile: error: %s\n", Why.c_str());
  std::exit(1);
}

void ncclCheck(ncclResult_t R, const char *What) {
  if (R != ncclSuccess)
    fail(std::string(What) + ": " + ncclGetErrorString(R));
}

/// NCCL's unique id: made by node 0 (and written to the file with several
/// nodes), read by the others.
bool shareId(const CudaProberOptions &O, ncclUniqueId &Id, std::string &Why) {
  if (O.Node == 0) {
    if (ncclResult_t R = ncclGetUniqueId(&Id); R != ncclSuccess) {
      Why = std::string("ncclGetUniqueId: ") + ncclGetErrorString(R);
      return false;
    }
    if (O.Nodes == 1)
      return true;
    std::string Tmp = O.IdFile + ".tmp";
    std::ofstream(Tmp, std::ios::binary)
        .write(reinterpret_cast<const char *>(&Id), sizeof(Id));
    if (std::rename(Tmp.c_str(), O.IdFile.c_str()) != 0) {
      Why = "cannot write the id file '" + O.IdFile + "'";
      return false;
    }
    return true;
  }
  auto Start = std::chrono::steady_clock::now();
  for (;;) {
    std::ifstream In(O.IdFile, std::ios::binary);
    if (In.read(reinterpret_cast<char *>(&Id), sizeof(Id)))
      return true;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count() > O.IdWaitSeconds) {
      Why = "node 0 wrote no id to '" + O.IdFile + "' in time";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

class CudaProber : public Prober {
public:
  explicit CudaProber(const CudaProberOptions &O) : O(O) {}
  ~CudaProber() override {
    for (size_t G = 0; G < Comms.size(); ++G) {
      cudaSetDevice(int(G));
      if (Comms[G])
        ncclCommDestroy(Comms[G]);
      cudaFree(Send[G]);
      cudaFree(Recv[G]);
      cudaFree(Agree[G]);
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
    if (O.Nodes > 1 && O.IdFile.empty()) {
      Why = "several nodes need --id-file on a shared file system";
      return false;
    }
    G = unsigned(N);
    Comms.assign(G, nullptr);
    Send.assign(G, nullptr);
    Recv.assign(G, nullptr);
    Agree.assign(G, nullptr);
    Streams.assign(G, nullptr);
    for (unsigned D = 0; D < G; ++D) {
      cudaSetDevice(int(D));
      const size_t Bytes = size_t(MaxBytes) * MaxInFlight;
      if (cudaMalloc(&Send[D], Bytes) != cudaSuccess ||
          cudaMalloc(&Recv[D], Bytes) != cudaSuccess ||
          cudaMalloc(&Agree[D], sizeof(double)) != cudaSuccess ||
          cudaStreamCreate(&Streams[D]) != cudaSuccess) {
        Why = "out of GPU memory for the probe buffers";
        return false;
      }
    }
    ncclUniqueId Id;
    if (!shareId(O, Id, Why))
      return false;
    ncclGroupStart();
    ncclResult_t R = ncclSuccess;
    for (unsigned D = 0; D < G && R == ncclSuccess; ++D) {
      cudaSetDevice(int(D));
      R = ncclCommInitRank(&Comms[D], int(O.Nodes * G), Id,
                           int(O.Node * G + D));
    }
    ncclResult_t End = ncclGroupEnd();
    if (R != ncclSuccess || End != ncclSuccess) {
      Comms.assign(G, nullptr);
      Why = std::string("ncclCommInitRank: ") +
            ncclGetErrorString(R != ncclSuccess ? R : End);
      return false;
    }
    // Every node has joined: the id must not serve a later run.
    if (O.Nodes > 1 && O.Node == 0)
      std::remove(O.IdFile.c_str());
    cudaDeviceProp Prop{};
    cudaGetDeviceProperties(&Prop, 0);
    Gpu = Prop.name;
    return true;
  }

  unsigned gpusPerNode() const override { return G; }
  unsigned nodes() const override { return std::min(O.Nodes, 2u); }

  double sequential(unsigned A, unsigned B, double Bytes, unsigned N) override {
    return best([&] {
      for (unsigned K = 0; K < N; ++K) {
        enqueue({{A, B}}, Bytes, 1);
        sync();
      }
    });
  }
  double concurrent(unsigned A, unsigned B, double Bytes, unsigned N) override {
    return best([&] {
      enqueue({{A, B}}, Bytes, N);
      sync();
    });
  }
  double together(const std::vector<std::pair<unsigned, unsigned>> &Pairs,
                  double Bytes) override {
    return best([&] {
      enqueue(Pairs, Bytes, 1);
      sync();
    });
  }
  std::string describe() const override {
    return fmt::format("{} node(s) of {} x {} (NCCL {}.{}.{})", O.Nodes, G, Gpu,
                       NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
  }

private:
  CudaProberOptions O;
  unsigned G = 0;
  std::vector<ncclComm_t> Comms;
  std::vector<void *> Send, Recv, Agree;
  std::vector<cudaStream_t> Streams;
  std::string Gpu;

  bool local(unsigned Rank) const { return Rank / G == O.Node; }

  /// This process's part of \p N messages of \p Bytes per pair, one group.
  void enqueue(const std::vector<std::pair<unsigned, unsigned>> &Pairs,
               double Bytes, unsigned N) {
    if (Bytes > MaxBytes || N > MaxInFlight)
      fail(fmt::format("a probe of {} x {} B exceeds the buffers ({} x {} B)",
                       N, Bytes, MaxInFlight, MaxBytes));
    const size_t Count = size_t(Bytes);
    ncclCheck(ncclGroupStart(), "ncclGroupStart");
    for (auto [A, B] : Pairs)
      for (unsigned K = 0; K < N; ++K) {
        const size_t Off = K * size_t(MaxBytes);
        if (local(A))
          ncclCheck(ncclSend(static_cast<char *>(Send[A % G]) + Off, Count,
                             ncclInt8, int(B), Comms[A % G], Streams[A % G]),
                    "ncclSend");
        if (local(B))
          ncclCheck(ncclRecv(static_cast<char *>(Recv[B % G]) + Off, Count,
                             ncclInt8, int(A), Comms[B % G], Streams[B % G]),
                    "ncclRecv");
      }
    ncclCheck(ncclGroupEnd(), "ncclGroupEnd");
  }
  void sync() {
    for (unsigned D = 0; D < G; ++D) {
      cudaSetDevice(int(D));
      if (cudaError_t E = cudaStreamSynchronize(Streams[D]); E != cudaSuccess)
        fail(std::string("a probe failed on GPU ") + std::to_string(D) + ": " +
             cudaGetErrorString(E));
    }
  }
  /// The largest of every process's \p Seconds (all ranks take part).
  double agree(double Seconds) {
    if (O.Nodes == 1)
      return Seconds;
    for (unsigned D = 0; D < G; ++D) {
      cudaSetDevice(int(D));
      cudaMemcpy(Agree[D], &Seconds, sizeof(double), cudaMemcpyHostToDevice);
    }
    ncclCheck(ncclGroupStart(), "ncclGroupStart");
    for (unsigned D = 0; D < G; ++D)
      ncclCheck(ncclAllReduce(Agree[D], Agree[D], 1, ncclFloat64, ncclMax,
                              Comms[D], Streams[D]),
                "ncclAllReduce");
    ncclCheck(ncclGroupEnd(), "ncclGroupEnd");
    sync();
    double Out = Seconds;
    cudaSetDevice(0);
    cudaMemcpy(&Out, Agree[0], sizeof(double), cudaMemcpyDeviceToHost);
    return Out;
  }
  /// The best of three timed runs of \p Run after one warm-up, agreed.
  double best(const std::function<void()> &Run) {
    Run();
    double Best = 1e30;
    for (int K = 0; K < 3; ++K) {
      agree(0); // the nodes start each timed run together
      auto T0 = std::chrono::steady_clock::now();
      Run();
      Best = std::min(Best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - T0)
                                .count());
    }
    return agree(Best);
  }
};

} // namespace

std::unique_ptr<Prober>
tacclc::profile::makeCudaProber(const CudaProberOptions &O, std::string &Why) {
  auto P = std::make_unique<CudaProber>(O);
  if (!P->init(Why))
    return nullptr;
  return P;
}
