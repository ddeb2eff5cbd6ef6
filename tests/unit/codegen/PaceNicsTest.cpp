//===- tests/unit/codegen/PaceNicsTest.cpp - paceNics
//----------------------===//
//
// Which receive each send through a NIC waits for (codegen/PaceNics.cpp):
// the one through the same NIC that the schedule completes last between
// the start of the rank's previous send through it and the send's own
// start; none for a rank's first send, for sends between GPUs of a node,
// or where no receive through the NIC ends in that window.
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include <doctest/doctest.h>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Four nodes of two GPUs; GPU 0 of each node has a NIC of its own, GPU 1
/// none. Links: every GPU 0 to every other node's GPU 0, and within a
/// node both ways.
Topology railMachine() {
  Topology T("rail", 4, 2);
  int Ib = T.addClass({"ib", 1, 1e-4, {}});
  for (unsigned N = 0; N < 4; ++N)
    T.addNic({Ib, {RankId(2 * N)}});
  for (unsigned A = 0; A < 4; ++A)
    for (unsigned B = 0; B < 4; ++B)
      if (A != B)
        T.addLink({RankId(2 * A), RankId(2 * B), 1, 1e-4, Ib});
  for (unsigned N = 0; N < 4; ++N) {
    T.addLink({RankId(2 * N), RankId(2 * N + 1), 1, 1e-5, Ib});
    T.addLink({RankId(2 * N + 1), RankId(2 * N), 1, 1e-5, Ib});
  }
  return T;
}

/// The link from \p Src to \p Dst.
LinkId linkOf(const Topology &T, unsigned Src, unsigned Dst) {
  for (LinkId L : T.outLinks(RankId(Src)))
    if (T.link(L).Dst.index() == Dst)
      return L;
  FAIL("no link");
  return LinkId(0);
}

/// One message of the schedule: source, destination, start, end (us).
struct Message {
  unsigned Src, Dst;
  double Start, End;
};

/// A schedule of chunk 0 moving as \p Messages say, in schedule order.
Schedule scheduleOf(const Topology &T,
                    std::initializer_list<Message> Messages) {
  Schedule Sch;
  for (const Message &M : Messages)
    Sch.Transfers.push_back(
        {ChunkId(0), linkOf(T, M.Src, M.Dst), M.Start, M.End});
  Sch.sortTransfers();
  return Sch;
}
} // namespace

TEST_CASE("a send through a NIC waits for the receive that ends in turn") {
  Topology T = railMachine();
  // Rank 0 sends to nodes 1, 2, 3 in turn and receives from 3, 2, 1 in
  // turn; each message takes 10 us and the next starts as it ends. Rank 0
  // also forwards to its node's GPU 1 (no NIC), and GPU 1 back: neither is
  // paced nor paces.
  Schedule Sch = scheduleOf(T, {{0, 2, 0, 10},
                                {6, 0, 0, 10},
                                {0, 4, 10, 20},
                                {4, 0, 10, 20},
                                {0, 6, 20, 30},
                                {2, 0, 20, 30},
                                {0, 1, 12, 13},
                                {1, 0, 14, 19.5}});
  std::vector<NicPace> Pace = paceNics(T, Sch);
  REQUIRE(Pace.size() == Sch.Transfers.size());
  auto Index = [&](unsigned Src, unsigned Dst) {
    for (size_t I = 0; I < Sch.Transfers.size(); ++I)
      if (Sch.Transfers[I].Link == linkOf(T, Src, Dst))
        return int(I);
    FAIL("no transfer");
    return -1;
  };
  // The first send through the NIC waits for nothing.
  CHECK(Pace[Index(0, 2)].Recv == -1);
  // The second waits for the receive from node 3 (ends at 10, in (0, 10]),
  // not for the one from GPU 1, which is not through the NIC.
  CHECK(Pace[Index(0, 4)].Recv == Index(6, 0));
  CHECK(Pace[Index(0, 4)].After == 0);
  CHECK(Pace[Index(0, 6)].Recv == Index(4, 0));
  CHECK(Pace[Index(0, 6)].After == 10);
  // Sends within the node are not paced.
  CHECK(Pace[Index(0, 1)].Recv == -1);
  CHECK(Pace[Index(1, 0)].Recv == -1);
}

TEST_CASE("no receive in the window: the send is not paced") {
  Topology T = railMachine();
  // The only receive through rank 0's NIC ends before its first send
  // starts, and the next receive after its second send starts.
  Schedule Sch = scheduleOf(
      T, {{2, 0, 0, 5}, {0, 4, 5, 15}, {0, 6, 15, 25}, {4, 0, 15, 25}});
  std::vector<NicPace> Pace = paceNics(T, Sch);
  for (const NicPace &P : Pace)
    CHECK(P.Recv == -1);
}
