//===- exec/CallSetup.cpp - One call of a plan, before memory -------------===//
//
// prepareCall() decides everything about a call that does not need memory:
// the element type and reduction are ones the runtimes accept, the size
// makes whole elements and whole chunks of the loop, the size is inside the
// plan's range (else a warning: the runtime would pick another algorithm),
// the root is known, and the loop over slices fits the runtime's iteration
// limit. Every executor (CPU threads, the device planner) starts from it.
//
//===----------------------------------------------------------------------===//
#include "exec/CallSetup.h"
#include "exec/DataTypes.h"

#include <fmt/format.h>

#include <algorithm>

using namespace tacclrt;

bool tacclrt::prepareCall(const Algo &A, const RunOptions &O, IssueSink &Sink,
                          Report &Out, std::string_view FileName,
                          CallSetup &S) {
  const TypeOps *Ty = typeOps(O.Type);
  if (!Ty) {
    Sink.error(Where(),
               fmt::format("data type {} is not supported", nameOf(O.Type)));
    return false;
  }
  if (isReduction(A.Coll) && O.Op == ReduceOp::Avg) {
    Sink.error(Where(), "reduction 'avg' is not scheduled by the MSCCL "
                        "runtimes (sum, prod, min and max only)");
    return false;
  }
  if (O.InPlace && !A.InPlace) {
    Sink.error(Where(), "the plan does not serve in-place calls (inplace=0)");
    return false;
  }
  if (!O.InPlace && !A.OutOfPlace) {
    Sink.error(Where(), "the plan does not serve out-of-place calls "
                        "(outofplace=0)");
    return false;
  }
  unsigned N = static_cast<unsigned>(A.NGpus);
  std::uint64_t Mult = sizeMultiplier(A.Coll, N);
  if (O.Bytes == 0 || O.Bytes % (Ty->Size * Mult) != 0) {
    Sink.error(Where(), fmt::format("size {} B is not a positive multiple of "
                                    "{} B ({} element{} of {} B per rank)",
                                    O.Bytes, Ty->Size * Mult, Mult,
                                    Mult == 1 ? "" : "s", Ty->Size));
    return false;
  }
  std::uint64_t Total = O.Bytes / Ty->Size;
  int Root = O.Root >= 0 ? O.Root : A.Root;
  if (isRooted(A.Coll) && Root < 0) {
    Sink.warning(Where(), fmt::format("the plan names no root (attribute "
                                      "root); running a {} from root 0",
                                      nameOf(A.Coll)));
    Root = 0;
  }
  std::optional<CollectiveLayout> L =
      describeCollective(A.Coll, N, Total / Mult, O.InPlace, Out, FileName,
                         static_cast<unsigned>(std::max(Root, 0)));
  if (!L)
    return false;
  std::uint64_t Chunks = static_cast<std::uint64_t>(A.NChunksPerLoop);
  if (Total % Chunks != 0) {
    Sink.error(Where(), fmt::format("count_total={} elements is not a multiple "
                                    "of nchunksperloop={}: the runtime would "
                                    "not select this algorithm for a {} B "
                                    "call",
                                    Total, Chunks, O.Bytes));
    return false;
  }
  bool AboveMax = O.LegacySizeRange ? O.Bytes >= A.MaxBytes
                                    : (A.MaxBytes != 0 && O.Bytes > A.MaxBytes);
  if (O.Bytes < A.MinBytes || AboveMax)
    Sink.warning(Where(), fmt::format("{} B is outside the algorithm's range "
                                      "minBytes={} maxBytes={}{}: the runtime "
                                      "would not select it",
                                      O.Bytes, A.MinBytes, A.MaxBytes,
                                      O.LegacySizeRange ? " (exclusive)" : ""));
  S.L = *L;
  S.Cfg.Ty = Ty;
  S.Cfg.Op = O.Op;
  S.Cfg.SizePerChunk = Total / Chunks;
  std::size_t SliceBytes =
      O.SliceBytes ? O.SliceBytes : protocolSliceBytes(A.Proto);
  S.Cfg.SliceElems = std::max<std::uint64_t>(1, SliceBytes / Ty->Size);
  std::uint64_t Iters =
      (S.Cfg.SizePerChunk + S.Cfg.SliceElems - 1) / S.Cfg.SliceElems;
  if (Iters > MaxIterations) {
    Sink.error(Where(), fmt::format("the call needs {} loop iterations; the "
                                    "runtime supports at most {} "
                                    "(MSCCL_MAX_ITER): use a larger slice",
                                    Iters, MaxIterations));
    return false;
  }
  S.Cfg.Iterations = static_cast<long>(Iters);
  return true;
}
