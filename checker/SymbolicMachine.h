//===- checker/SymbolicMachine.h - Symbolic execution engine ----*- C++ -*-===//
//
// Internal to the checker. Executes one loop iteration of a Program at chunk
// granularity: per-rank storages with the call's aliasing, one FIFO per
// (sender, receiver, channel) of bounded capacity matched purely by order,
// monotone per-threadblock flags, and deterministic round-robin scheduling.
// It reports deadlocks, unmatched or mismatched messages, uninitialised
// reads, double counting, data races between threadblocks of a rank (with
// HappensBefore's vector clocks) and, given a collective layout, every output
// chunk that differs from the collective's definition.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_CHECKER_SYMBOLICMACHINE_H
#define TACCLC_CHECKER_SYMBOLICMACHINE_H

#include "checker/HappensBefore.h"
#include "checker/SymbolicValue.h"
#include "format/Collective.h"
#include "format/IssueSink.h"
#include "format/Program.h"

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace tacclrt {

/// Buffer sizes of one symbolic call, in chunks.
struct ChunkModel {
  /// The collective layout in chunk units (Count = chunks per rank), or
  /// nothing for collectives without reference semantics yet: then buffers
  /// are sized by the declared i_chunks/o_chunks and do not alias.
  std::optional<CollectiveLayout> Layout;
  /// Require every rank that holds a reduced element to have reduced it in
  /// the same order (bitwise-identical results): an error per differing
  /// chunk. Otherwise one warning says the results may differ.
  bool IdenticalOrder = false;
};

/// One symbolic run; construct, then call run().
class SymbolicMachine {
public:
  /// Prepares storages for \p A / \p P under \p Model. With \p CheckRaces,
  /// also reports unordered conflicting accesses (or, for plans whose vector
  /// clocks would be too large, a note that races were not checked).
  SymbolicMachine(const Algo &A, const Program &P, const ChunkModel &Model,
                  unsigned FifoCapacity, IssueSink &Sink,
                  bool CheckRaces = true);

  /// Executes until every tb finished or none can progress, then reports
  /// deadlocks, leftover messages and (with a layout) the postcondition.
  void run();

private:
  /// One slot of a storage: its value and who wrote it last.
  struct Slot {
    SymValue V;
    int WRank = -1, WTb = -1, WStep = -1;
  };
  /// A buffer name mapped onto a storage.
  struct View {
    std::size_t Storage = 0;
    std::size_t Base = 0;
    std::size_t Len = 0;
  };
  /// A message in flight.
  struct Message {
    std::vector<SymValue> Vals;
    int Rank = 0, Tb = 0, Pos = 0;
    /// The sender's vector clock at the send (race detection only).
    VectorClock Clock;
  };
  /// What a blocked threadblock waits for.
  struct Wait {
    enum Kind { None, Dep, Recv, Send } K = None;
    int A = 0, B = 0;
  };
  /// Progress of one threadblock.
  struct TbState {
    std::size_t Pc = 0;
    int Phase = 0;
    bool Done = false;
    std::vector<SymValue> Held;
    Wait W;
  };
  using FifoKey = std::tuple<int, int, int>; // sender, receiver, chan

  const Algo &A;
  const Program &P;
  ChunkModel Model;
  unsigned Capacity;
  IssueSink &Sink;
  unsigned NRanks;
  std::vector<std::vector<std::vector<Slot>>> Storages; // [rank][storage]
  std::vector<std::vector<View>> Views;                 // [rank][buffer]
  std::vector<std::vector<int>> Flags;                  // [rank][tb]
  std::vector<std::vector<TbState>> States;             // [rank][tb]
  std::map<FifoKey, std::deque<Message>> Fifos;
  /// Vector clocks and slot histories; null when races are not checked.
  std::unique_ptr<HappensBefore> Hb;

  void setupRank(int Rank);
  bool advance(const TbProgram &T, TbState &St);
  void execute(const TbProgram &T, TbState &St, const Operation &Op,
               std::optional<Message> In);
  std::vector<SymValue> read(const TbProgram &T, const Operation &Op,
                             BufferKind B, int Off, const char *Purpose);
  void write(const TbProgram &T, const Operation &Op, BufferKind B, int Off,
             const std::vector<SymValue> &Vals);
  Slot *slot(int Rank, BufferKind B, std::size_t Index);
  /// Records reads (\p Writes false) or writes of \p Cnt chunks from \p Off
  /// of \p B by \p Op and reports the races they complete.
  void recordAccesses(const TbProgram &T, const Operation &Op, BufferKind B,
                      std::size_t Off, std::size_t Cnt, bool Writes);
  void reportRace(const TbProgram &T, const Operation &Op, BufferKind B,
                  std::size_t First, std::size_t Cnt, bool Writes,
                  const RaceConflict &C);
  bool inBounds(const TbProgram &T, const Operation &Op, BufferKind B, int Off);
  std::vector<SymValue> combine(const TbProgram &T, const Operation &Op,
                                const std::vector<SymValue> &X,
                                const std::vector<SymValue> &Y);

  // The end-of-run reports, in SymbolicMachineReports.cpp.

  /// Reports the deadlock and, for each blocked tb, what it waits for.
  void reportDeadlock();
  /// Says what \p T (in state \p St) waits for and how its peer stands.
  std::string describeWait(const TbProgram &T, const TbState &St);
  /// Says whether tb \p TbId of \p Rank finished or where it is blocked.
  std::string describeTb(int Rank, int TbId);
  /// The tb of \p Rank that sends to \p Peer on \p Chan (with \p Sender)
  /// or receives from it (without), or null.
  const TbProgram *findPeerTb(int Rank, int Peer, int Chan, bool Sender);
  /// Reports messages left in FIFOs; with \p OnlyStranded, only those whose
  /// receiver finished.
  void reportLeftovers(bool OnlyStranded);
  /// Compares every output chunk with the collective's definition.
  void checkPostcondition();

  Where at(const TbProgram &T, const Operation &Op) const {
    return stepWhere(A, T.Rank, T.Id, Op.Pos);
  }
};

} // namespace tacclrt

#endif // TACCLC_CHECKER_SYMBOLICMACHINE_H
