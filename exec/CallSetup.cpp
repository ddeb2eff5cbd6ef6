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
#include "format/Dialect.h"

#include <fmt/format.h>

#include <algorithm>

using namespace tacclrt;

bool tacclrt::prepareCall(const Algo &A, const RunOptions &O, IssueSink &Sink,
                          Report &Out, std::string_view FileName,
                          CallSetup &S) {
  const TypeOps *Ty = typeOps(O.Type);
  if (!Ty) {
    Sink.report<MsgId::UnsupportedDataType>(Where(), nameOf(O.Type));
    return false;
  }
  if (isReduction(A.Coll) && O.Op == ReduceOp::Avg) {
    Sink.report<MsgId::AvgNotScheduled>(Where());
    return false;
  }
  if (O.InPlace && !A.InPlace) {
    Sink.report<MsgId::NoInPlaceCalls>(Where());
    return false;
  }
  if (!O.InPlace && !A.OutOfPlace) {
    Sink.report<MsgId::NoOutOfPlaceCalls>(Where());
    return false;
  }
  unsigned N = static_cast<unsigned>(A.NGpus);
  std::uint64_t Mult = sizeMultiplier(A.Coll, N);
  if (O.Bytes == 0 || O.Bytes % (Ty->Size * Mult) != 0) {
    Sink.report<MsgId::BadCallSize>(Where(), O.Bytes, Ty->Size * Mult, Mult,
                                    Mult == 1 ? "" : "s", Ty->Size);
    return false;
  }
  std::uint64_t Total = O.Bytes / Ty->Size;
  int Root = O.Root >= 0 ? O.Root : A.Root;
  if (isRooted(A.Coll) && Root < 0) {
    Sink.report<MsgId::RunFromRootZero>(Where(), nameOf(A.Coll));
    Root = 0;
  }
  std::optional<CollectiveLayout> L =
      describeCollective(A.Coll, N, Total / Mult, O.InPlace, Out, FileName,
                         static_cast<unsigned>(std::max(Root, 0)));
  if (!L)
    return false;
  std::uint64_t Chunks = static_cast<std::uint64_t>(A.NChunksPerLoop);
  if (Total % Chunks != 0) {
    Sink.report<MsgId::CountNotChunkMultiple>(Where(), Total, Chunks, O.Bytes);
    return false;
  }
  if (!selectsSize(A, O.Bytes,
                   O.LegacySizeRange ? Dialect::Legacy : Dialect::Executor))
    Sink.report<MsgId::SizeOutsideRange>(
        Where(), O.Bytes, A.MinBytes, A.MaxBytes,
        O.LegacySizeRange ? " (exclusive)" : "");
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
    Sink.report<MsgId::TooManyIterations>(Where(), Iters, MaxIterations);
    return false;
  }
  S.Cfg.Iterations = static_cast<long>(Iters);
  return true;
}
