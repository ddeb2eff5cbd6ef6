//===- shim/ShimCpu.cpp - Served calls on the CPU executor ----------------===//
//
// The cpu backend (ShimBackend.h): calls of one clique are collected until
// every rank has made its part (each must name the same algorithm and call
// shape), then the CPU executor runs them over the callers' host buffers
// (executeOnCpu) and the last caller returns its outcome; earlier callers
// have already returned ncclSuccess, as NCCL's asynchronous calls do.
//
//===----------------------------------------------------------------------===//
#include "shim/ShimBackend.h"

#include "exec/CpuExecutor.h"

#include <map>
#include <mutex>
#include <vector>

using namespace tacclrt;
using namespace tacclrt::shim;

namespace {

class CpuBackend : public ShimBackend {
public:
  const char *name() const override { return "cpu"; }

  /// Only communicators whose ranks all live in this process (made by one
  /// ncclCommInitAll): the call runs when the last of them has made it.
  const char *scope() const override { return "in this process"; }

  Decline declines(const CommInfo &C) const override {
    return C.SharedProcess ? Decline::None : Decline::SeparateProcesses;
  }

  ncclResult_t run(const CommInfo &C, const ServedCall &Call,
                   std::string &Why) override {
    std::lock_guard<std::mutex> Lock(M);
    Pending &P = Cliques[C.Clique];
    if (P.Arrived == 0) {
      P.Algo = Call.Algo;
      P.Shape = Call.Shape;
      P.In.assign(size_t(C.NRanks), nullptr);
      P.Out.assign(size_t(C.NRanks), nullptr);
    } else if (P.Algo != Call.Algo || P.Shape.Count != Call.Shape.Count ||
               P.Shape.Coll != Call.Shape.Coll ||
               P.Shape.Type != Call.Shape.Type || P.Shape.Op != Call.Shape.Op ||
               P.Shape.InPlace != Call.Shape.InPlace ||
               P.Shape.Root != Call.Shape.Root) {
      Why = "the ranks of a communicator made different calls";
      P = Pending();
      return ncclInvalidUsage;
    }
    if (C.Rank < 0 || C.Rank >= C.NRanks || P.Out[size_t(C.Rank)]) {
      Why = "a rank made its part of a call twice";
      P = Pending();
      return ncclInvalidUsage;
    }
    P.In[size_t(C.Rank)] = Call.Send;
    P.Out[size_t(C.Rank)] = Call.Recv;
    if (++P.Arrived < unsigned(C.NRanks))
      return ncclSuccess;
    RunOptions O;
    O.Type = *P.Shape.Type;
    O.Op = P.Shape.Op.value_or(ReduceOp::Sum);
    O.InPlace = P.Shape.InPlace;
    O.Root = P.Shape.Root;
    O.Bytes = AlgoRegistry::callBytes(P.Shape, sizeOf(O.Type));
    RunResult R = executeOnCpu(P.Algo->A, O, P.In, P.Out, P.Algo->Path);
    P = Pending();
    if (!R.Ok) {
      Why = R.Summary;
      return ncclInternalError;
    }
    return ncclSuccess;
  }

private:
  struct Pending {
    const LoadedAlgo *Algo = nullptr;
    CallShape Shape;
    std::vector<const void *> In;
    std::vector<void *> Out;
    unsigned Arrived = 0;
  };
  std::mutex M;
  std::map<std::uint64_t, Pending> Cliques;
};

} // namespace

std::unique_ptr<ShimBackend> tacclrt::shim::makeCpuBackend() {
  return std::make_unique<CpuBackend>();
}
