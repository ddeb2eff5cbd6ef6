//===- passes/FlowNetwork.cpp - A topology as a flow network --------------===//
//
// Building the network of ranks and port vertices from the topology's links
// and shared resources (parallel chain edges merged into one), and Dinic's
// maximum-flow algorithm on real capacities with a relative tolerance.
//
//===----------------------------------------------------------------------===//
#include "passes/FlowNetwork.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

using namespace tacclc;

FlowNetwork FlowNetwork::reversed() const {
  FlowNetwork R = *this;
  for (Edge &E : R.Edges)
    std::swap(E.From, E.To);
  return R;
}

double FlowNetwork::capacityOut(const std::vector<char> &InS) const {
  double Sum = 0;
  for (const Edge &E : Edges)
    if (InS[E.From] && !InS[E.To])
      Sum += E.Capacity;
  return Sum;
}

FlowNetwork tacclc::buildFlowNetwork(const ir::Topology &T) {
  FlowNetwork G;
  G.NumRanks = T.getNumRanks();
  const std::vector<ir::Resource> Ports = T.resources();
  G.NumVertices = G.NumRanks + 2 * static_cast<unsigned>(Ports.size());
  auto Cap = [](double Beta, double Mult) {
    return Beta > 0 ? std::min(Mult / Beta, UnboundedCapacity)
                    : UnboundedCapacity;
  };
  std::map<std::pair<unsigned, unsigned>, size_t> Index;
  auto Add = [&](unsigned From, unsigned To, double C, int Label) {
    auto [It, New] = Index.try_emplace({From, To}, G.Edges.size());
    if (New)
      G.Edges.push_back({From, To, 0, Label});
    FlowNetwork::Edge &E = G.Edges[It->second];
    E.Capacity = std::min(E.Capacity + C, UnboundedCapacity);
  };

  // Each port: its two vertices and the edge between them; which links
  // pass through it, and whether they leave or arrive by it.
  std::vector<std::vector<unsigned>> PortsOf(T.links().size());
  std::vector<char> Leaving(Ports.size());
  for (size_t P = 0; P < Ports.size(); ++P) {
    double C = 0;
    std::set<uint32_t> Srcs, Dsts;
    for (ir::LinkId L : Ports[P].Links) {
      const ir::Link &Link = T.link(L);
      C = std::max(C, Cap(Link.BetaUsPerB, 1));
      Srcs.insert(Link.Src.index());
      Dsts.insert(Link.Dst.index());
      PortsOf[L.index()].push_back(static_cast<unsigned>(P));
    }
    Leaving[P] = Srcs.size() <= Dsts.size();
    G.Labels.push_back(Ports[P].Name);
    unsigned V = G.NumRanks + 2 * static_cast<unsigned>(P);
    Add(V, V + 1, C, static_cast<int>(G.Labels.size()) - 1);
  }

  std::map<int, int> ClassLabel;
  for (size_t I = 0; I < T.links().size(); ++I) {
    const ir::Link &L = T.links()[I];
    auto [It, New] = ClassLabel.try_emplace(L.Class, 0);
    if (New) {
      G.Labels.push_back(L.Class >= 0 ? T.classes()[L.Class].Name + " links"
                                      : std::string("links"));
      It->second = static_cast<int>(G.Labels.size()) - 1;
    }
    std::vector<unsigned> Chain = PortsOf[I];
    std::stable_sort(Chain.begin(), Chain.end(), [&](unsigned A, unsigned B) {
      return Leaving[A] > Leaving[B];
    });
    double C = Cap(L.BetaUsPerB, L.Multiplicity);
    unsigned At = L.Src.index();
    for (unsigned P : Chain) {
      unsigned V = G.NumRanks + 2 * P;
      Add(At, V, C, It->second);
      At = V + 1;
    }
    Add(At, L.Dst.index(), C, It->second);
  }
  return G;
}

void MaxFlow::addEdge(unsigned From, unsigned To, double Cap) {
  if (From == To || Cap <= 0)
    return;
  Adj[From].push_back({To, Cap, static_cast<unsigned>(Adj[To].size())});
  Adj[To].push_back({From, 0, static_cast<unsigned>(Adj[From].size() - 1)});
  if (Cap < UnboundedCapacity)
    Eps = std::max(Eps, Cap * 1e-13);
}

bool MaxFlow::levels(unsigned S, unsigned T) {
  Level.assign(Adj.size(), -1);
  std::queue<unsigned> Q;
  Level[S] = 0;
  Q.push(S);
  while (!Q.empty()) {
    unsigned V = Q.front();
    Q.pop();
    for (const Arc &A : Adj[V])
      if (A.Cap > Eps && Level[A.To] < 0) {
        Level[A.To] = Level[V] + 1;
        Q.push(A.To);
      }
  }
  return Level[T] >= 0;
}

double MaxFlow::push(unsigned V, unsigned T, double F) {
  if (V == T)
    return F;
  for (unsigned &I = Next[V]; I < Adj[V].size(); ++I) {
    Arc &A = Adj[V][I];
    if (A.Cap <= Eps || Level[A.To] != Level[V] + 1)
      continue;
    double Got = push(A.To, T, std::min(F, A.Cap));
    if (Got > 0) {
      A.Cap -= Got;
      Adj[A.To][A.Rev].Cap += Got;
      return Got;
    }
  }
  return 0;
}

double MaxFlow::run(unsigned S, unsigned T) {
  double Flow = 0;
  while (levels(S, T)) {
    Next.assign(Adj.size(), 0);
    while (double F = push(S, T, 2 * UnboundedCapacity))
      Flow += F;
  }
  return Flow;
}

std::vector<char> MaxFlow::sourceSide(unsigned S) const {
  std::vector<char> In(Adj.size(), 0);
  std::vector<unsigned> Stack{S};
  In[S] = 1;
  while (!Stack.empty()) {
    unsigned V = Stack.back();
    Stack.pop_back();
    for (const Arc &A : Adj[V])
      if (A.Cap > Eps && !In[A.To]) {
        In[A.To] = 1;
        Stack.push_back(A.To);
      }
  }
  return In;
}
