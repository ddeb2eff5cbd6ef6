//===- checker/SymbolicMachineReports.cpp - End-of-run reports ------------===//
//
// What SymbolicMachine says once no threadblock can move any more: the
// deadlock with one line per blocked threadblock and what it waits for
// (a dependency, a message or room in a full channel, and the state of the
// peer it waits on), the messages left in a FIFO that nobody receives, and
// the postcondition: every output chunk against the collective's definition,
// including the order of reductions across ranks.
//
//===----------------------------------------------------------------------===//
#include "checker/SymbolicMachine.h"

#include <fmt/format.h>

#include <map>
#include <string>

namespace tacclrt {

const TbProgram *SymbolicMachine::findPeerTb(int Rank, int Peer, int Chan,
                                             bool Sender) {
  for (const TbProgram &T : P.Ranks[static_cast<std::size_t>(Rank)])
    if ((Sender ? T.Send : T.Recv) == Peer && T.Chan == Chan)
      return &T;
  return nullptr;
}

std::string SymbolicMachine::describeTb(int Rank, int TbId) {
  const TbState &St =
      States[static_cast<std::size_t>(Rank)][static_cast<std::size_t>(TbId)];
  if (St.Done)
    return fmt::format("rank {} tb {} has finished", Rank, TbId);
  const TbProgram &T =
      P.Ranks[static_cast<std::size_t>(Rank)][static_cast<std::size_t>(TbId)];
  return fmt::format("rank {} tb {} is blocked at step {}", Rank, TbId,
                     T.Ops[St.Pc].Pos);
}

std::string SymbolicMachine::describeWait(const TbProgram &T,
                                          const TbState &St) {
  switch (St.W.K) {
  case Wait::Dep: {
    int Flag = Flags[static_cast<std::size_t>(T.Rank)]
                    [static_cast<std::size_t>(St.W.A)];
    return fmt::format("blocked waiting for tb {} step {} (dependency); {}{}",
                       St.W.A, St.W.B, describeTb(T.Rank, St.W.A),
                       Flag < 0 ? ", having published no step"
                                : fmt::format(", having published up to "
                                              "step {}",
                                              Flag));
  }
  case Wait::Recv: {
    const TbProgram *Peer = findPeerTb(St.W.A, T.Rank, St.W.B, true);
    return fmt::format(
        "blocked waiting for a message from rank {} on chan {}; {}", St.W.A,
        St.W.B,
        Peer ? describeTb(Peer->Rank, Peer->Id)
             : fmt::format("no threadblock of rank {} sends to rank {} on "
                           "chan {}",
                           St.W.A, T.Rank, St.W.B));
  }
  case Wait::Send: {
    const TbProgram *Peer = findPeerTb(St.W.A, T.Rank, St.W.B, false);
    return fmt::format(
        "blocked waiting to send to rank {} on chan {} (the channel is full); "
        "{}",
        St.W.A, St.W.B,
        Peer ? describeTb(Peer->Rank, Peer->Id)
             : fmt::format("no threadblock of rank {} receives from rank {} "
                           "on chan {}",
                           St.W.A, T.Rank, St.W.B));
  }
  case Wait::None:
    break;
  }
  return "blocked";
}

void SymbolicMachine::reportDeadlock() {
  std::size_t Blocked = 0;
  for (const auto &Rank : States)
    for (const TbState &St : Rank)
      Blocked += !St.Done;
  Sink.report<MsgId::Deadlock>(Where(), Blocked, Blocked == 1 ? "" : "s");
  for (unsigned R = 0; R < NRanks; ++R)
    for (std::size_t T = 0; T < P.Ranks[R].size(); ++T) {
      const TbState &St = States[R][T];
      if (St.Done)
        continue;
      const TbProgram &TP = P.Ranks[R][T];
      Sink.report<MsgId::BlockedThreadblock>(at(TP, TP.Ops[St.Pc]),
                                             describeWait(TP, St));
    }
}

void SymbolicMachine::reportLeftovers(bool OnlyStranded) {
  for (const auto &[Key, Queue] : Fifos) {
    auto [From, To, Chan] = Key;
    const TbProgram *Receiver = findPeerTb(To, From, Chan, false);
    // After a deadlock, messages whose receiver is blocked may still be
    // part of the knot; those whose receiver finished are stranded.
    if (OnlyStranded && Receiver &&
        !States[static_cast<std::size_t>(To)]
               [static_cast<std::size_t>(Receiver->Id)]
                   .Done)
      continue;
    for (const Message &M : Queue)
      Sink.report<MsgId::MessageNeverReceived>(
          stepWhere(A, M.Rank, M.Tb, M.Pos), To, Chan,
          Receiver ? fmt::format(" (rank {} tb {} receives "
                                 "fewer messages)",
                                 To, Receiver->Id)
                   : fmt::format(" (no threadblock of rank {} "
                                 "receives from rank {} on "
                                 "chan {})",
                                 To, From, Chan));
  }
}

/// The most reduction-order errors listed per call.
constexpr unsigned MaxOrderReports = 16;

void SymbolicMachine::checkPostcondition() {
  const CollectiveLayout &L = *Model.Layout;
  // Input element -> (the first rank holding its reduction, its order).
  std::map<std::uint64_t, std::pair<unsigned, std::uint64_t>> FirstOrder;
  bool Warned = false;
  unsigned Reported = 0;
  for (unsigned R = 0; R < NRanks; ++R) {
    const Gpu &G = A.Gpus[R];
    for (std::uint64_t K = 0; K < L.OutputCount; ++K) {
      const Slot *S = slot(static_cast<int>(R), BufferKind::Output,
                           static_cast<std::size_t>(K));
      if (!S)
        continue;
      ElementSource Src = expectedSource(L, R, K);
      if (!Src.Checked)
        continue;
      SymValue Exp;
      Exp.Init = true;
      if (Src.Reduced)
        for (unsigned Q = 0; Q < NRanks; ++Q)
          Exp.Parts.push_back({Q, static_cast<unsigned>(Src.Index)});
      else
        Exp.Parts.push_back({Src.Rank, static_cast<unsigned>(Src.Index)});
      Where W;
      W.Line = G.Line;
      W.Col = G.Col;
      W.Rank = static_cast<int>(R);
      if (S->V == Exp) {
        if (!Src.Reduced)
          continue;
        auto [It, New] = FirstOrder.try_emplace(Src.Index, R, S->V.Order);
        if (New || It->second.second == S->V.Order)
          continue;
        std::string What = fmt::format(
            "output chunk {} is reduced in another order than on rank {}: "
            "floating-point results may differ in the last bits",
            K, It->second.first);
        if (Model.IdenticalOrder) {
          if (Reported++ < MaxOrderReports)
            Sink.report<MsgId::OutputOrderDiffers>(W, What);
        } else if (!Warned) {
          Warned = true;
          Sink.report<MsgId::OutputOrderVaries>(W, What);
        }
        continue;
      }
      if (!S->V.Init && S->WRank < 0) {
        Sink.report<MsgId::OutputNeverWritten>(W, K, describe(Exp, NRanks));
        continue;
      }
      std::string Writer =
          S->WRank < 0 ? std::string()
                       : fmt::format("; last written by rank {} tb {} step {}",
                                     S->WRank, S->WTb, S->WStep);
      Sink.report<MsgId::WrongOutput>(W, K, describe(S->V, NRanks),
                                      describe(Exp, NRanks), Writer);
    }
  }
}

} // namespace tacclrt
