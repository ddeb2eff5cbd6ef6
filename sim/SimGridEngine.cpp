//===- sim/SimGridEngine.cpp - A plan executed on SimGrid -----------------===//
//
// The plan's semantics are the in-house engine's (Simulator.cpp); only the
// network is SimGrid's:
//   - the machine becomes a SimGrid zone: a host per rank, a SimGrid link
//     per machine link (bandwidth multiplicity / beta, shared) and per
//     shared port (a NIC's send or receive side, a switch port), and a
//     route per connected rank pair through its link and its ports;
//   - every threadblock is an actor that runs its operations in order, loop
//     iteration after iteration, from the protocol's launch latency on;
//     dependencies wait on a condition variable of the rank;
//   - every connection (sender, receiver, channel) is a mailbox whose
//     permanent receiver is the receiving threadblock, so data flows before
//     the receive is posted, with a semaphore of NCCL's FIFO steps: a send
//     takes the steps its message needs and goes on, the receive gives them
//     back;
//   - a pump actor per connection moves the posted messages in order: it
//     waits out each message's hop latency from its posting (so successive
//     messages overlap their latency), then puts its wire bytes through the
//     mailbox, which SimGrid times on the route with its network model.
//     Under serial port service a message moves only when its link and
//     all its ports are free, and holds them all until it lands; one that
//     waits holds none (work-conserving, as in the in-house engine).
//
//===----------------------------------------------------------------------===//
#include "sim/SimGridEngine.h"

#include "format/Collective.h"

#include <simgrid/s4u.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <tuple>

namespace sg4 = simgrid::s4u;

namespace tacclrt {

namespace {

constexpr double UsPerS = 1e6;
/// Bandwidth of a link whose beta is 0 (no bandwidth limit), B/s.
constexpr double Unlimited = 1e18;

double nowUs() { return sg4::Engine::get_clock() * UsPerS; }

/// Waits on \p Cv until \p Ready holds. Actors run one at a time, so the
/// lock only serves the condition variable. It is taken and released by
/// hand, never by a destructor: SimGrid kills the actors still waiting at
/// the end (the pumps, or every actor of a deadlock) by unwinding their
/// stacks, and a lock they do not hold then must not be released.
template <class F>
void waitUntil(const sg4::MutexPtr &Mu, const sg4::ConditionVariablePtr &Cv,
               F Ready) {
  Mu->lock();
  while (!Ready())
    Cv->wait(Mu);
  Mu->unlock();
}

/// A message on its way: what the receiving threadblock takes.
struct SgMessage {
  double PostUs = 0;
  double Bytes = 0;
  unsigned Steps = 1;
  SimTransfer Rec;
};

struct SgConn {
  int Link = -1;
  sg4::Host *From = nullptr;
  sg4::Mailbox *Box = nullptr;
  sg4::SemaphorePtr Slots;
  /// Posted, not yet moved, in posting order (the pump's queue).
  std::deque<SgMessage *> Posted;
  sg4::MutexPtr Mu;
  sg4::ConditionVariablePtr Cv;
};

struct SgTbState {
  std::size_t Op = 0;
  long Iter = 0;
  int What = 0;
  bool Done = false;
};

class SgRun {
public:
  SgRun(const Algo &A, const Program &P, const SimCallShape &Shape,
        const SimMachine &M, const SimOptions &O, SimEngineKind K)
      : A(A), P(P), Shape(Shape), M(M), O(O), K(K) {}

  void build(sg4::NetZone *Zone);
  void start();
  SgOutcome finish();

private:
  using ConnKey = std::tuple<int, int, int>;
  const Algo &A;
  const Program &P;
  const SimCallShape &Shape;
  const SimMachine &M;
  const SimOptions &O;
  const SimEngineKind K;

  std::vector<sg4::Host *> Hosts;
  /// Serial port service: whether each link, then each port, is moving a
  /// message, and the lock and condition that guard it.
  std::vector<char> Busy;
  sg4::MutexPtr BusyMu;
  sg4::ConditionVariablePtr BusyCv;
  std::map<ConnKey, std::unique_ptr<SgConn>> Conns;
  std::vector<std::vector<long>> Flags; // [rank][tb]
  std::vector<sg4::MutexPtr> RankMu;
  std::vector<sg4::ConditionVariablePtr> RankCv;
  std::vector<std::vector<SgTbState>> States;
  std::vector<SimTransfer> Transfers;

  void threadblock(const TbProgram &T);
  void pump(SgConn &C);
  void post(SgConn &C, const TbProgram &T, const Operation &Op, long Iter,
            std::uint64_t Part);
};

void SgRun::build(sg4::NetZone *Zone) {
  for (int R = 0; R < M.NRanks; ++R)
    Hosts.push_back(Zone->create_host(fmt::format("rank{}", R), 1e9)->seal());
  // A shared SimGrid link of \p Lanes x 1 / \p BetaUsPerB bytes per second
  // (unlimited at beta 0); latency is the pumps' to charge.
  auto Shared = [&](const std::string &Name, double BetaUsPerB, double Lanes) {
    const double Bw = BetaUsPerB > 0 ? Lanes * UsPerS / BetaUsPerB : Unlimited;
    return Zone->create_link(Name, Bw)
        ->set_latency(0)
        ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
        ->seal();
  };
  std::vector<sg4::Link *> Links, Ports;
  for (std::size_t I = 0; I < M.Links.size(); ++I)
    Links.push_back(Shared(fmt::format("link{}", I), M.Links[I].BetaUsPerB,
                           M.Links[I].Multiplicity));
  for (std::size_t I = 0; I < M.Ports.size(); ++I)
    Ports.push_back(Shared(fmt::format("port{}", I), M.Ports[I].BetaUsPerB, 1));
  for (std::size_t I = 0; I < M.Links.size(); ++I) {
    const SimLink &L = M.Links[I];
    std::vector<sg4::LinkInRoute> Route{sg4::LinkInRoute(Links[I])};
    for (int Port : L.Ports)
      Route.emplace_back(Ports[static_cast<std::size_t>(Port)]);
    Zone->add_route(Hosts[static_cast<std::size_t>(L.Src)]->get_netpoint(),
                    Hosts[static_cast<std::size_t>(L.Dst)]->get_netpoint(),
                    nullptr, nullptr, Route, false);
  }
  Zone->seal();
  if (O.Service == PortService::Serial) {
    Busy.assign(M.Links.size() + M.Ports.size(), 0);
    BusyMu = sg4::Mutex::create();
    BusyCv = sg4::ConditionVariable::create();
  }
}

void SgRun::start() {
  const std::size_t NRanks = P.Ranks.size();
  Flags.resize(NRanks);
  States.resize(NRanks);
  for (std::size_t R = 0; R < NRanks; ++R) {
    Flags[R].assign(P.Ranks[R].size(), -1);
    States[R].resize(P.Ranks[R].size());
    RankMu.push_back(sg4::Mutex::create());
    RankCv.push_back(sg4::ConditionVariable::create());
  }
  // Connections first (a receiving threadblock needs its mailbox), then
  // the threadblocks, then the pumps, which never end by themselves.
  for (const auto &Rank : P.Ranks)
    for (const TbProgram &T : Rank) {
      if (T.Send < 0)
        continue;
      auto C = std::make_unique<SgConn>();
      C->Link = Shape.linkOf(T.Rank, T.Send);
      C->From = Hosts[static_cast<std::size_t>(T.Rank)];
      C->Box = sg4::Mailbox::by_name(
          fmt::format("conn{}-{}-{}", T.Rank, T.Send, T.Chan));
      C->Slots = sg4::Semaphore::create(Shape.Capacity);
      C->Mu = sg4::Mutex::create();
      C->Cv = sg4::ConditionVariable::create();
      Conns[{T.Rank, T.Send, T.Chan}] = std::move(C);
    }
  for (const auto &Rank : P.Ranks)
    for (const TbProgram &T : Rank) {
      sg4::ActorPtr Actor =
          sg4::Actor::create(fmt::format("tb{}-{}", T.Rank, T.Id),
                             Hosts[static_cast<std::size_t>(T.Rank)],
                             [this, &T] { threadblock(T); });
      if (T.Recv < 0)
        continue;
      auto It = Conns.find({T.Recv, T.Rank, T.Chan});
      if (It != Conns.end())
        It->second->Box->set_receiver(Actor);
    }
  for (auto &[Key, C] : Conns) {
    SgConn *Conn = C.get();
    sg4::Actor::create(fmt::format("pump{}-{}-{}", std::get<0>(Key),
                                   std::get<1>(Key), std::get<2>(Key)),
                       Conn->From, [this, Conn] { pump(*Conn); })
        ->daemonize();
  }
}

void SgRun::post(SgConn &C, const TbProgram &T, const Operation &Op, long Iter,
                 std::uint64_t Part) {
  auto *Msg = new SgMessage;
  Msg->Bytes = Shape.partBytes(*Op.S, Iter, Part);
  Msg->Steps = Shape.stepsOf(Msg->Bytes);
  for (unsigned I = 0; I < Msg->Steps; ++I)
    C.Slots->acquire();
  Msg->PostUs = nowUs();
  const SimLink &L = M.Links[static_cast<std::size_t>(C.Link)];
  Msg->Rec.Src = L.Src;
  Msg->Rec.Dst = L.Dst;
  Msg->Rec.Link = C.Link;
  Msg->Rec.Tb = T.Id;
  Msg->Rec.Step = Op.Pos;
  Msg->Rec.Iteration = Iter;
  Msg->Rec.Chunk = Op.S->SrcOff;
  Msg->Rec.Cnt = Op.S->Cnt;
  Msg->Rec.Bytes = Msg->Bytes;
  Msg->Rec.StartUs = Msg->PostUs;
  C.Posted.push_back(Msg);
  C.Cv->notify_one();
}

void SgRun::pump(SgConn &C) {
  const SimLink &L = M.Links[static_cast<std::size_t>(C.Link)];
  const double HopUs = hopLatencyUs(L, A.Proto, O);
  std::vector<std::size_t> Held{static_cast<std::size_t>(C.Link)};
  for (int Port : L.Ports)
    Held.push_back(M.Links.size() + static_cast<std::size_t>(Port));
  for (;;) {
    waitUntil(C.Mu, C.Cv, [&] { return !C.Posted.empty(); });
    SgMessage *Msg = C.Posted.front();
    C.Posted.pop_front();
    sg4::this_actor::sleep_until((Msg->PostUs + HopUs) / UsPerS);
    const bool Serial = !Busy.empty();
    if (Serial) {
      // All of its resources at once or none: a message waiting for one
      // port holds no other (the in-house engine's work-conserving order).
      waitUntil(BusyMu, BusyCv, [&] {
        return std::none_of(Held.begin(), Held.end(),
                            [&](std::size_t R) { return Busy[R] != 0; });
      });
      for (std::size_t R : Held)
        Busy[R] = 1;
    }
    Msg->Rec.DataUs = nowUs();
    const double Wire = wireBytes(Msg->Bytes, A.Proto, O);
    C.Box->put(Msg, static_cast<std::uint64_t>(std::ceil(Wire)));
    if (Serial) {
      for (std::size_t R : Held)
        Busy[R] = 0;
      BusyCv->notify_all();
    }
  }
}

void SgRun::threadblock(const TbProgram &T) {
  SgTbState &St =
      States[static_cast<std::size_t>(T.Rank)][static_cast<std::size_t>(T.Id)];
  auto &RankFlags = Flags[static_cast<std::size_t>(T.Rank)];
  const sg4::MutexPtr &Mu = RankMu[static_cast<std::size_t>(T.Rank)];
  const sg4::ConditionVariablePtr &Cv =
      RankCv[static_cast<std::size_t>(T.Rank)];
  SgConn *Out = nullptr, *In = nullptr;
  if (T.Send >= 0)
    Out = Conns.at({T.Rank, T.Send, T.Chan}).get();
  if (T.Recv >= 0) {
    auto It = Conns.find({T.Recv, T.Rank, T.Chan});
    In = It == Conns.end() ? nullptr : It->second.get();
  }
  sg4::this_actor::sleep_until(launchLatencyUs(A.Proto, O) / UsPerS);
  for (St.Iter = 0; St.Iter < Shape.Iterations; ++St.Iter)
    for (St.Op = 0; St.Op < T.Ops.size(); ++St.Op) {
      const Operation &Op = T.Ops[St.Op];
      const long Iter = St.Iter;
      St.What = 0;
      waitUntil(Mu, Cv, [&] {
        for (const Dependency &D : Op.Deps)
          if (RankFlags[static_cast<std::size_t>(D.Tb)] <
              Iter * FlagScale + D.Step)
            return false;
        return true;
      });
      const std::uint64_t Parts = Shape.parts(*Op.S);
      if (receivesMessage(Op.S->Type)) {
        St.What = 1;
        for (std::uint64_t Part = 0; Part < Parts; ++Part) {
          // The plan's checks put a connection under every receive.
          auto *Msg = In->Box->get<SgMessage>();
          for (unsigned I = 0; I < Msg->Steps; ++I)
            In->Slots->release();
          if (O.RecordTransfers)
            Transfers.push_back(Msg->Rec);
          delete Msg;
        }
      }
      if (sendsMessage(Op.S->Type)) {
        St.What = 2;
        for (std::uint64_t Part = 0; Part < Parts; ++Part)
          post(*Out, T, Op, Iter, Part);
      }
      if (Op.S->HasDep) {
        RankFlags[static_cast<std::size_t>(T.Id)] =
            Iter * FlagScale + Op.PublishedStep;
        Cv->notify_all();
      }
    }
  St.Done = true;
}

SgOutcome SgRun::finish() {
  SgOutcome Out;
  Out.Ok = true;
  Out.TimeUs = nowUs();
  for (std::size_t R = 0; R < States.size(); ++R)
    for (std::size_t T = 0; T < States[R].size(); ++T) {
      const SgTbState &St = States[R][T];
      const TbProgram &Tb = P.Ranks[R][T];
      if (St.Done || Tb.Ops.empty())
        continue;
      Out.Ok = false;
      if (Out.Stuck.size() < 8)
        Out.Stuck.push_back({static_cast<int>(R), static_cast<int>(T),
                             Tb.Ops[std::min(St.Op, Tb.Ops.size() - 1)].Pos,
                             St.Iter, St.What});
    }
  // Sort by landing, as the in-house engine records them.
  std::stable_sort(Transfers.begin(), Transfers.end(),
                   [](const SimTransfer &X, const SimTransfer &Y) {
                     return X.EndUs < Y.EndUs;
                   });
  Out.Transfers = std::move(Transfers);
  return Out;
}

/// SimGrid's command line for model \p K.
std::vector<std::string> engineArgs(SimEngineKind K) {
  std::vector<std::string> Args{"tacclc-sim", "--log=root.thresh:critical",
                                "--cfg=contexts/stack-size:256",
                                // No guard page per actor: each one costs
                                // memory maps, and a program of 30,000
                                // threadblocks would pass the kernel's
                                // limit (vm.max_map_count, 65,530).
                                "--cfg=contexts/guard-size:0"};
  switch (K) {
  case SimEngineKind::SimGridLv08:
    Args.push_back("--cfg=network/model:LV08");
    break;
  case SimEngineKind::SimGridNs3:
    Args.push_back("--cfg=network/model:ns-3");
    break;
  default:
    // Pure max-min: no latency or bandwidth correction, no RTT weighting,
    // no reverse (acknowledgement) traffic.
    Args.push_back("--cfg=network/model:CM02");
    Args.push_back("--cfg=network/latency-factor:1");
    Args.push_back("--cfg=network/bandwidth-factor:1");
    Args.push_back("--cfg=network/weight-S:0");
    Args.push_back("--cfg=network/crosstraffic:0");
    break;
  }
  return Args;
}

} // namespace

SgOutcome runOnSimGrid(const Algo &A, const Program &P,
                       const SimCallShape &Shape, const SimMachine &M,
                       const SimOptions &O, SimEngineKind K) {
  std::vector<std::string> Args = engineArgs(K);
  std::vector<char *> Argv;
  for (std::string &S : Args)
    Argv.push_back(S.data());
  Argv.push_back(nullptr);
  int Argc = static_cast<int>(Args.size());
  sg4::Engine E(&Argc, Argv.data());
  SgRun Run(A, P, Shape, M, O, K);
  Run.build(sg4::create_full_zone("machine"));
  Run.start();
  E.run();
  return Run.finish();
}

} // namespace tacclrt
