//===- tests/shim/ShimGpuTest.cpp - libtaccl-nccl on GPUs -----------------===//
//
// shim-gpu-test NCCL_LIBRARY ALLGATHER.xml ALLREDUCE.xml: four processes, one
// per GPU, use NCCL's API as PyTorch does (ncclCommInitRank, device buffers,
// a stream each) through libtaccl-nccl with the real NCCL behind it and the
// cuda backend. Each rank checks an out-of-place and an in-place allgather,
// a sum allreduce, and an allgather captured in a CUDA graph and replayed
// twice; the log must show every call served by the algorithms. Exits 77
// (skipped) where there are fewer than four GPUs.
//
//===----------------------------------------------------------------------===//
#include "exec/device/RankProcesses.h"
#include "shim/NcclAbi.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int Ranks = 4, Skip = 77;
constexpr size_t Count = 4096;

bool readAll(int Fd, void *P, size_t N) {
  char *C = static_cast<char *>(P);
  while (N) {
    ssize_t Got = read(Fd, C, N);
    if (Got <= 0)
      return false;
    C += Got;
    N -= size_t(Got);
  }
  return true;
}

#define CHECK(Cond, What)                                                      \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      std::fprintf(stderr, "FAIL rank %d: %s\n", Rank, What);                  \
      return 1;                                                                \
    }                                                                          \
  } while (false)

int rankMain(int Rank, int IdPipe[2]) {
  int Devices = 0;
  if (cudaGetDeviceCount(&Devices) != cudaSuccess || Devices < Ranks)
    return Skip;
  ncclUniqueId Id;
  if (Rank == 0) {
    CHECK(ncclGetUniqueId(&Id) == ncclSuccess, "ncclGetUniqueId");
    for (int K = 1; K < Ranks; ++K)
      CHECK(write(IdPipe[1], &Id, sizeof(Id)) == ssize_t(sizeof(Id)),
            "handing out the id");
  } else {
    close(IdPipe[1]);
    CHECK(readAll(IdPipe[0], &Id, sizeof(Id)), "reading the id");
  }
  cudaSetDevice(Rank);
  ncclComm_t Comm = nullptr;
  CHECK(ncclCommInitRank(&Comm, Ranks, Id, Rank) == ncclSuccess,
        "ncclCommInitRank");
  cudaStream_t St;
  cudaStreamCreate(&St);
  float *Send = nullptr, *Recv = nullptr;
  cudaMalloc(&Send, Count * sizeof(float));
  cudaMalloc(&Recv, Ranks * Count * sizeof(float));
  std::vector<float> Host(Count), Back(Ranks * Count);
  for (size_t E = 0; E < Count; ++E)
    Host[E] = float(1000 * Rank + E % 997);
  cudaMemcpy(Send, Host.data(), Count * sizeof(float), cudaMemcpyHostToDevice);
  auto Gathered = [&] {
    cudaMemcpy(Back.data(), Recv, Back.size() * sizeof(float),
               cudaMemcpyDeviceToHost);
    for (int S = 0; S < Ranks; ++S)
      for (size_t E = 0; E < Count; ++E)
        if (Back[size_t(S) * Count + E] != float(1000 * S + E % 997))
          return false;
    return true;
  };
  // Out of place, then in place.
  CHECK(ncclAllGather(Send, Recv, Count, ncclFloat32, Comm, St) == ncclSuccess,
        "ncclAllGather");
  CHECK(cudaStreamSynchronize(St) == cudaSuccess && Gathered(),
        "out-of-place allgather data");
  cudaMemset(Recv, 0, Ranks * Count * sizeof(float));
  cudaMemcpy(Recv + size_t(Rank) * Count, Host.data(), Count * sizeof(float),
             cudaMemcpyHostToDevice);
  CHECK(ncclAllGather(Recv + size_t(Rank) * Count, Recv, Count, ncclFloat32,
                      Comm, St) == ncclSuccess,
        "in-place ncclAllGather");
  CHECK(cudaStreamSynchronize(St) == cudaSuccess && Gathered(),
        "in-place allgather data");
  // Allreduce (sum) of Count elements.
  float *Red = nullptr;
  cudaMalloc(&Red, Count * sizeof(float));
  CHECK(ncclAllReduce(Send, Red, Count, ncclFloat32, ncclSum, Comm, St) ==
            ncclSuccess,
        "ncclAllReduce");
  cudaStreamSynchronize(St);
  cudaMemcpy(Host.data(), Red, Count * sizeof(float), cudaMemcpyDeviceToHost);
  for (size_t E = 0; E < Count; ++E)
    CHECK(Host[E] == float(6000 + 4 * (E % 997)), "allreduce data");
  // Captured in a graph, replayed twice.
  cudaGraph_t G;
  cudaGraphExec_t Exec;
  CHECK(cudaStreamBeginCapture(St, cudaStreamCaptureModeThreadLocal) ==
            cudaSuccess,
        "begin capture");
  ncclAllGather(Send, Recv, Count, ncclFloat32, Comm, St);
  CHECK(cudaStreamEndCapture(St, &G) == cudaSuccess, "end capture");
  CHECK(cudaGraphInstantiate(&Exec, G, 0) == cudaSuccess, "instantiate");
  for (int K = 0; K < 2; ++K) {
    cudaMemset(Recv, 0, Ranks * Count * sizeof(float));
    CHECK(cudaGraphLaunch(Exec, St) == cudaSuccess, "graph launch");
    CHECK(cudaStreamSynchronize(St) == cudaSuccess && Gathered(),
          "allgather replayed from a graph");
  }
  ncclCommDestroy(Comm);
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 4) {
    std::fprintf(stderr, "usage: shim-gpu-test NCCL_LIBRARY ALLGATHER.xml "
                         "ALLREDUCE.xml\n");
    return 2;
  }
  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() /
                 ("taccl-shim-gpu-" + std::to_string(getpid()));
  fs::create_directories(Dir);
  fs::copy_file(Argv[2], Dir / "allgather.xml");
  fs::copy_file(Argv[3], Dir / "allreduce.xml");
  setenv("TACCL_NCCL_LIBRARY", Argv[1], 1);
  setenv("TACCL_ALGO_DIR", Dir.c_str(), 1);
  setenv("TACCL_BACKEND", "cuda", 1);
  setenv("TACCL_DEBUG", "INFO", 1);
  const std::string Log = (Dir / "log.txt").string();
  std::fflush(stderr);
  int Saved = dup(2);
  std::freopen(Log.c_str(), "w", stderr);
  int IdPipe[2];
  if (pipe(IdPipe) != 0)
    return 1;
  std::string Why;
  auto Ends = tacclrt::runRankProcesses(
      Ranks, [&](unsigned R) { return rankMain(int(R), IdPipe); },
      [&] {
        close(IdPipe[0]);
        close(IdPipe[1]);
      },
      90, 600, Why);
  std::fflush(stderr);
  dup2(Saved, 2);
  std::ifstream In(Log);
  std::stringstream Text;
  Text << In.rdbuf();
  std::fputs(Text.str().c_str(), stderr);
  fs::remove_all(Dir);
  if (!Ends)
    return 1;
  bool Skipped = true, Ok = true;
  for (const tacclrt::RankEnding &E : *Ends) {
    Skipped = Skipped && E.Exited && E.ExitCode == Skip;
    Ok = Ok && E.ok();
  }
  if (Skipped) {
    std::printf("skipping: fewer than %d GPUs\n", Ranks);
    return Skip;
  }
  size_t Served = 0;
  for (size_t At = Text.str().find("served by"); At != std::string::npos;
       At = Text.str().find("served by", At + 1))
    ++Served;
  // 4 ranks x (2 allgathers, 1 allreduce, 1 captured allgather).
  if (Served < size_t(Ranks) * 4) {
    std::printf("FAIL: %zu calls served, expected %d\n", Served, Ranks * 4);
    Ok = false;
  }
  std::printf("%s\n",
              Ok ? "shim on GPUs: every call served and right" : "FAILED");
  return Ok ? 0 : 1;
}
