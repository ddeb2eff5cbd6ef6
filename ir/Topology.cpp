//===- ir/Topology.cpp - Topology queries ---------------------------------===//
//
// Link storage with adjacency lists and a shortest-path query used by the
// routing stage (warm starts, valid inequalities) and by diagnostics; the
// shared ports of switches and NICs; per-size cost profiles.
//
//===----------------------------------------------------------------------===//
#include "ir/Topology.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

using namespace tacclc::ir;

LinkId Topology::addLink(const Link &L) {
  LinkId Id(static_cast<uint32_t>(Links.size()));
  Links.push_back(L);
  LinkIndex.emplace(uint64_t(L.Src.index()) * NumRanks + L.Dst.index(),
                    Id.index());
  Out[L.Src.index()].push_back(Id);
  In[L.Dst.index()].push_back(Id);
  return Id;
}

std::optional<LinkId> Topology::findLink(RankId Src, RankId Dst) const {
  auto It = LinkIndex.find(uint64_t(Src.index()) * NumRanks + Dst.index());
  if (It == LinkIndex.end())
    return std::nullopt;
  return LinkId(It->second);
}

std::vector<double> Topology::distancesFrom(RankId From, double Bytes) const {
  return distancesFrom(From,
                       [Bytes](const Link &L) { return L.costUs(Bytes); });
}

std::vector<double>
Topology::distancesFrom(RankId From,
                        llvm::function_ref<double(const Link &)> Weight) const {
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Dist(NumRanks, Inf);
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> Queue;
  Dist[From.index()] = 0;
  Queue.push({0, From.index()});
  while (!Queue.empty()) {
    auto [D, R] = Queue.top();
    Queue.pop();
    if (D > Dist[R])
      continue;
    for (LinkId Id : Out[R]) {
      const Link &L = link(Id);
      double ND = D + Weight(L);
      if (ND < Dist[L.Dst.index()]) {
        Dist[L.Dst.index()] = ND;
        Queue.push({ND, L.Dst.index()});
      }
    }
  }
  return Dist;
}

CostPoint LinkClass::costsAt(double Bytes) const {
  if (Profile.empty())
    return {Bytes, AlphaUs, BetaUsPerB};
  if (Bytes <= Profile.front().Bytes)
    return Profile.front();
  if (Bytes >= Profile.back().Bytes)
    return Profile.back();
  size_t Hi = 1;
  while (Profile[Hi].Bytes < Bytes)
    ++Hi;
  const CostPoint &A = Profile[Hi - 1], &B = Profile[Hi];
  double W = (std::log(Bytes) - std::log(A.Bytes)) /
             (std::log(B.Bytes) - std::log(A.Bytes));
  return {Bytes, A.AlphaUs + W * (B.AlphaUs - A.AlphaUs),
          A.BetaUsPerB + W * (B.BetaUsPerB - A.BetaUsPerB)};
}

llvm::StringRef tacclc::ir::switchPolicyName(SwitchPolicy P) {
  switch (P) {
  case SwitchPolicy::Free:
    return "free";
  case SwitchPolicy::UcMin:
    return "uc-min";
  case SwitchPolicy::UcMax:
    return "uc-max";
  }
  return "free";
}

int Topology::addNic(Nic N) {
  if (NicOf.empty())
    NicOf.assign(NumRanks, -1);
  int Id = static_cast<int>(Nics.size());
  for (RankId R : N.Ranks)
    NicOf[R.index()] = Id;
  Nics.push_back(std::move(N));
  return Id;
}

Topology Topology::transposed() const {
  Topology T = *this;
  T.Out.assign(NumRanks, {});
  T.In.assign(NumRanks, {});
  T.Links.clear();
  T.LinkIndex.clear();
  for (Link L : Links) {
    std::swap(L.Src, L.Dst);
    T.addLink(L);
  }
  return T;
}

bool Topology::isSymmetric() const {
  for (const Link &L : Links) {
    std::optional<LinkId> B = findLink(L.Dst, L.Src);
    if (!B)
      return false;
    const Link &R = link(*B);
    if (R.AlphaUs != L.AlphaUs || R.BetaUsPerB != L.BetaUsPerB ||
        R.Class != L.Class || R.Multiplicity != L.Multiplicity ||
        R.Switch != L.Switch)
      return false;
  }
  return true;
}

void Topology::applyCostsAt(double Bytes) {
  for (Link &L : Links)
    if (L.Class >= 0 && !Classes[L.Class].Profile.empty()) {
      CostPoint C = Classes[L.Class].costsAt(Bytes);
      L.AlphaUs = C.AlphaUs;
      L.BetaUsPerB = C.BetaUsPerB;
    }
}

std::vector<Resource> Topology::resources() const {
  std::vector<Resource> Result;
  unsigned Port = 0;
  auto Push = [&](std::string Name, std::vector<LinkId> Ids, bool Egress,
                  bool Nic) {
    if (Ids.size() >= 2)
      Result.push_back({std::move(Name), std::move(Ids), Egress, Port, Nic});
  };
  auto Where = [&](RankId R) {
    return std::to_string(nodeOf(R)) + ":" +
           std::to_string(R.index() % GpusPerNode);
  };
  for (size_t S = 0; S < Switches.size(); ++S)
    for (const auto &Group : Switches[S].Groups)
      for (RankId R : Group) {
        std::vector<LinkId> Egress, Ingress;
        for (LinkId Id : Out[R.index()])
          if (link(Id).Switch == int(S))
            Egress.push_back(Id);
        for (LinkId Id : In[R.index()])
          if (link(Id).Switch == int(S))
            Ingress.push_back(Id);
        Push("switch " + Switches[S].Name + " port out of " + Where(R),
             std::move(Egress), true, false);
        Push("switch " + Switches[S].Name + " port into " + Where(R),
             std::move(Ingress), false, false);
        ++Port;
      }
  for (const Nic &N : Nics) {
    std::vector<LinkId> Send, Recv;
    std::string Name = "nic of " + Where(N.Ranks.front());
    for (size_t I = 1; I < N.Ranks.size(); ++I)
      Name += "," + std::to_string(N.Ranks[I].index() % GpusPerNode);
    for (RankId R : N.Ranks) {
      for (LinkId Id : Out[R.index()])
        if (nodeOf(link(Id).Dst) != nodeOf(R))
          Send.push_back(Id);
      for (LinkId Id : In[R.index()])
        if (nodeOf(link(Id).Src) != nodeOf(R))
          Recv.push_back(Id);
    }
    std::sort(Send.begin(), Send.end());
    std::sort(Recv.begin(), Recv.end());
    Push(Name + " (send)", std::move(Send), true, true);
    Push(Name + " (receive)", std::move(Recv), false, true);
    ++Port;
  }
  return Result;
}
