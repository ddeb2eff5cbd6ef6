//===- format/Poll.cpp - A hook in long runs ------------------------------===//
//
// One process-wide atomic function pointer: reading it costs a load, so the
// checker and the simulator may poll often.
//
//===----------------------------------------------------------------------===//
#include "format/Poll.h"

#include <atomic>

namespace {
std::atomic<tacclrt::PollHook> Hook{nullptr};
} // namespace

tacclrt::PollHook tacclrt::setPollHook(PollHook NewHook) {
  return Hook.exchange(NewHook);
}

void tacclrt::poll() {
  if (PollHook H = Hook.load(std::memory_order_relaxed))
    H();
}
