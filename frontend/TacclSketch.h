//===- frontend/TacclSketch.h - TACCL's sketch keys as items ----*- C++ -*-===//
//
// The sketch side of `tacclc import-taccl` (frontend/TacclImport.h): the
// keys of TACCL's communication sketch JSON read into the items of a
// sketch on a known machine, every problem reported at its key.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FRONTEND_TACCLSKETCH_H
#define TACCLC_FRONTEND_TACCLSKETCH_H

#include "frontend/TacclJson.h"
#include "frontend/TacclMachines.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tacclc {

/// What a TACCL sketch says, as sketch items.
struct TacclSketch {
  int64_t Nodes = 1;  ///< `nnodes`: the machine's node count.
  int64_t Chunks = 1; ///< `hyperparameters.input_chunkup`.
  /// The items that follow `collective`, `size` and `chunks`, in order:
  /// `policy`, `relay`, `sender ... carries`, `sender first`, `symmetry`.
  std::vector<std::string> Items;
};

/// Reads the sketch document of \p R for machine \p M. Errors and warnings
/// go to the reader's diagnostics; nothing when the sketch cannot be read
/// at all (the caller checks for errors too).
std::optional<TacclSketch> readTacclSketch(JsonReader &R,
                                           const TacclMachine &M);

} // namespace tacclc

#endif // TACCLC_FRONTEND_TACCLSKETCH_H
