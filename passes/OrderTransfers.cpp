//===- passes/OrderTransfers.cpp - Stage 2: the best of the orderings -----===//
//
// Stage 2 runs the list scheduler (passes/ListSchedule.cpp) once per
// ordering heuristic (the batched one only where a link class is
// `contiguous`) and keeps the schedule of lowest score. The heuristics
// are independent, so they run on the machine's cores, one thread per core;
// their schedules are then taken in AllOrderings order with ties to the
// first, so the choice is the same on any number of cores.
//
//===----------------------------------------------------------------------===//
#include "passes/ListSchedule.h"

#include "support/Deadline.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

using namespace tacclc;
using namespace tacclc::ir;

llvm::StringRef tacclc::orderingName(Ordering O) {
  switch (O) {
  case Ordering::EarliestStart:
    return "earliest-start";
  case Ordering::CriticalPath:
    return "critical-path";
  case Ordering::OwnNodeFirst:
    return "own-node-first";
  case Ordering::WidestSubtree:
    return "widest-subtree";
  case Ordering::Batched:
    return "batched";
  }
  return "?";
}

std::vector<Ordering> tacclc::orderingsFor(const Sketch &S) {
  bool Contiguous =
      std::find(S.ContiguousClasses.begin(), S.ContiguousClasses.end(), true) !=
      S.ContiguousClasses.end();
  std::vector<Ordering> Out;
  for (Ordering O : AllOrderings)
    if (O != Ordering::Batched || Contiguous)
      Out.push_back(O);
  return Out;
}

OrderingResult
tacclc::orderTransfers(const Sketch &S, const Routes &R,
                       llvm::function_ref<double(const Schedule &)> Score,
                       const Deadline &GiveUp, const ListStart &From) {
  PhaseScope Phase("ordering transfers");
  // The heuristics are independent: they run on the machine's cores (one
  // thread per core, at most one per heuristic) and their schedules are
  // taken in AllOrderings order, so the choice is the same on any number
  // of cores. The first always runs to the end: it is the fallback.
  const std::vector<Ordering> Orderings = orderingsFor(S);
  const size_t K = Orderings.size();
  struct Outcome {
    std::optional<Schedule> Sch;
    double Score = 0;
    std::exception_ptr Error;
  };
  std::vector<Outcome> Outs(K);
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    PhaseScope Mine("ordering transfers");
    for (size_t I; (I = Next++) < K;) {
      Outcome &O = Outs[I];
      try {
        O.Sch = listSchedule(S, R, Orderings[I], I ? GiveUp : Deadline(), From);
        if (O.Sch)
          O.Score = Score ? Score(*O.Sch) : O.Sch->MakespanUs;
      } catch (...) {
        O.Error = std::current_exception();
      }
    }
  };
  const unsigned Threads = std::clamp<unsigned>(
      std::thread::hardware_concurrency(), 1, static_cast<unsigned>(K));
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Work);
  Work();
  for (std::thread &T : Pool)
    T.join();
  OrderingResult Out;
  double BestScore = 0;
  for (size_t I = 0; I < K; ++I) {
    Outcome &O = Outs[I];
    if (O.Error)
      std::rethrow_exception(O.Error);
    if (!O.Sch)
      break;
    Out.Tried.push_back({Orderings[I], O.Score});
    if (Out.Tried.size() == 1 || O.Score < BestScore * (1 - 1e-12)) {
      BestScore = O.Score;
      Out.Best = std::move(*O.Sch);
      Out.BestOrdering = Orderings[I];
    }
  }
  return Out;
}
