//===- shim/GroupedAlltoall.cpp - Send/recv groups as alltoall ------------===//
//
// asAlltoall() (GroupedAlltoall.h): counts the sends and receives per peer,
// then checks that every peer's block sits where an alltoall puts it.
//
//===----------------------------------------------------------------------===//
#include "shim/GroupedAlltoall.h"

using namespace tacclrt::shim;

std::optional<AlltoallCall>
tacclrt::shim::asAlltoall(const std::vector<P2PCall> &Calls, int NRanks,
                          std::size_t TypeSize) {
  if (NRanks < 1 || Calls.size() != 2 * std::size_t(NRanks) || Calls.empty())
    return std::nullopt;
  std::vector<const P2PCall *> Sends(std::size_t(NRanks), nullptr),
      Recvs(std::size_t(NRanks), nullptr);
  const P2PCall &First = Calls.front();
  for (const P2PCall &C : Calls) {
    if (C.Peer < 0 || C.Peer >= NRanks || C.Count != First.Count ||
        C.Type != First.Type || C.Stream != First.Stream ||
        C.Comm != First.Comm || C.Count == 0)
      return std::nullopt;
    auto &Slot = (C.IsSend ? Sends : Recvs)[std::size_t(C.Peer)];
    if (Slot)
      return std::nullopt; // two to one peer
    Slot = &C;
  }
  const std::size_t Block = First.Count * TypeSize;
  const char *SendBase = static_cast<const char *>(Sends[0]->Buf);
  const char *RecvBase = static_cast<const char *>(Recvs[0]->Buf);
  for (int P = 0; P < NRanks; ++P)
    if (static_cast<const char *>(Sends[std::size_t(P)]->Buf) !=
            SendBase + std::size_t(P) * Block ||
        static_cast<const char *>(Recvs[std::size_t(P)]->Buf) !=
            RecvBase + std::size_t(P) * Block)
      return std::nullopt;
  AlltoallCall A;
  A.Send = SendBase;
  A.Recv = const_cast<char *>(RecvBase);
  A.Count = First.Count;
  A.Type = First.Type;
  A.Stream = First.Stream;
  return A;
}
