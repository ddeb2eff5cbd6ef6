//===- ir/Routes.h - Output of the routing stage ----------------*- C++ -*-===//
//
// For every chunk, the set of links it travels: a tree rooted at the chunk's
// source that reaches every rank of its postcondition. Links are listed in
// the order they become usable (a parent link before its children), which is
// the order the scheduler and printers walk them.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_IR_ROUTES_H
#define TACCLC_IR_ROUTES_H

#include "ir/Ids.h"

#include <string>
#include <vector>

namespace tacclc::ir {

/// The links one chunk uses.
struct ChunkRoute {
  ChunkId Chunk;
  std::vector<LinkId> Links;
};

/// Routes of every chunk, indexed by chunk.
struct Routes {
  std::vector<ChunkRoute> Chunks;
  /// Makespan of the routing model (bandwidth relaxed), microseconds.
  double RelaxedMakespanUs = 0;
  /// How the routing model was solved ("optimal", "feasible", ...).
  std::string SolverStatus;
};

} // namespace tacclc::ir

#endif // TACCLC_IR_ROUTES_H
