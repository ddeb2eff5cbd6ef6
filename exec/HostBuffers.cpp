//===- exec/HostBuffers.cpp - Call buffers on the host --------------------===//
//
// allocateHostBuffers(): every rank's storages with NCCL's in-place
// aliasing (one storage where input and output share memory), filled with
// the never-written sentinel and then the input pattern, plus the per-slot
// write tracking the CPU executor uses for its messages.
// verifyOutputs(): every output element the collective defines, against
// the reference computed from the collective's definition and the pattern
// alone (reductions once per input element); wrong ones are counted and the
// first few listed with their chunk and, when tracked, their last writer.
//
//===----------------------------------------------------------------------===//
#include "exec/HostBuffers.h"

#include "exec/DataTypes.h"

#include <fmt/format.h>

#include <algorithm>
#include <new>

using namespace tacclrt;

namespace {
/// Host memory the executors refuse to exceed.
constexpr std::uint64_t MaxHostBytes = std::uint64_t(16) << 30;
/// Wrong elements listed individually.
constexpr unsigned MaxListedWrong = 5;
} // namespace

bool tacclrt::allocateHostBuffers(const Algo &A, CallSetup &S,
                                  std::vector<CpuRankMemory> &Mem,
                                  IssueSink &Sink) {
  const CollectiveLayout &L = S.L;
  const TypeOps &Ty = *S.Cfg.Ty;
  std::uint64_t Spc = S.Cfg.SizePerChunk;
  std::uint64_t Need = 0;
  for (const Gpu &G : A.Gpus)
    Need += (L.InputCount + L.OutputCount +
             static_cast<std::uint64_t>(G.SChunks) * Spc) *
            Ty.Size;
  if (Need > MaxHostBytes) {
    Sink.report<MsgId::HostMemoryLimit>(Where(), Need, MaxHostBytes);
    return false;
  }
  S.Cfg.Tracking = true;
  try {
    Mem.resize(A.Gpus.size());
    for (std::size_t R = 0; R < A.Gpus.size(); ++R) {
      CpuRankMemory &M = Mem[R];
      std::uint64_t In = L.InputCount, Out = L.OutputCount;
      std::uint64_t Off = L.aliasOffset(static_cast<unsigned>(R));
      CpuView &I = M.Views[0], &O = M.Views[1], &Sc = M.Views[2];
      switch (L.Alias) {
      case Aliasing::None:
        M.Storages.resize(2);
        M.Storages[0].resize(In * Ty.Size);
        M.Storages[1].resize(Out * Ty.Size);
        I = {0, 0, In};
        O = {1, 0, Out};
        break;
      case Aliasing::SameBuffer:
        M.Storages.resize(1);
        M.Storages[0].resize(std::max(In, Out) * Ty.Size);
        I = {0, 0, In};
        O = {0, 0, Out};
        break;
      case Aliasing::InputInOutput:
        M.Storages.resize(1);
        M.Storages[0].resize(Out * Ty.Size);
        I = {0, Off, In};
        O = {0, 0, Out};
        break;
      case Aliasing::OutputInInput:
        M.Storages.resize(1);
        M.Storages[0].resize(In * Ty.Size);
        I = {0, 0, In};
        O = {0, Off, Out};
        break;
      }
      std::uint64_t Scratch =
          static_cast<std::uint64_t>(A.Gpus[R].SChunks) * Spc;
      M.Storages.emplace_back(Scratch * Ty.Size);
      Sc = {M.Storages.size() - 1, 0, Scratch};
      if (Off % Spc != 0)
        S.Cfg.Tracking = false;
      for (auto &St : M.Storages)
        Ty.FillSentinel(St.data(), St.size() / Ty.Size);
      Ty.FillInput(S.Cfg.Op, static_cast<unsigned>(R), 0,
                   M.Storages[I.Storage].data() + I.Base * Ty.Size, In);
    }
    for (std::size_t R = 0; R < Mem.size(); ++R) {
      CpuRankMemory &M = Mem[R];
      for (auto &St : M.Storages) {
        std::size_t Slots = (St.size() / Ty.Size + Spc - 1) / Spc;
        M.Written.emplace_back(new std::atomic<std::int64_t>[Slots]);
        M.Writer.emplace_back(new std::atomic<std::uint64_t>[Slots]);
        for (std::size_t K = 0; K < Slots; ++K) {
          M.Written.back()[K].store(NeverWritten);
          M.Writer.back()[K].store(0);
        }
      }
      const CpuView &I = M.Views[0];
      if (S.Cfg.Tracking)
        for (std::uint64_t E = I.Base; E < I.Base + I.Len; E += Spc)
          M.Written[I.Storage][E / Spc].store(HoldsInput);
    }
  } catch (const std::bad_alloc &) {
    Sink.report<MsgId::OutOfHostMemory>(Where(), Need);
    return false;
  }
  return true;
}

void tacclrt::verifyOutputs(const Algo &A, const CallSetup &S,
                            const std::vector<CpuRankMemory> &Mem,
                            IssueSink &Sink, RunResult &R) {
  const CollectiveLayout &L = S.L;
  const TypeOps &Ty = *S.Cfg.Ty;
  std::uint64_t Spc = S.Cfg.SizePerChunk;
  std::vector<std::byte> Reduced;
  if (isReduction(L.Coll)) {
    Reduced.resize(L.InputCount * Ty.Size);
    for (std::uint64_t K = 0; K < L.InputCount; ++K)
      Ty.Reference(S.Cfg.Op, ElementSource{true, 0, K}, L.NRanks,
                   Reduced.data() + K * Ty.Size);
  }
  std::vector<std::byte> Exp(Ty.Size);
  unsigned Listed = 0;
  for (std::size_t Rank = 0; Rank < Mem.size(); ++Rank) {
    const CpuRankMemory &M = Mem[Rank];
    const CpuView &O = M.Views[1];
    const std::byte *Data = M.Storages[O.Storage].data() + O.Base * Ty.Size;
    for (std::uint64_t E = 0; E < L.OutputCount; ++E) {
      ElementSource Src = expectedSource(L, static_cast<unsigned>(Rank), E);
      if (!Src.Checked)
        continue;
      ++R.ElementsChecked;
      const std::byte *Want = Exp.data();
      if (Src.Reduced)
        Want = Reduced.data() + Src.Index * Ty.Size;
      else
        Ty.Reference(S.Cfg.Op, Src, L.NRanks, Exp.data());
      const std::byte *Got = Data + E * Ty.Size;
      if (Ty.Equal(Got, Want))
        continue;
      ++R.WrongElements;
      if (Listed == MaxListedWrong)
        continue;
      ++Listed;
      std::string Writer;
      int WR, WT, WP;
      long WI;
      if (S.Cfg.Tracking &&
          unpackWriter(M.Writer[O.Storage][(O.Base + E) / Spc].load(), WR, WT,
                       WP, WI))
        Writer = fmt::format("; chunk last written by rank {} tb {} step {} "
                             "(iteration {})",
                             WR, WT, WP, WI);
      Where W;
      W.Rank = static_cast<int>(Rank);
      W.Line = A.Gpus[Rank].Line;
      W.Col = A.Gpus[Rank].Col;
      Sink.report<MsgId::WrongElement>(
          W, E, E / Spc, E % Spc, Ty.Print(Want), Ty.Print(Got),
          Ty.IsSentinel(Got) ? " (never written)" : "", Writer);
    }
  }
  if (R.WrongElements != 0)
    Sink.report<MsgId::WrongElements>(Where(), R.WrongElements,
                                      R.ElementsChecked);
}

std::string tacclrt::firstError(const Report &R) {
  for (const Issue &I : R)
    if (I.Sev == Issue::Error)
      return I.Message;
  return "unknown error";
}

std::string tacclrt::notRunSummary(const Report &R) {
  return "not run: " + firstError(R);
}

bool tacclrt::prepareRun(const Algo &A, const RunOptions &O, IssueSink &Sink,
                         Report &Out, std::string_view FileName,
                         PreparedRun &Run) {
  Run.P = buildProgram(A, Sink);
  return Run.P && prepareCall(A, O, Sink, Out, FileName, Run.S) &&
         allocateHostBuffers(A, Run.S, Run.Mem, Sink);
}
