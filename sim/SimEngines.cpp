//===- sim/SimEngines.cpp - Choosing a simulation engine ------------------===//
//
// The engines' names and the one entry point that runs any of them: the
// in-house engine directly, a SimGrid engine through SimGridRun.h.
//
//===----------------------------------------------------------------------===//
#include "sim/SimGridRun.h"

#include "format/IssueSink.h"

namespace tacclrt {

std::optional<SimEngineKind> parseSimEngine(std::string_view Name) {
  if (Name == "inhouse")
    return SimEngineKind::InHouse;
  if (Name == "simgrid" || Name == "simgrid:cm02")
    return SimEngineKind::SimGrid;
  if (Name == "simgrid:lv08")
    return SimEngineKind::SimGridLv08;
  if (Name == "simgrid:ns3")
    return SimEngineKind::SimGridNs3;
  return std::nullopt;
}

const char *nameOf(SimEngineKind K) {
  switch (K) {
  case SimEngineKind::InHouse:
    return "inhouse";
  case SimEngineKind::SimGrid:
    return "simgrid";
  case SimEngineKind::SimGridLv08:
    return "simgrid:lv08";
  case SimEngineKind::SimGridNs3:
    return "simgrid:ns3";
  }
  return "inhouse";
}

bool engineAvailable(SimEngineKind K, std::string &Why) {
  if (K == SimEngineKind::InHouse)
    return true;
  return simgridAvailable(K, Why);
}

SimResult simulateOn(SimEngineKind K, const Algo &A, const SimMachine &M,
                     const SimOptions &Opts, std::string_view FileName) {
  if (K == SimEngineKind::InHouse)
    return simulate(A, M, Opts, FileName);
  std::string Why;
  if (!simgridAvailable(K, Why)) {
    SimResult Out;
    IssueSink Sink(Out.Issues, FileName);
    Sink.report<MsgId::EngineUnavailable>(Where(), nameOf(K), Why);
    return Out;
  }
  return simulateSimGrid(K, A, M, Opts, FileName);
}

} // namespace tacclrt
