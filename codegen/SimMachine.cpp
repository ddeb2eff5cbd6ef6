//===- codegen/SimMachine.cpp - A sketch's machine for the simulator ------===//
//
// Every resource of the topology that some link uses (a NIC side, a switch
// port) becomes one shared port of the simulator, served at the bandwidth
// of its first link; links between nodes are network links, the others
// intra-node links. A call's size is the sketch's, in the runtime's
// measure (codegen/Codegen.h, runtimeBytes), rounded up so that every chunk
// holds whole 4-byte elements.
//
//===----------------------------------------------------------------------===//
#include "codegen/SimMachine.h"
#include "codegen/Codegen.h"

#include "support/Deadline.h"

#include <algorithm>

using namespace tacclc;

tacclrt::SimMachine tacclc::toSimMachine(ir::Topology T, double ChunkBytes) {
  T.applyCostsAt(ChunkBytes);
  tacclrt::SimMachine M;
  M.Name = T.getName().str();
  M.NRanks = static_cast<int>(T.getNumRanks());
  std::vector<std::vector<int>> PortsOf(T.links().size());
  for (const ir::Resource &R : T.resources()) {
    if (R.Links.empty())
      continue;
    int Port = static_cast<int>(M.Ports.size());
    M.Ports.push_back({R.Name, T.link(R.Links.front()).BetaUsPerB});
    for (ir::LinkId L : R.Links)
      PortsOf[L.index()].push_back(Port);
  }
  for (size_t I = 0; I < T.links().size(); ++I) {
    const ir::Link &L = T.links()[I];
    M.Links.push_back(
        {static_cast<int>(L.Src.index()), static_cast<int>(L.Dst.index()),
         L.AlphaUs, L.BetaUsPerB, L.Multiplicity, PortsOf[I],
         T.nodeOf(L.Src) == T.nodeOf(L.Dst) ? tacclrt::LinkKind::Intra
                                            : tacclrt::LinkKind::Net});
  }
  return M;
}

std::optional<SketchCall> tacclc::sketchCall(const tacclrt::Algo &A,
                                             const ir::Sketch &S) {
  if (A.NChunksPerLoop <= 0)
    return std::nullopt;
  uint64_t Unit = 4 * uint64_t(A.NChunksPerLoop);
  uint64_t Bytes = runtimeBytes(S.Coll, S.SizeBytes);
  Bytes = std::max<uint64_t>(Unit, (Bytes + Unit - 1) / Unit * Unit);
  SketchCall C;
  C.Options.Bytes = Bytes;
  C.Machine = toSimMachine(S.Topo, double(Bytes) / A.NChunksPerLoop);
  return C;
}

std::optional<tacclrt::SimResult> tacclc::simulatedCall(const tacclrt::Algo &A,
                                                        const ir::Sketch &S,
                                                        long MaxFlowUpdates,
                                                        bool *Stopped) {
  try {
    PhaseScope Phase("simulating the program");
    std::optional<SketchCall> C = sketchCall(A, S);
    if (!C)
      return std::nullopt;
    C->Options.MaxFlowUpdates = MaxFlowUpdates;
    tacclrt::SimResult R = tacclrt::simulate(A, C->Machine, C->Options);
    if (Stopped)
      *Stopped = R.Stopped;
    if (!R.Ok)
      return std::nullopt;
    return R;
  } catch (const TimeLimitExceeded &) {
    return std::nullopt;
  }
}

std::optional<double> tacclc::simulatedUs(const tacclrt::Algo &A,
                                          const ir::Sketch &S) {
  std::optional<tacclrt::SimResult> R = simulatedCall(A, S);
  if (!R)
    return std::nullopt;
  return R->TimeUs;
}
