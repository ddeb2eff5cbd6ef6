//===- codegen/PaceNics.cpp - Sends through a NIC in turn -----------------===//
//
// A schedule serves each shared port one message at a time: stage 2 orders
// a NIC's transfers and starts each when the one before it is through. The
// lowered program has no such order between threadblocks: the sends a rank
// makes to different nodes sit in threadblocks of their own and all start
// at once. A NIC shared fairly by all of them (as real NICs are, and as
// SimGrid and our simulator model them) then delivers every message at the
// end, and the relays that were to forward the first ones early over
// NVLink wait for the last. On 64 DGX-H100 nodes that halves the speed.
//
// Pacing restores the schedule's order with the waits MSCCL has: a step may
// only wait for a step of its own rank, in the same pass over the buffer.
// A send is complete once its data is in the connection's FIFO, long before
// it is delivered, so waiting for the previous send would pace nothing. A
// receive completes on delivery, so the pacing step is a receive: for each
// pair of consecutive sends p, i of one rank through its NIC, send i waits
// for the receive through the same NIC that the schedule completes last in
// (start of p, start of i]: in the pairwise exchanges of collectives over
// symmetric machines, a message that arrives while p leaves. A send that
// already waits for a step the schedule completes in that window keeps its
// waits (LowerToProgram.cpp).
//
// Only NICs are paced. Switch ports (NVSwitch) were measured paced too and
// never gained: their messages are short, and the waits cost relay fusion
// and steps. Nor does pacing help where a chunk takes several buffer
// slices: the waits hold within one slice, and the first sends of every
// slice still start together; the driver keeps a paced program only where
// it simulates faster (EmitVerified.cpp).
//
// Every wait added is on a step the schedule completes no later than its
// waiter starts; like the lowering's other waits, it follows the
// schedule's time, so the program cannot deadlock (FuseRelays.cpp has the
// argument), and the checker confirms it.
//
//===----------------------------------------------------------------------===//
#include "codegen/LoweringInternal.h"

#include <algorithm>
#include <climits>
#include <map>

using namespace tacclc;
using namespace tacclc::ir;

namespace {
/// Times closer than this are equal (microseconds).
constexpr double Eps = 1e-9;

/// Receives of one rank through one NIC: (schedule end, transfer), sorted.
using Arrivals = std::vector<std::pair<double, int>>;

/// The transfer of \p A that ends last in (\p Lo, \p Hi], or -1.
int latestIn(const Arrivals &A, double Lo, double Hi) {
  auto It = std::upper_bound(A.begin(), A.end(),
                             std::pair<double, int>(Hi + Eps, INT_MAX));
  if (It == A.begin())
    return -1;
  --It;
  return It->first > Lo + Eps ? It->second : -1;
}
} // namespace

std::vector<NicPace> tacclc::paceNics(const Topology &Topo,
                                      const Schedule &Sch) {
  const std::vector<Resource> Ports = Topo.resources();
  const std::vector<Transfer> &Ts = Sch.Transfers;
  std::vector<NicPace> Pace(Ts.size());

  // The NIC sides each link leaves and enters by, and each NIC's receive
  // side.
  std::vector<std::vector<unsigned>> OutBy(Topo.links().size()),
      InBy(Topo.links().size());
  std::map<unsigned, unsigned> IngressOf;
  for (unsigned R = 0; R < Ports.size(); ++R) {
    if (!Ports[R].Nic)
      continue;
    for (LinkId L : Ports[R].Links)
      (Ports[R].Egress ? OutBy : InBy)[L.index()].push_back(R);
    if (!Ports[R].Egress)
      IngressOf[Ports[R].Port] = R;
  }

  // Receives by (receive side, rank); sends by (send side, rank), in
  // schedule order.
  std::map<std::pair<unsigned, unsigned>, Arrivals> AtPort;
  std::map<std::pair<unsigned, unsigned>, std::vector<int>> Queues;
  for (int I = 0; I < int(Ts.size()); ++I) {
    const Link &L = Topo.link(Ts[I].Link);
    for (unsigned R : InBy[Ts[I].Link.index()])
      AtPort[{R, L.Dst.index()}].push_back({Ts[I].EndUs, I});
    for (unsigned R : OutBy[Ts[I].Link.index()])
      Queues[{R, L.Src.index()}].push_back(I);
  }
  for (auto &[Key, A] : AtPort)
    std::sort(A.begin(), A.end());

  for (const auto &[Key, Queue] : Queues) {
    const auto [R, Rank] = Key;
    auto In = IngressOf.find(Ports[R].Port);
    if (In == IngressOf.end())
      continue;
    auto Arrived = AtPort.find({In->second, Rank});
    if (Arrived == AtPort.end())
      continue;
    for (size_t K = 1; K < Queue.size(); ++K) {
      const double Lo = Ts[Queue[K - 1]].StartUs, Hi = Ts[Queue[K]].StartUs;
      const int J = latestIn(Arrived->second, Lo, Hi);
      NicPace &P = Pace[Queue[K]];
      if (J >= 0 && (P.Recv < 0 || Ts[J].EndUs > Ts[P.Recv].EndUs))
        P = {J, Lo};
    }
  }
  return Pace;
}
