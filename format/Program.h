//===- format/Program.h - Executable view of a plan -------------*- C++ -*-===//
//
// Internal model shared by the symbolic checker and the CPU executor. It
// turns each threadblock's XML steps into the operations the MSCCL runtime
// really executes: nops disappear, their dependencies move onto the next
// operation, and every operation gets the step number the kernel publishes
// (which differs from the XML position after a dependency-less nop). It also
// re-checks the structural invariants both executors index by, so that a
// hand-built Algo can never make them read out of bounds.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_FORMAT_PROGRAM_H
#define TACCLC_FORMAT_PROGRAM_H

#include "format/IssueSink.h"
#include "format/Plan.h"

#include <optional>
#include <vector>

namespace tacclrt {

/// Wait until threadblock Tb (same rank) has published step >= Step.
struct Dependency {
  /// The threadblock waited for.
  int Tb = 0;
  /// The XML step index waited for (compared with published step numbers).
  int Step = 0;
};

/// One operation the kernel executes (never a nop).
struct Operation {
  /// The XML step.
  const Step *S = nullptr;
  /// Position of the step in its threadblock.
  int Pos = 0;
  /// All dependencies waited for before the operation (from preceding nops
  /// and the step itself).
  std::vector<Dependency> Deps;
  /// The step number published after it when hasdep=1.
  int PublishedStep = 0;
};

/// One threadblock ready to run.
struct TbProgram {
  /// The rank.
  int Rank = 0;
  /// The tb id (== index in its rank).
  int Id = 0;
  /// Send peer or -1.
  int Send = -1;
  /// Recv peer or -1.
  int Recv = -1;
  /// Channel.
  int Chan = 0;
  /// The XML threadblock.
  const Tb *T = nullptr;
  /// The operations in order.
  std::vector<Operation> Ops;
};

/// All threadblocks of all ranks: Ranks[R][T].
struct Program {
  /// Threadblocks per rank, indexed by id.
  std::vector<std::vector<TbProgram>> Ranks;
};

/// Checks that \p A is safe to execute (ranks and tbs in id order, peers,
/// counts and dependency targets in range) and builds its Program; reports
/// violations to \p Sink and returns std::nullopt on any.
std::optional<Program> buildProgram(const Algo &A, IssueSink &Sink);

/// The location of step \p Pos of tb \p TbId on rank \p Rank of \p A, with
/// its XML line when known.
Where stepWhere(const Algo &A, int Rank, int TbId, int Pos);

} // namespace tacclrt

#endif // TACCLC_FORMAT_PROGRAM_H
