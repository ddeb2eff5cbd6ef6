//===- passes/RoutingModel.cpp - Stage 1 routing MILP formulation ---------===//
//
// A compact formulation that CBC solves in seconds at these sizes (big-M
// arrival times alone give a weak LP bound; the valid inequalities below
// close most of it):
//
//   x[c,l]  binary   chunk c crosses link l = (s -> r)
//   t[c,r]  >= 0     arrival time of chunk c at rank r (0 where c starts)
//   T       >= 0     makespan
//
//   sum_{l into r} x[c,l] = 1          r in post(c) \ pre(c)
//   sum_{l into r} x[c,l] <= 1         any other rank (relays)
//   x[c,s->r] <= sum_{l into s} x[c,l] s not in pre(c): forward only what
//                                       arrived
//   t[c,r] >= t[c,s] + cost(l) - M_l (1 - x[c,l])
//   t[c,r] >= sum_{l=(s->r)} (dist_c(s) + cost(l)) x[c,l]   (valid cut)
//   T >= t[c,r]                        r in post(c)
//   T >= sum_c lane(l) x[c,l] / m(l)   per link (m = parallel links):
//                                       bandwidth relaxed to load
//   T >= sum_{l in p} sum_c data(l) x[c,l]   per shared port p (a switch
//                                       port or one side of a NIC)
//   K y[l] >= sum_c x[c,l]             uc-min switch links (y: link used)
//   y[l] <= sum_c x[c,l]               uc-max switch links
//
//   sum_{l entering node n} x[c,l] >= 1   n needs c and holds none of it
//   x[c,s->r] + x[c,r->s] <= 1                  (both valid cuts)
//
//   minimise T + eps * sum t +/- eps_u * sum y
//   (eps prefers early arrivals among ties; eps_u, a thousandth of the
//   cheapest switch link's cost per distinct link, makes uc-min prefer few
//   and uc-max many distinct GPU pairs through the switch, as TACCL does)
//
// Costs are passes/TimeModel.h's: cost(l) is a transfer's hop latency
// plus the wire time of one slice of a chunk (the stages schedule one slice
// of every chunk); lane(l) is how long every slice of a chunk holds a lane
// (its wire time, or the FIFO's pace for small messages) and data(l) its
// wire time: latency overlaps on a lane and does not load a port.
//
// Links a chunk may not use under the sketch's relay rules (`sender s
// carries [...]`) have no variable for that chunk.
//
// Algorithm:
//   1. the warm start (RoutingStart.cpp): per chunk shortest distances
//      dist_c and a tree reaching every rank that needs it; the trees'
//      makespan H bounds T;
//   2. links that cannot deliver c before H are left out of the model, and
//      M_l = H + cost(l) is the tightest valid big-M;
//   3. rows are emitted chunk by chunk in a fixed order (determinism).
//
//===----------------------------------------------------------------------===//
#include "passes/RoutingModel.h"
#include "passes/Symmetry.h"
#include "passes/TimeModel.h"
#include "passes/UsableLinks.h"

#include "support/Deadline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::stage1;
using solver::Term;
using solver::VarId;

namespace {

/// Adds \p Row unless a row with the same terms and bounds exists (under
/// symmetry, the load rows of a link and of its images coincide).
class RowDeduper {
public:
  explicit RowDeduper(solver::Model &M) : M(M) {}
  void addGreaterEqual(const std::string &Name, std::vector<Term> Row,
                       double Rhs) {
    add(Name, std::move(Row), Rhs, solver::Model::Infinity);
  }
  void addLessEqual(const std::string &Name, std::vector<Term> Row,
                    double Rhs) {
    add(Name, std::move(Row), -solver::Model::Infinity, Rhs);
  }

private:
  void add(const std::string &Name, std::vector<Term> Row, double Lower,
           double Upper) {
    std::vector<std::pair<uint32_t, double>> Key;
    for (const Term &T : Row)
      Key.push_back({T.Var.Index, T.Coef});
    std::sort(Key.begin(), Key.end());
    // Merge repeated variables, as the model would.
    std::vector<std::pair<uint32_t, double>> Merged;
    for (const auto &KV : Key)
      if (!Merged.empty() && Merged.back().first == KV.first)
        Merged.back().second += KV.second;
      else
        Merged.push_back(KV);
    if (!Seen.insert({std::move(Merged), {Lower, Upper}}).second)
      return;
    M.addConstraint(Name, std::move(Row), Lower, Upper);
  }

  solver::Model &M;
  std::set<std::pair<std::vector<std::pair<uint32_t, double>>,
                     std::pair<double, double>>>
      Seen;
};

/// uc-min / uc-max: one binary per switch link saying whether any chunk
/// uses it, with a small objective weight of the policy's sign. Under
/// symmetry a link and its images share one binary.
void addSwitchPolicies(const Sketch &S, const SymmetryGroup &Group,
                       RoutingModel &RM, const RoutingStart &WarmStart,
                       std::vector<double> &Start, RowDeduper &Rows) {
  const Topology &Topo = S.Topo;
  const TimeModel TM(S);
  solver::Model &M = RM.Model;
  const unsigned NumChunks = S.Coll.getNumChunks();
  double Cheapest = std::numeric_limits<double>::infinity();
  for (unsigned L = 0; L < Topo.links().size(); ++L) {
    const Link &Lk = Topo.link(LinkId(L));
    if (Lk.Switch >= 0 &&
        Topo.switches()[Lk.Switch].Policy != SwitchPolicy::Free)
      Cheapest = std::min(Cheapest, TM.costUs(LinkId(L)));
  }
  if (!std::isfinite(Cheapest))
    return;
  std::vector<std::optional<VarId>> OrbitVar(Topo.links().size());
  for (unsigned L = 0; L < Topo.links().size(); ++L) {
    const Link &Lk = Topo.link(LinkId(L));
    if (Lk.Switch < 0)
      continue;
    SwitchPolicy Policy = Topo.switches()[Lk.Switch].Policy;
    if (Policy == SwitchPolicy::Free)
      continue;
    std::vector<Term> Row;
    for (unsigned C = 0; C < NumChunks; ++C)
      if (auto X = RM.UseVar[C][L])
        Row.push_back({*X, -1.0});
    if (Row.empty())
      continue;
    bool Min = Policy == SwitchPolicy::UcMin;
    // The orbit's first link owns the binary.
    unsigned Owner = L;
    for (unsigned G = 1; G < Group.size(); ++G)
      Owner = std::min(Owner, Group.link(G, LinkId(L)).index());
    std::optional<VarId> &Y = OrbitVar[Owner];
    if (!Y) {
      bool Used = false;
      for (unsigned C = 0; C < NumChunks; ++C)
        Used |= RM.UseVar[C][L] &&
                usesStartLink(S, Group, WarmStart, ChunkId(C), LinkId(L));
      double Weight = 1e-3 * Cheapest;
      Y = M.addVariable(fmt::format("y_l{}_{}", Lk.Src.index(), Lk.Dst.index()),
                        0, 1, solver::VarKind::Binary, Min ? Weight : -Weight);
      Start.push_back(Used ? 1.0 : 0.0);
    }
    // uc-min: K y >= sum x; uc-max: y <= sum x.
    Row.push_back({*Y, Min ? double(Row.size()) : 1.0});
    std::string Name = fmt::format("uc_l{}_{}", Lk.Src.index(), Lk.Dst.index());
    if (Min)
      Rows.addGreaterEqual(Name, std::move(Row), 0.0);
    else
      Rows.addLessEqual(Name, std::move(Row), 0.0);
  }
}

/// Builds the routing model (see the file comment), one group of
/// variables or rows per method, in the model's order.
class RoutingModelBuilder {
public:
  RoutingModelBuilder(const Sketch &S, const SymmetryGroup &Group,
                      const RoutingStart &WarmStart, const Deadline &GiveUp)
      : S(S), Group(Group), Topo(S.Topo), Coll(S.Coll), TM(S),
        NumRanks(Topo.getNumRanks()), NumLinks(Topo.links().size()),
        WarmStart(WarmStart), Paths(WarmStart.Paths), H(WarmStart.Horizon),
        LowerBound(WarmStart.LowerBound), GiveUp(GiveUp), Usable(S, H),
        M(RM.Model) {}

  /// The model, or nothing once the deadline has passed.
  std::optional<RoutingModel> build() {
    M.setSense(solver::Sense::Minimize);
    RM.Makespan =
        M.addVariable("T", LowerBound, H, solver::VarKind::Continuous, 1.0);
    RM.UseVar.assign(Coll.getNumChunks(),
                     std::vector<std::optional<VarId>>(NumLinks));
    Start.push_back(H);
    // Variables and per-chunk rows for orbit representatives only.
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      if (!Group.isRepresentative(ChunkId(C)))
        continue;
      if (outOfTime())
        return std::nullopt;
      addChunk(C);
    }
    shareOrbitVariables();
    // Valid cuts (not in TACCL): a chunk enters every node that needs it
    // but holds none of its pre ranks at least once, and never crosses a
    // link both ways. The first makes inter-node load visible to the LP
    // bound.
    if (Topo.getNumNodes() > 1 && !addEnterCuts())
      return std::nullopt;
    addOnceCuts();
    // Under symmetry the load rows of a link's images are the same row,
    // kept once.
    RowDeduper Rows(M);
    if (!addLoadRows(Rows))
      return std::nullopt;
    addSwitchPolicies(S, Group, RM, WarmStart, Start, Rows);
    RM.WarmStart = std::move(Start);
    RM.WarmStartMakespanUs = H;
    return std::move(RM);
  }

private:
  /// Checked once per chunk (and per link in the global rows).
  bool outOfTime() const {
    checkDeadline();
    return GiveUp.hasPassed();
  }

  /// The variables and rows of representative chunk \p C.
  void addChunk(unsigned C) {
    const ChunkId Ch(C);
    const ChunkPaths &P = Paths[C];
    const double Eps =
        1e-3 / std::max<double>(1.0, Coll.getNumChunks() * NumRanks);
    // Arrival-time variables (absent, i.e. 0, at pre ranks).
    std::vector<std::optional<VarId>> Arrive(NumRanks);
    for (unsigned R = 0; R < NumRanks; ++R) {
      if (Coll.isPre(Ch, RankId(R)) || !std::isfinite(P.Dist[R]))
        continue;
      Arrive[R] = M.addVariable(fmt::format("t_c{}_r{}", C, R), 0, H,
                                solver::VarKind::Continuous, Eps);
      Start.push_back(P.Parent[R].isValid() ? P.TreeTime[R] : 0.0);
    }
    // 2. Usable links.
    Usable.setChunk(Ch, P);
    for (unsigned L = 0; L < NumLinks; ++L) {
      if (!Usable(LinkId(L)))
        continue;
      const Link &Lk = Topo.link(LinkId(L));
      RM.UseVar[C][L] = M.addBinary(
          fmt::format("x_c{}_l{}_{}", C, Lk.Src.index(), Lk.Dst.index()));
      bool InTree = P.Parent[Lk.Dst.index()] == LinkId(L);
      Start.push_back(InTree ? 1.0 : 0.0);
    }
    // 3. Rows.
    addRankRows(C, Arrive);
    addLinkRows(C, Arrive);
  }

  /// Per rank the chunk does not start at: recv, and with an arrival
  /// variable in \p Arrive, cut and (at post ranks) done.
  void addRankRows(unsigned C,
                   const std::vector<std::optional<VarId>> &Arrive) {
    const ChunkId Ch(C);
    const ChunkPaths &P = Paths[C];
    for (unsigned R = 0; R < NumRanks; ++R) {
      if (Coll.isPre(Ch, RankId(R)))
        continue;
      std::vector<Term> In, Cut;
      for (LinkId L : Topo.inLinks(RankId(R)))
        if (auto X = RM.UseVar[C][L.index()]) {
          In.push_back({*X, 1.0});
          const Link &Lk = Topo.link(L);
          Cut.push_back({*X, -(P.Dist[Lk.Src.index()] + TM.costUs(L))});
        }
      bool Post = Coll.isPost(Ch, RankId(R));
      std::string Name = fmt::format("recv_c{}_r{}", C, R);
      if (Post)
        M.addEqual(Name, In, 1.0);
      else if (!In.empty())
        M.addLessEqual(Name, In, 1.0);
      if (!Arrive[R])
        continue;
      if (!Cut.empty()) {
        Cut.push_back({*Arrive[R], 1.0});
        M.addGreaterEqual(fmt::format("cut_c{}_r{}", C, R), Cut, 0.0);
      }
      if (Post)
        M.addGreaterEqual(fmt::format("done_c{}_r{}", C, R),
                          {{RM.Makespan, 1.0}, {*Arrive[R], -1.0}}, 0.0);
    }
  }

  /// Per link chunk \p C may use: time, and fwd where the link does not
  /// leave a pre rank.
  void addLinkRows(unsigned C,
                   const std::vector<std::optional<VarId>> &Arrive) {
    for (unsigned L = 0; L < NumLinks; ++L) {
      auto X = RM.UseVar[C][L];
      if (!X)
        continue;
      const Link &Lk = Topo.link(LinkId(L));
      unsigned Src = Lk.Src.index(), Dst = Lk.Dst.index();
      double Cost = TM.costUs(LinkId(L)), BigM = H + Cost;
      // t[c,dst] - t[c,src] - M x >= cost - M
      std::vector<Term> Row = {{*Arrive[Dst], 1.0}, {*X, -BigM}};
      if (Arrive[Src])
        Row.push_back({*Arrive[Src], -1.0});
      M.addGreaterEqual(fmt::format("time_c{}_l{}_{}", C, Src, Dst), Row,
                        Cost - BigM);
      if (!Coll.isPre(ChunkId(C), Lk.Src)) {
        std::vector<Term> Fwd = {{*X, 1.0}};
        for (LinkId In : Topo.inLinks(Lk.Src))
          if (auto Y = RM.UseVar[C][In.index()])
            Fwd.push_back({*Y, -1.0});
        M.addLessEqual(fmt::format("fwd_c{}_l{}_{}", C, Src, Dst), Fwd, 0.0);
      }
    }
  }

  /// Every other chunk uses its representative's variables, moved by the
  /// group element that maps the representative onto it.
  void shareOrbitVariables() {
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      ChunkId Ch(C);
      if (Group.isRepresentative(Ch))
        continue;
      unsigned Rep = Group.representative(Ch).index();
      for (unsigned L = 0; L < NumLinks; ++L)
        RM.UseVar[C][L] =
            RM.UseVar[Rep][Group.representativeLink(Ch, LinkId(L)).index()];
    }
  }

  /// enter rows: each representative enters every node that needs it but
  /// holds none of its pre ranks. False once the deadline has passed.
  bool addEnterCuts() {
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      if (!Group.isRepresentative(ChunkId(C)))
        continue;
      if (outOfTime())
        return false;
      const Chunk &Ch = Coll.chunk(ChunkId(C));
      for (unsigned N = 0; N < Topo.getNumNodes(); ++N) {
        if (!mustEnterNode(Topo, Ch, N))
          continue;
        std::vector<Term> Enter;
        for (unsigned L = 0; L < NumLinks; ++L) {
          const Link &Lk = Topo.link(LinkId(L));
          if (Topo.nodeOf(Lk.Src) != N && Topo.nodeOf(Lk.Dst) == N)
            if (auto X = RM.UseVar[C][L])
              Enter.push_back({*X, 1.0});
        }
        M.addGreaterEqual(fmt::format("enter_c{}_n{}", C, N), Enter, 1.0);
      }
    }
    return true;
  }

  /// once rows: no representative crosses a link both ways.
  void addOnceCuts() {
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
      for (unsigned L = 0; L < NumLinks && Group.isRepresentative(ChunkId(C));
           ++L) {
        const Link &Lk = Topo.link(LinkId(L));
        auto Back = Topo.findLink(Lk.Dst, Lk.Src);
        if (!Back || Back->index() < L)
          continue;
        auto X = RM.UseVar[C][L], Y = RM.UseVar[C][Back->index()];
        if (X && Y)
          M.addLessEqual(
              fmt::format("once_c{}_l{}_{}", C, Lk.Src.index(), Lk.Dst.index()),
              {{*X, 1.0}, {*Y, 1.0}}, 1.0);
      }
  }

  /// Relaxed bandwidth: each link's total load bounds the makespan, and so
  /// does each shared port's. False once the deadline has passed.
  bool addLoadRows(RowDeduper &Rows) {
    for (unsigned L = 0; L < NumLinks; ++L) {
      if (outOfTime())
        return false;
      std::vector<Term> Row = {{RM.Makespan, 1.0}};
      const Link &Lk = Topo.link(LinkId(L));
      for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
        if (auto X = RM.UseVar[C][L])
          Row.push_back({*X, -TM.laneLoadUs(LinkId(L)) / Lk.Multiplicity});
      if (Row.size() > 1)
        Rows.addGreaterEqual(
            fmt::format("load_l{}_{}", Lk.Src.index(), Lk.Dst.index()), Row,
            0.0);
    }
    const std::vector<Resource> Ports = Topo.resources();
    for (size_t P = 0; P < Ports.size(); ++P) {
      std::vector<Term> Row = {{RM.Makespan, 1.0}};
      for (LinkId L : Ports[P].Links)
        for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
          if (auto X = RM.UseVar[C][L.index()])
            Row.push_back({*X, -TM.portLoadUs(L)});
      if (Row.size() > 2)
        Rows.addGreaterEqual(fmt::format("port{}", P), Row, 0.0);
    }
    return true;
  }

  const Sketch &S;
  const SymmetryGroup &Group;
  const Topology &Topo;
  const Collective &Coll;
  const TimeModel TM;
  const unsigned NumRanks, NumLinks;
  const RoutingStart &WarmStart;
  /// The orbit representatives' paths (RoutingStart::Paths).
  const std::vector<ChunkPaths> &Paths;
  const double H, LowerBound;
  const Deadline &GiveUp;
  UsableLinks Usable;
  RoutingModel RM;
  solver::Model &M;
  std::vector<double> Start; ///< Warm start values in variable order.
};
} // namespace

std::optional<RoutingModel>
tacclc::buildRoutingModel(const Sketch &S, const SymmetryGroup &Group,
                          const RoutingStart &WarmStart,
                          const Deadline &GiveUp) {
  PhaseScope Phase("building the routing model");
  return RoutingModelBuilder(S, Group, WarmStart, GiveUp).build();
}

RoutingModel tacclc::buildRoutingModel(const Sketch &S,
                                       const SymmetryGroup &Group) {
  return std::move(*buildRoutingModel(S, Group, routingStart(S, Group)));
}

Routes tacclc::extractRoutes(const Sketch &S, const RoutingModel &RM,
                             const std::vector<double> &Values) {
  const Topology &Topo = S.Topo;
  Routes Out;
  for (unsigned C = 0; C < S.Coll.getNumChunks(); ++C) {
    ChunkRoute CR;
    CR.Chunk = ChunkId(C);
    // Breadth-first from the pre ranks so parents precede children.
    std::deque<RankId> Queue(S.Coll.chunk(ChunkId(C)).Pre.begin(),
                             S.Coll.chunk(ChunkId(C)).Pre.end());
    std::vector<bool> Seen(Topo.getNumRanks(), false);
    for (RankId R : Queue)
      Seen[R.index()] = true;
    while (!Queue.empty()) {
      RankId R = Queue.front();
      Queue.pop_front();
      for (LinkId L : Topo.outLinks(R)) {
        auto X = RM.UseVar[C][L.index()];
        if (!X || Values[X->Index] < 0.5)
          continue;
        RankId Dst = Topo.link(L).Dst;
        if (Seen[Dst.index()])
          continue;
        Seen[Dst.index()] = true;
        CR.Links.push_back(L);
        Queue.push_back(Dst);
      }
    }
    Out.Chunks.push_back(std::move(CR));
  }
  return Out;
}
