//===- sim/SimCall.cpp - What every simulation engine shares --------------===//
//
// The call's sizes as the MSCCL runtime derives them, and the protocols'
// costs. The protocol figures and their public sources:
//   - LL sends 8 data bytes and an 8-byte flag per 16-byte store, LL128 120
//     data bytes per 128-byte line (NCCL's src/device/prims_ll.h and
//     prims_ll128.h; NCCL_LL128_DATAELEMS in src/include/device.h);
//   - a connection's FIFO has NCCL_STEPS = 8 steps; a Simple step is an
//     eighth of its 4 MiB buffer, an LL or LL128 step one slice
//     (src/include/device.h, src/transport/p2p.cc);
//   - the per-hop latencies and base latencies are those of NCCL's ring
//     tuning model (src/graph/tuning.cc, hwLat and baseLat): NVLink hop
//     LL 0.6, LL128 1.9, Simple 3.4 us; network hop 2.7, 4.0, 14 us; base
//     LL 6.6, LL128 14, Simple 8.4 us. A hop costs the larger of the link's
//     own alpha and the protocol's figure, so slow links keep their
//     profiled latency.
//
//===----------------------------------------------------------------------===//
#include "sim/SimCall.h"

#include "format/Collective.h"
#include "format/LineFormat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tacclrt {

ProtocolCosts protocolCosts(Protocol P) {
  ProtocolCosts C;
  switch (P) {
  case Protocol::LL:
    C.HopUs[0] = 0.6;
    C.HopUs[1] = 2.7;
    C.LaunchUs = 6.6;
    break;
  case Protocol::LL128:
    C.HopUs[0] = 1.9;
    C.HopUs[1] = 4.0;
    C.LaunchUs = 14.0;
    break;
  case Protocol::Simple:
    C.WirePerDataByte = 1;
    C.HopUs[0] = 3.4;
    C.HopUs[1] = 14.0;
    C.LaunchUs = 8.4;
    // A 4 MiB buffer of 8 steps: a full 2 MiB slice takes 4 of them.
    C.StepBytes = 512 << 10;
    break;
  }
  // LL and LL128: the line format the executors use (format/LineFormat.h).
  if (usesLines(P)) {
    LineFormat F = lineFormatOf(P);
    C.WirePerDataByte = double(F.LineBytes) / F.DataBytes;
    C.StepBytes = slotDataBytes(P);
  }
  return C;
}

double hopLatencyUs(const SimLink &L, Protocol P, const SimOptions &O) {
  if (!O.ProtocolOverheads)
    return L.AlphaUs;
  return std::max(L.AlphaUs,
                  protocolCosts(P).HopUs[L.Kind == LinkKind::Net ? 1 : 0]);
}

double wireBytes(double DataBytes, Protocol P, const SimOptions &O) {
  if (!O.ProtocolOverheads)
    return DataBytes;
  // Whole lines: the last one goes out padded.
  if (usesLines(P)) {
    LineFormat F = lineFormatOf(P);
    return std::ceil(DataBytes / F.DataBytes) * F.LineBytes;
  }
  return DataBytes * protocolCosts(P).WirePerDataByte;
}

double launchLatencyUs(Protocol P, const SimOptions &O) {
  return O.ProtocolOverheads ? protocolCosts(P).LaunchUs : 0;
}

double SimCallShape::messageBytes(const Step &S, long Iter) const {
  std::uint64_t Done = static_cast<std::uint64_t>(Iter) * SliceElems;
  std::uint64_t N = std::min(SliceElems, SizePerChunk - Done);
  return double(N) * double(S.Cnt) * TypeSize;
}

std::uint64_t SimCallShape::parts(const Step &S) const {
  const std::uint64_t Cnt = std::uint64_t(std::max(S.Cnt, 1));
  return (Cnt + MaxCount - 1) / MaxCount;
}

double SimCallShape::partBytes(const Step &S, long Iter,
                               std::uint64_t Part) const {
  const std::uint64_t Cnt = std::uint64_t(std::max(S.Cnt, 1));
  const std::uint64_t First = Part * MaxCount;
  const std::uint64_t Chunks =
      First >= Cnt ? 0 : std::min(MaxCount, Cnt - First);
  return messageBytes(S, Iter) / double(Cnt) * double(Chunks);
}

unsigned SimCallShape::stepsOf(double DataBytes) const {
  if (StepBytes <= 0)
    return 1;
  return static_cast<unsigned>(
      std::clamp(std::ceil(DataBytes / StepBytes), 1.0, double(Capacity)));
}

int SimCallShape::linkOf(int From, int To) const {
  auto It = LinkOf.find({From, To});
  return It == LinkOf.end() ? -1 : It->second;
}

bool shapeCall(const Algo &A, const Program &P, const SimMachine &M,
               const SimOptions &O, IssueSink &Sink, SimCallShape &Shape) {
  Where AlgoW;
  AlgoW.Line = A.Line;
  AlgoW.Col = A.Col;
  if (M.NRanks != A.NGpus) {
    Sink.report<MsgId::MachineRankMismatch>(AlgoW, A.NGpus, M.Name, M.NRanks);
    return false;
  }
  for (std::size_t L = 0; L < M.Links.size(); ++L)
    Shape.LinkOf[{M.Links[L].Src, M.Links[L].Dst}] = static_cast<int>(L);
  if (O.TypeSize == 0 || O.Bytes == 0 || O.Bytes % O.TypeSize != 0) {
    Sink.report<MsgId::BadSimSize>(AlgoW, O.Bytes, O.TypeSize);
    return false;
  }
  std::uint64_t Total = O.Bytes / O.TypeSize;
  std::uint64_t Chunks = static_cast<std::uint64_t>(A.NChunksPerLoop);
  if (Total % Chunks != 0) {
    Sink.report<MsgId::SimCountNotChunkMultiple>(AlgoW, Total, Chunks);
    return false;
  }
  Shape.TypeSize = O.TypeSize;
  Shape.SizePerChunk = Total / Chunks;
  std::uint64_t Slice =
      O.SliceBytes ? O.SliceBytes : protocolSliceBytes(A.Proto);
  Shape.SliceElems = std::max<std::uint64_t>(1, Slice / O.TypeSize);
  Shape.Iterations = static_cast<long>(
      (Shape.SizePerChunk + Shape.SliceElems - 1) / Shape.SliceElems);
  Shape.MaxCount = std::clamp<std::uint64_t>(
      Slice / (Shape.SizePerChunk * O.TypeSize), 1, 71);
  const ProtocolCosts Costs = protocolCosts(A.Proto);
  Shape.Capacity = O.FifoMessages ? O.FifoMessages : Costs.FifoSteps;
  Shape.StepBytes = O.FifoMessages ? 0 : Costs.StepBytes;
  bool Ok = true;
  for (const auto &Rank : P.Ranks)
    for (const TbProgram &T : Rank) {
      if (T.Send < 0 || Shape.linkOf(T.Rank, T.Send) >= 0)
        continue;
      Sink.report<MsgId::NoLink>(stepWhere(A, T.Rank, T.Id, -1), T.Send, M.Name,
                                 T.Rank, T.Send);
      Ok = false;
    }
  return Ok;
}

} // namespace tacclrt
