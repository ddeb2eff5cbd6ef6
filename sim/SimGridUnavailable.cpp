//===- sim/SimGridUnavailable.cpp - Builds without SimGrid ----------------===//
//
// Where SimGrid was not found at build time, every SimGrid engine is refused
// with the reason and how to get it.
//
//===----------------------------------------------------------------------===//
#include "sim/SimGridRun.h"

#include "format/IssueSink.h"

namespace tacclrt {

bool simgridAvailable(SimEngineKind, std::string &Why) {
  Why = "this build has no SimGrid (install libsimgrid-dev, which "
        "scripts/bootstrap does, and reconfigure)";
  return false;
}

std::string describeSimGridEngines() {
  return "SimGrid engines: not built (no SimGrid when this build was "
         "configured)";
}

SimResult simulateSimGrid(SimEngineKind K, const Algo &, const SimMachine &,
                          const SimOptions &, std::string_view FileName) {
  SimResult Out;
  IssueSink Sink(Out.Issues, FileName);
  std::string Why;
  simgridAvailable(K, Why);
  Sink.report<MsgId::SimGridUnavailable>(Where(), Why);
  return Out;
}

} // namespace tacclrt
