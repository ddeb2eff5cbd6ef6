//===- passes/RoutingModel.cpp - Stage 1 routing MILP formulation ---------===//
//
// The compact formulation measured in shared/reference/cbc-calibration.md:
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
//   T >= sum_c cost(l) x[c,l] / m(l)   per link (m = parallel links):
//                                       bandwidth relaxed to load
//   T >= sum_{l in p} sum_c cost(l) x[c,l]   per shared port p (a switch
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
// Links a chunk may not use under the sketch's relay rules (`sender s
// carries [...]`) have no variable for that chunk.
//
// Algorithm:
//   1. per chunk, Dijkstra from its source gives dist_c and a shortest-path
//      tree; a greedy Steiner tree with link weights raised by the load of
//      earlier chunks on the link and its shared ports gives one that
//      spreads traffic and crosses costly links once; the better set of
//      trees is the warm start and its makespan H bounds T;
//   2. links that cannot deliver c before H are left out of the model, and
//      M_l = H + cost(l) is the tightest valid big-M;
//   3. rows are emitted chunk by chunk in a fixed order (determinism).
//
//===----------------------------------------------------------------------===//
#include "passes/RoutingModel.h"
#include "passes/Symmetry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <set>

using namespace tacclc;
using namespace tacclc::ir;
using solver::Term;
using solver::VarId;

namespace {
/// Per-chunk path data: true shortest distances (for cuts and pruning) and
/// the warm-start tree with its arrival times.
struct ChunkPaths {
  std::vector<double> Dist;     ///< Shortest time from the chunk's pre ranks.
  std::vector<LinkId> Parent;   ///< Warm-start tree link into each rank.
  std::vector<double> TreeTime; ///< Arrival time along the tree.
};

/// Dijkstra from \p From (or, when empty, the pre ranks of \p C) with
/// per-link weights \p Weight; returns distances and a tree (ties: the
/// first link in declaration order).
std::pair<std::vector<double>, std::vector<LinkId>>
dijkstra(const Sketch &S, ChunkId C, const std::vector<double> &Weight,
         const std::vector<bool> &From = {}) {
  const Topology &T = S.Topo;
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Dist(T.getNumRanks(), Inf);
  std::vector<LinkId> Parent(T.getNumRanks());
  std::vector<bool> Done(T.getNumRanks(), false);
  if (From.empty())
    for (RankId Pre : S.Coll.chunk(C).Pre)
      Dist[Pre.index()] = 0;
  else
    for (unsigned R = 0; R < From.size(); ++R)
      if (From[R])
        Dist[R] = 0;
  for (unsigned Step = 0; Step < T.getNumRanks(); ++Step) {
    unsigned Best = T.getNumRanks();
    for (unsigned R = 0; R < T.getNumRanks(); ++R)
      if (!Done[R] && std::isfinite(Dist[R]) &&
          (Best == T.getNumRanks() || Dist[R] < Dist[Best]))
        Best = R;
    if (Best == T.getNumRanks())
      break;
    Done[Best] = true;
    for (LinkId L : T.outLinks(RankId(Best))) {
      unsigned Dst = T.link(L).Dst.index();
      double Via = Dist[Best] + Weight[L.index()];
      if (!Done[Dst] && Via < Dist[Dst] * (1 - 1e-12)) {
        Dist[Dst] = Via;
        Parent[Dst] = L;
      }
    }
  }
  return {Dist, Parent};
}

/// A tree that reaches every post rank of \p C: repeatedly join the post
/// rank nearest to the tree by its shortest path from the tree (the
/// Takahashi-Matsuyama heuristic for Steiner trees), so a costly link into
/// a node is crossed once and the node is then served by cheaper ones.
std::vector<LinkId> steinerTree(const Sketch &S, ChunkId C,
                                const std::vector<double> &Weight) {
  const Topology &T = S.Topo;
  std::vector<bool> InTree(T.getNumRanks(), false);
  std::vector<LinkId> Parent(T.getNumRanks());
  for (RankId Pre : S.Coll.chunk(C).Pre)
    InTree[Pre.index()] = true;
  for (;;) {
    auto [Dist, Via] = dijkstra(S, C, Weight, InTree);
    unsigned Best = T.getNumRanks();
    for (RankId Post : S.Coll.chunk(C).Post)
      if (!InTree[Post.index()] && std::isfinite(Dist[Post.index()]) &&
          (Best == T.getNumRanks() || Dist[Post.index()] < Dist[Best]))
        Best = Post.index();
    if (Best == T.getNumRanks())
      return Parent;
    for (unsigned R = Best; !InTree[R]; R = T.link(Via[R]).Src.index()) {
      InTree[R] = true;
      Parent[R] = Via[R];
    }
  }
}

/// Shortest distances of \p C, and a warm-start tree that avoids links and
/// shared ports already loaded by earlier chunks (weight = cost + the load
/// of the link and of each port it uses), so the warm start spreads
/// traffic over parallel paths instead of piling it on one link or NIC.
/// \p Load holds the load of every link so far.
ChunkPaths paths(const Sketch &S, ChunkId C, double Bytes,
                 const std::vector<double> &Load,
                 const std::vector<Resource> &Ports, bool Spread) {
  const Topology &T = S.Topo;
  std::vector<double> Cost(T.links().size()), Weight(T.links().size());
  std::vector<double> Busy(Load);
  if (Spread)
    for (const Resource &P : Ports) {
      double PortLoad = 0;
      for (LinkId L : P.Links)
        PortLoad += Load[L.index()];
      for (LinkId L : P.Links)
        Busy[L.index()] += PortLoad;
    }
  for (unsigned L = 0; L < T.links().size(); ++L) {
    Cost[L] = S.mayCarry(C, LinkId(L))
                  ? T.link(LinkId(L)).costUs(Bytes)
                  : std::numeric_limits<double>::infinity();
    Weight[L] = Cost[L] + (Spread ? Busy[L] : 0.0);
  }
  ChunkPaths P;
  P.Dist = dijkstra(S, C, Cost).first;
  P.Parent = Spread ? steinerTree(S, C, Weight) : dijkstra(S, C, Weight).second;
  // Keep only the tree links that lead to a post rank.
  std::vector<bool> Needed(T.getNumRanks(), false);
  for (RankId Post : S.Coll.chunk(C).Post)
    for (unsigned R = Post.index(); !Needed[R] && P.Parent[R].isValid();
         R = T.link(P.Parent[R]).Src.index())
      Needed[R] = true;
  P.TreeTime.assign(T.getNumRanks(), 0.0);
  std::function<double(unsigned)> Time = [&](unsigned R) -> double {
    if (!P.Parent[R].isValid())
      return 0.0;
    const Link &L = T.link(P.Parent[R]);
    return Time(L.Src.index()) + Cost[P.Parent[R].index()];
  };
  for (unsigned R = 0; R < T.getNumRanks(); ++R) {
    if (!Needed[R]) {
      P.Parent[R] = LinkId();
      continue;
    }
    P.TreeTime[R] = Time(R);
  }
  return P;
}

/// The paths of chunk G(C) given those of C: everything moved by G.
ChunkPaths imagePaths(const Sketch &S, const SymmetryGroup &Group, unsigned G,
                      const ChunkPaths &P) {
  if (G == 0)
    return P;
  ChunkPaths Out;
  unsigned N = S.Topo.getNumRanks();
  Out.Dist.resize(N);
  Out.Parent.resize(N);
  Out.TreeTime.resize(N);
  for (unsigned R = 0; R < N; ++R) {
    unsigned To = Group.rank(G, RankId(R)).index();
    Out.Dist[To] = P.Dist[R];
    Out.TreeTime[To] = P.TreeTime[R];
    Out.Parent[To] =
        P.Parent[R].isValid() ? Group.link(G, P.Parent[R]) : LinkId();
  }
  return Out;
}

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
                       RoutingModel &RM, const std::vector<ChunkPaths> &Paths,
                       std::vector<double> &Start, RowDeduper &Rows) {
  const Topology &Topo = S.Topo;
  const double Bytes = S.chunkBytes();
  solver::Model &M = RM.Model;
  const unsigned NumChunks = S.Coll.getNumChunks();
  double Cheapest = std::numeric_limits<double>::infinity();
  for (const Link &L : Topo.links())
    if (L.Switch >= 0 && Topo.switches()[L.Switch].Policy != SwitchPolicy::Free)
      Cheapest = std::min(Cheapest, L.costUs(Bytes));
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
        Used |= RM.UseVar[C][L] && Paths[C].Parent[Lk.Dst.index()] == LinkId(L);
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
} // namespace

RoutingModel tacclc::buildRoutingModel(const Sketch &S,
                                       const SymmetryGroup &Group) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  const double Bytes = S.chunkBytes();
  const unsigned NumRanks = Topo.getNumRanks();
  const unsigned NumLinks = Topo.links().size();

  const std::vector<Resource> Ports = Topo.resources();

  // 1. Shortest distances and warm-start trees: plain shortest-path trees,
  //    or trees that avoid loaded links; the better makespan is the horizon.
  std::vector<ChunkPaths> Paths;
  double H = 0, LowerBound = 0;
  for (bool Spread : {false, true}) {
    std::vector<ChunkPaths> Try(Coll.getNumChunks());
    std::vector<double> Load(NumLinks, 0.0);
    double TryH = 0;
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      if (!Group.isRepresentative(ChunkId(C)))
        continue;
      // A representative's tree, and its images for the rest of the orbit
      // (a symmetric warm start).
      ChunkPaths P = paths(S, ChunkId(C), Bytes, Load, Ports, Spread);
      for (unsigned G = 0; G < Group.size(); ++G) {
        ChunkPaths &Image = Try[Group.chunk(G, ChunkId(C)).index()];
        Image = imagePaths(S, Group, G, P);
        for (unsigned R = 0; R < NumRanks; ++R)
          if (Image.Parent[R].isValid())
            Load[Image.Parent[R].index()] +=
                Topo.link(Image.Parent[R]).costUs(Bytes);
      }
      for (RankId R : Coll.chunk(ChunkId(C)).Post) {
        TryH = std::max(TryH, P.TreeTime[R.index()]);
        LowerBound = std::max(LowerBound, P.Dist[R.index()]);
      }
    }
    for (unsigned L = 0; L < NumLinks; ++L)
      TryH = std::max(TryH, Load[L] / Topo.link(LinkId(L)).Multiplicity);
    for (const Resource &P : Ports) {
      double PortLoad = 0;
      for (LinkId L : P.Links)
        PortLoad += Load[L.index()];
      TryH = std::max(TryH, PortLoad);
    }
    if (Paths.empty() || TryH < H) {
      Paths = std::move(Try);
      H = TryH;
    }
  }

  RoutingModel RM;
  solver::Model &M = RM.Model;
  M.setSense(solver::Sense::Minimize);
  RM.Makespan =
      M.addVariable("T", LowerBound, H, solver::VarKind::Continuous, 1.0);
  RM.UseVar.assign(Coll.getNumChunks(),
                   std::vector<std::optional<VarId>>(NumLinks));
  std::vector<double> Start; // warm start values in variable order
  Start.push_back(H);
  const double Eps =
      1e-3 / std::max<double>(1.0, Coll.getNumChunks() * NumRanks);

  // Variables and per-chunk rows for orbit representatives only.
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    const ChunkId Ch(C);
    if (!Group.isRepresentative(Ch))
      continue;
    const ChunkPaths &P = Paths[C];
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
    for (unsigned L = 0; L < NumLinks; ++L) {
      const Link &Lk = Topo.link(LinkId(L));
      if (Coll.isPre(Ch, Lk.Dst) || !std::isfinite(P.Dist[Lk.Src.index()]) ||
          !S.mayCarry(Ch, LinkId(L)))
        continue;
      if (P.Dist[Lk.Src.index()] + Lk.costUs(Bytes) > H * (1 + 1e-9) + 1e-9)
        continue;
      RM.UseVar[C][L] = M.addBinary(
          fmt::format("x_c{}_l{}_{}", C, Lk.Src.index(), Lk.Dst.index()));
      bool InTree = P.Parent[Lk.Dst.index()] == LinkId(L);
      Start.push_back(InTree ? 1.0 : 0.0);
    }
    // 3. Rows.
    for (unsigned R = 0; R < NumRanks; ++R) {
      if (Coll.isPre(Ch, RankId(R)))
        continue;
      std::vector<Term> In, Cut;
      for (LinkId L : Topo.inLinks(RankId(R)))
        if (auto X = RM.UseVar[C][L.index()]) {
          In.push_back({*X, 1.0});
          const Link &Lk = Topo.link(L);
          Cut.push_back({*X, -(P.Dist[Lk.Src.index()] + Lk.costUs(Bytes))});
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
    for (unsigned L = 0; L < NumLinks; ++L) {
      auto X = RM.UseVar[C][L];
      if (!X)
        continue;
      const Link &Lk = Topo.link(LinkId(L));
      unsigned Src = Lk.Src.index(), Dst = Lk.Dst.index();
      double Cost = Lk.costUs(Bytes), BigM = H + Cost;
      // t[c,dst] - t[c,src] - M x >= cost - M
      std::vector<Term> Row = {{*Arrive[Dst], 1.0}, {*X, -BigM}};
      if (Arrive[Src])
        Row.push_back({*Arrive[Src], -1.0});
      M.addGreaterEqual(fmt::format("time_c{}_l{}_{}", C, Src, Dst), Row,
                        Cost - BigM);
      if (!Coll.isPre(Ch, Lk.Src)) {
        std::vector<Term> Fwd = {{*X, 1.0}};
        for (LinkId In : Topo.inLinks(Lk.Src))
          if (auto Y = RM.UseVar[C][In.index()])
            Fwd.push_back({*Y, -1.0});
        M.addLessEqual(fmt::format("fwd_c{}_l{}_{}", C, Src, Dst), Fwd, 0.0);
      }
    }
  }
  // Every other chunk uses its representative's variables, moved by the
  // group element that maps the representative onto it.
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    ChunkId Ch(C);
    if (Group.isRepresentative(Ch))
      continue;
    unsigned Rep = Group.representative(Ch).index();
    for (unsigned L = 0; L < NumLinks; ++L)
      RM.UseVar[C][L] =
          RM.UseVar[Rep][Group.representativeLink(Ch, LinkId(L)).index()];
  }
  // Valid cuts (not in TACCL): a chunk enters every node that needs it but
  // holds none of its pre ranks at least once, and never crosses a link
  // both ways. The first makes inter-node load visible to the LP bound.
  if (Topo.getNumNodes() > 1)
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
      if (!Group.isRepresentative(ChunkId(C)))
        continue;
      const Chunk &Ch = Coll.chunk(ChunkId(C));
      for (unsigned N = 0; N < Topo.getNumNodes(); ++N) {
        bool HasPre = false, HasPost = false;
        for (RankId R : Ch.Pre)
          HasPre |= Topo.nodeOf(R) == N;
        for (RankId R : Ch.Post)
          HasPost |= Topo.nodeOf(R) == N;
        if (HasPre || !HasPost)
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

  // Relaxed bandwidth: each link's total load bounds the makespan. Under
  // symmetry the rows of a link's images are the same row, kept once.
  RowDeduper Rows(M);
  for (unsigned L = 0; L < NumLinks; ++L) {
    std::vector<Term> Row = {{RM.Makespan, 1.0}};
    const Link &Lk = Topo.link(LinkId(L));
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
      if (auto X = RM.UseVar[C][L])
        Row.push_back({*X, -Lk.costUs(Bytes) / Lk.Multiplicity});
    if (Row.size() > 1)
      Rows.addGreaterEqual(
          fmt::format("load_l{}_{}", Lk.Src.index(), Lk.Dst.index()), Row, 0.0);
  }
  // ... and so does each shared port's.
  for (size_t P = 0; P < Ports.size(); ++P) {
    std::vector<Term> Row = {{RM.Makespan, 1.0}};
    for (LinkId L : Ports[P].Links)
      for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
        if (auto X = RM.UseVar[C][L.index()])
          Row.push_back({*X, -Topo.link(L).costUs(Bytes)});
    if (Row.size() > 2)
      Rows.addGreaterEqual(fmt::format("port{}", P), Row, 0.0);
  }
  addSwitchPolicies(S, Group, RM, Paths, Start, Rows);
  RM.WarmStart = std::move(Start);
  RM.WarmStartMakespanUs = H;
  return RM;
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
