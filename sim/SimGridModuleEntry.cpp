//===- sim/SimGridModuleEntry.cpp - The module's one exported symbol ------===//
//
// tacclc-simgrid.so is SimGridEngine.cpp, the static libraries it uses and
// this entry point; everything else in it is hidden, so its copies of our
// libraries never meet the loading binary's.
//
//===----------------------------------------------------------------------===//
#include "sim/SimGridModule.h"

extern "C" __attribute__((visibility("default"))) const tacclrt::SimGridModule *
tacclcSimGridModule() {
  static constexpr tacclrt::SimGridModule Table = [] {
    tacclrt::SimGridModule T = tacclrt::layoutOfThisBuild();
    T.Run = &tacclrt::runOnSimGrid;
    return T;
  }();
  return &Table;
}
