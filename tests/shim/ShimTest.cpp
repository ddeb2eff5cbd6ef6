//===- tests/shim/ShimTest.cpp - libtaccl-nccl against a fake NCCL --------===//
//
// shim-test FAKE_NCCL.so ALLGATHER.xml ALLREDUCE.xml ALLTOALL.xml: a program
// that uses
// NCCL's API as an application does, linked to libtaccl-nccl, with the
// fake library as the real NCCL (TACCL_NCCL_LIBRARY), the CPU backend, and
// an algorithm directory holding the two files, a copy of the allgather
// limited to 64 KiB and named to sort first, and a file that does not load.
// It checks that:
//   - functions the shim does not serve reach the fake (ncclGetVersion);
//   - calls an algorithm matches are served (the fake never sees them) and
//     compute the right data, in place and out of place;
//   - calls no algorithm matches (a size out of every range, avg, a type the
//     interpreter lacks, a rank count no file has) go to the fake, and are
//     right too;
//   - a group of sends and receives that is an alltoall (PyTorch's
//     all_to_all) is served by the alltoall file, and other groups (a ring
//     shift) and calls outside groups reach the fake;
//   - the broken file is reported once, with its reason, and TACCL_DEBUG=INFO
//     names the file that served each call, says once at start what the
//     library serves (one node; the MSCCL executor across nodes) and the
//     real NCCL's version, and at each communicator's creation whether its
//     calls may be served (the 4-rank ones) or why not (no 2-rank file).
// Exit status 0 when every check passes; each failure is printed.
//
//===----------------------------------------------------------------------===//
#include "shim/NcclAbi.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

int Failures = 0;

void check(bool Ok, const std::string &What) {
  if (!Ok) {
    std::printf("FAIL: %s\n", What.c_str());
    ++Failures;
  }
}

int (*FakeCalls)(const char *) = nullptr;

int calls(const char *Name) { return FakeCalls ? FakeCalls(Name) : -1; }

std::string slurp(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

size_t occurrences(const std::string &Text, const std::string &Needle) {
  size_t N = 0;
  for (size_t At = Text.find(Needle); At != std::string::npos;
       At = Text.find(Needle, At + 1))
    ++N;
  return N;
}

/// Every rank calls \p Call(rank); the served or forwarded count of
/// \p FakeName afterwards.
int allRanks(std::vector<ncclComm_t> &Comms, const char *FakeName,
             const std::function<ncclResult_t(int, ncclComm_t)> &Call) {
  int Before = calls(FakeName);
  for (size_t R = 0; R < Comms.size(); ++R)
    check(Call(int(R), Comms[R]) == ncclSuccess,
          std::string(FakeName) + " returned an error");
  return calls(FakeName) - Before;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 5) {
    std::fprintf(stderr, "usage: shim-test FAKE_NCCL.so ALLGATHER.xml "
                         "ALLREDUCE.xml ALLTOALL.xml\n");
    return 2;
  }
  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() /
                 ("taccl-shim-test-" + std::to_string(getpid()));
  fs::create_directories(Dir);
  fs::copy_file(Argv[2], Dir / "b-allgather.xml");
  fs::copy_file(Argv[3], Dir / "c-allreduce.xml");
  fs::copy_file(Argv[4], Dir / "e-alltoall.xml");
  std::string Small = slurp(Argv[2]);
  size_t At = Small.find("maxBytes=\"0\"");
  check(At != std::string::npos, "the allgather file has maxBytes=\"0\"");
  Small.replace(At, 12, "maxBytes=\"65536\"");
  std::ofstream(Dir / "a-allgather-small.xml") << Small;
  std::ofstream(Dir / "d-broken.xml") << "<algo name=\"x\" ngpus=\"4\">";
  std::string Log = (Dir / "stderr.txt").string();
  setenv("TACCL_NCCL_LIBRARY", Argv[1], 1);
  setenv("TACCL_ALGO_DIR", Dir.c_str(), 1);
  setenv("TACCL_BACKEND", "cpu", 1);
  setenv("TACCL_DEBUG", "INFO", 1);
  setenv("TACCL_GROUPED_ALLTOALL", "1", 1);
  std::fflush(stderr);
  int SavedErr = dup(2);
  FILE *Err = std::freopen(Log.c_str(), "w", stderr);
  check(Err != nullptr, "stderr to a file");

  int Version = 0;
  check(ncclGetVersion(&Version) == ncclSuccess && Version == 22809,
        "ncclGetVersion reaches the fake");
  void *Fake = dlopen(Argv[1], RTLD_NOW | RTLD_NOLOAD);
  if (Fake)
    FakeCalls =
        reinterpret_cast<int (*)(const char *)>(dlsym(Fake, "fakeNcclCalls"));
  check(FakeCalls && calls("ncclGetVersion") == 1,
        "the fake counted one ncclGetVersion");

  std::vector<ncclComm_t> Comms(4);
  check(ncclCommInitAll(Comms.data(), 4, nullptr) == ncclSuccess,
        "ncclCommInitAll");

  // Allgather, out of place, 1 KiB in all: served by the small copy.
  const size_t Count = 64;
  std::vector<std::vector<float>> In(4), Out(4);
  for (int R = 0; R < 4; ++R) {
    In[size_t(R)].resize(Count);
    for (size_t E = 0; E < Count; ++E)
      In[size_t(R)][E] = float(100 * R + E);
    Out[size_t(R)].assign(4 * Count, -1);
  }
  auto Gathered = [&](const std::vector<float> &O) {
    for (int S = 0; S < 4; ++S)
      for (size_t E = 0; E < Count; ++E)
        if (O[size_t(S) * Count + E] != float(100 * S + E))
          return false;
    return true;
  };
  int Fwd = allRanks(Comms, "ncclAllGather", [&](int R, ncclComm_t C) {
    return ncclAllGather(In[size_t(R)].data(), Out[size_t(R)].data(), Count,
                         ncclFloat32, C, nullptr);
  });
  check(Fwd == 0, "a 1 KiB allgather is served, not forwarded");
  for (int R = 0; R < 4; ++R)
    check(Gathered(Out[size_t(R)]),
          "served allgather data, rank " + std::to_string(R));

  // In place, 256 KiB: over the small copy's range, served by the full one.
  const size_t Big = 16384;
  std::vector<std::vector<float>> Buf(4, std::vector<float>(4 * Big));
  for (int R = 0; R < 4; ++R)
    for (size_t E = 0; E < Big; ++E)
      Buf[size_t(R)][size_t(R) * Big + E] = float(R * 7 + E % 13);
  Fwd = allRanks(Comms, "ncclAllGather", [&](int R, ncclComm_t C) {
    float *B = Buf[size_t(R)].data();
    return ncclAllGather(B + size_t(R) * Big, B, Big, ncclFloat32, C, nullptr);
  });
  check(Fwd == 0, "an in-place 256 KiB allgather is served");
  bool Ok = true;
  for (int R = 0; R < 4; ++R)
    for (int S = 0; S < 4; ++S)
      for (size_t E = 0; E < Big; ++E)
        Ok = Ok && Buf[size_t(R)][size_t(S) * Big + E] == float(S * 7 + E % 13);
  check(Ok, "in-place allgather data");

  // Allreduce: sum served; avg forwarded (no algorithm does avg).
  std::vector<std::vector<float>> A(4, std::vector<float>(Count)), B = A;
  for (int R = 0; R < 4; ++R)
    for (size_t E = 0; E < Count; ++E)
      A[size_t(R)][E] = float(R + 1) * float(E);
  Fwd = allRanks(Comms, "ncclAllReduce", [&](int R, ncclComm_t C) {
    return ncclAllReduce(A[size_t(R)].data(), B[size_t(R)].data(), Count,
                         ncclFloat32, ncclSum, C, nullptr);
  });
  check(Fwd == 0, "a sum allreduce is served");
  Ok = true;
  for (int R = 0; R < 4; ++R)
    for (size_t E = 0; E < Count; ++E)
      Ok = Ok && B[size_t(R)][E] == 10.0f * float(E);
  check(Ok, "served allreduce data");
  Fwd = allRanks(Comms, "ncclAllReduce", [&](int R, ncclComm_t C) {
    return ncclAllReduce(A[size_t(R)].data(), B[size_t(R)].data(), Count,
                         ncclFloat32, ncclAvg, C, nullptr);
  });
  check(Fwd == 4, "an avg allreduce is forwarded");
  check(B[2][4] == 10.0f, "forwarded avg allreduce data");

  // A type the interpreter lacks (fp8): forwarded (the fake refuses it).
  int Before = calls("ncclAllGather");
  ncclAllGather(In[0].data(), Out[0].data(), Count, ncclFloat8e4m3, Comms[0],
                nullptr);
  check(calls("ncclAllGather") == Before + 1, "fp8 allgather is forwarded");

  // A group of sends and receives that is an alltoall: served.
  std::vector<std::vector<float>> Src(4, std::vector<float>(4 * Count)),
      Dst(4, std::vector<float>(4 * Count, -1));
  for (int R = 0; R < 4; ++R)
    for (size_t E = 0; E < 4 * Count; ++E)
      Src[size_t(R)][E] = float(R * 10000 + int(E));
  // (Each rank's group on its own, as each PyTorch process makes it.)
  int SendsBefore = calls("ncclSend");
  for (int R = 0; R < 4; ++R) {
    check(ncclGroupStart() == ncclSuccess, "ncclGroupStart");
    for (int P = 0; P < 4; ++P) {
      ncclSend(Src[size_t(R)].data() + size_t(P) * Count, Count, ncclFloat32, P,
               Comms[size_t(R)], nullptr);
      ncclRecv(Dst[size_t(R)].data() + size_t(P) * Count, Count, ncclFloat32, P,
               Comms[size_t(R)], nullptr);
    }
    check(ncclGroupEnd() == ncclSuccess, "ncclGroupEnd of the alltoall");
  }
  check(calls("ncclSend") == SendsBefore, "a grouped alltoall is served");
  Ok = true;
  for (int R = 0; R < 4; ++R)
    for (int P = 0; P < 4; ++P)
      for (size_t E = 0; E < Count; ++E)
        Ok = Ok && Dst[size_t(R)][size_t(P) * Count + E] ==
                       Src[size_t(P)][size_t(R) * Count + E];
  check(Ok, "grouped alltoall data");
  // A ring shift in a group (over every communicator, which is NCCL's to
  // fuse), and a send outside a group: forwarded.
  for (auto &D : Dst)
    std::fill(D.begin(), D.end(), -1.0f);
  check(ncclGroupStart() == ncclSuccess, "ncclGroupStart");
  for (int R = 0; R < 4; ++R) {
    ncclSend(Src[size_t(R)].data(), Count, ncclFloat32, (R + 1) % 4,
             Comms[size_t(R)], nullptr);
    ncclRecv(Dst[size_t(R)].data(), Count, ncclFloat32, (R + 3) % 4,
             Comms[size_t(R)], nullptr);
  }
  check(ncclGroupEnd() == ncclSuccess, "ncclGroupEnd of the shift");
  check(calls("ncclSend") == SendsBefore + 4, "a ring shift is forwarded");
  check(Dst[1][5] == Src[0][5] && Dst[0][7] == Src[3][7], "ring shift data");
  ncclSend(Src[2].data(), Count, ncclFloat32, 3, Comms[2], nullptr);
  ncclRecv(Dst[3].data(), Count, ncclFloat32, 2, Comms[3], nullptr);
  check(calls("ncclSend") == SendsBefore + 5 && Dst[3][9] == Src[2][9],
        "a send outside a group is forwarded");

  // A single collective in a group of its own (as PyTorch makes them):
  // served; two collectives of one communicator in a group: forwarded.
  for (auto &O : Out)
    std::fill(O.begin(), O.end(), -1.0f);
  Fwd = allRanks(Comms, "ncclAllGather", [&](int R, ncclComm_t C) {
    ncclGroupStart();
    ncclAllGather(In[size_t(R)].data(), Out[size_t(R)].data(), Count,
                  ncclFloat32, C, nullptr);
    return ncclGroupEnd();
  });
  check(Fwd == 0, "a single grouped allgather is served");
  for (int R = 0; R < 4; ++R)
    check(Gathered(Out[size_t(R)]), "grouped allgather data");
  Fwd = allRanks(Comms, "ncclAllGather", [&](int R, ncclComm_t C) {
    ncclGroupStart();
    ncclAllGather(In[size_t(R)].data(), Out[size_t(R)].data(), Count,
                  ncclFloat32, C, nullptr);
    ncclAllReduce(A[size_t(R)].data(), B[size_t(R)].data(), Count, ncclFloat32,
                  ncclSum, C, nullptr);
    return ncclGroupEnd();
  });
  check(Fwd == 4, "two grouped collectives of a communicator are forwarded");
  check(Gathered(Out[2]) && B[1][3] == 30.0f, "forwarded group data");

  // Two ranks: no file has two, so the call is forwarded.
  std::vector<ncclComm_t> Pair(2);
  check(ncclCommInitAll(Pair.data(), 2, nullptr) == ncclSuccess,
        "ncclCommInitAll of 2");
  Fwd = allRanks(Pair, "ncclAllGather", [&](int R, ncclComm_t C) {
    return ncclAllGather(In[size_t(R)].data(), Out[size_t(R)].data(), Count,
                         ncclFloat32, C, nullptr);
  });
  check(Fwd == 2, "an allgather on 2 ranks is forwarded");
  for (ncclComm_t C : Comms)
    ncclCommDestroy(C);
  for (ncclComm_t C : Pair)
    ncclCommDestroy(C);
  check(calls("ncclCommDestroy") == 6, "ncclCommDestroy is forwarded");

  std::fflush(stderr);
  dup2(SavedErr, 2);
  std::string Said = slurp(Log);
  check(occurrences(Said, "d-broken.xml not loaded:") == 1,
        "the broken file is reported once:\n" + Said);
  check(occurrences(Said, "served by " + (Dir / "b-allgather.xml").string()) ==
            4,
        "INFO names the full allgather for each rank:\n" + Said);
  check(occurrences(Said, "served by " +
                              (Dir / "a-allgather-small.xml").string()) == 8,
        "INFO names the small allgather for the grouped calls too:\n" + Said);
  check(occurrences(Said, "served by " + (Dir / "e-alltoall.xml").string()) ==
            4,
        "INFO names the alltoall for each rank:\n" + Said);
  // What is served, said at start and at each communicator's creation.
  check(occurrences(Said, "TACCL INFO libtaccl-nccl serves collectives on "
                          "communicators whose ranks all reach each other by "
                          "loads and stores (one node, one NVLink domain); "
                          "every call on a communicator that spans nodes "
                          "goes to NCCL; across nodes, run the same TACCL-EF "
                          "files on the MSCCL executor") == 1,
        "INFO says once what the library serves:\n" + Said);
  check(occurrences(Said, std::string(Argv[1]) + " (version 2.28.9)") == 1,
        "INFO names the real NCCL and its version:\n" + Said);
  for (int R = 0; R < 4; ++R)
    check(occurrences(Said, "TACCL INFO rank " + std::to_string(R) +
                                ": serving 4 ranks in this process with the "
                                "cpu backend and 4 algorithms for 4 ranks; "
                                "calls on communicators that span nodes go "
                                "to NCCL\n") == 1,
          "INFO says rank " + std::to_string(R) + " of 4 is served:\n" + Said);
  check(occurrences(Said, ": every call of this communicator of 2 ranks goes "
                          "to NCCL: no loaded algorithm is for 2 ranks "
                          "(TACCL_ALGO_DIR)\n") == 2,
        "INFO says the 2-rank communicators are not served:\n" + Said);
  fs::remove_all(Dir);
  if (Failures == 0)
    std::printf("shim: forwarded and served calls right, the broken file "
                "reported once\n");
  return Failures == 0 ? 0 : 1;
}
