//===- passes/RoutingModelSize.cpp - Size of the routing model ------------===//
//
// routingModelSize: the variables, rows and nonzeros of the stage-1 routing
// model (RoutingModel.cpp) counted without building it, so that a model
// that cannot fit the memory budget is refused before it is allocated
// (passes/ModelSize.h). Each
// count follows the row it stands for in buildRoutingModel; both decide
// which links a chunk may use with passes/UsableLinks.h.
//
//===----------------------------------------------------------------------===//
#include "passes/RoutingModel.h"
#include "passes/Symmetry.h"
#include "passes/UsableLinks.h"

#include "support/Deadline.h"

#include <algorithm>
#include <cmath>

using namespace tacclc;
using namespace tacclc::ir;
using namespace tacclc::stage1;

namespace {
/// Counts one row of \p Terms terms.
void addRow(ModelSize &Z, uint64_t Terms) {
  ++Z.Rows;
  Z.Nonzeros += Terms;
}

/// Counts the enter rows of representative \p Ch, which may use the links
/// \p U.
void countEnterRows(const Sketch &S, ChunkId Ch, const std::vector<bool> &U,
                    ModelSize &Z) {
  const Topology &Topo = S.Topo;
  const unsigned NumLinks = Topo.links().size();
  for (unsigned N = 0; N < Topo.getNumNodes(); ++N) {
    if (!mustEnterNode(Topo, S.Coll.chunk(Ch), N))
      continue;
    uint64_t Enter = 0;
    for (unsigned L = 0; L < NumLinks; ++L) {
      const Link &Lk = Topo.link(LinkId(L));
      Enter += U[L] && Topo.nodeOf(Lk.Src) != N && Topo.nodeOf(Lk.Dst) == N;
    }
    addRow(Z, Enter); // enter
  }
}

/// Counts the variables and per-chunk rows of representative \p Ch with
/// paths \p P, and sets \p U to the links it may use (as buildRoutingModel
/// decides). \p InUse is scratch space, one entry per rank.
void countChunk(const Sketch &S, ChunkId Ch, const ChunkPaths &P,
                UsableLinks &Usable, std::vector<bool> &U,
                std::vector<unsigned> &InUse, ModelSize &Z) {
  const Topology &Topo = S.Topo;
  const Collective &Coll = S.Coll;
  const unsigned NumRanks = Topo.getNumRanks();
  const unsigned NumLinks = Topo.links().size();
  U.assign(NumLinks, false);
  // Per rank, how many of the usable links enter it.
  std::fill(InUse.begin(), InUse.end(), 0);
  Usable.setChunk(Ch, P);
  for (unsigned L = 0; L < NumLinks; ++L)
    if (Usable(LinkId(L))) {
      U[L] = true;
      ++Z.Variables;
      ++Z.IntegerVariables;
      ++InUse[Topo.link(LinkId(L)).Dst.index()];
    }
  for (unsigned R = 0; R < NumRanks; ++R) {
    if (Coll.isPre(Ch, RankId(R)))
      continue;
    bool Post = Coll.isPost(Ch, RankId(R)), Arrives = std::isfinite(P.Dist[R]);
    Z.Variables += Arrives;
    if (Post || InUse[R] > 0)
      addRow(Z, InUse[R]); // recv
    if (Arrives && InUse[R] > 0)
      addRow(Z, InUse[R] + 1); // cut
    if (Arrives && Post)
      addRow(Z, 2); // done
  }
  for (unsigned L = 0; L < NumLinks; ++L) {
    if (!U[L])
      continue;
    const Link &Lk = Topo.link(LinkId(L));
    bool FromPre = Coll.isPre(Ch, Lk.Src);
    addRow(Z, FromPre ? 2 : 3); // time
    if (!FromPre)
      addRow(Z, 1 + InUse[Lk.Src.index()]); // fwd
    auto Back = Topo.findLink(Lk.Dst, Lk.Src);
    if (Back && Back->index() > L && U[Back->index()])
      addRow(Z, 2); // once
  }
  if (Topo.getNumNodes() > 1)
    countEnterRows(S, Ch, U, Z);
}

/// Chunks per link (an orbit's chunks through their representative's
/// variables, \p Use per representative): the terms of the load, port and
/// switch rows. \p LinkOrbit: per link, its orbit's lowest link.
std::vector<uint64_t> chunksPerLink(const Sketch &S, const SymmetryGroup &Group,
                                    const std::vector<unsigned> &LinkOrbit,
                                    const std::vector<std::vector<bool>> &Use) {
  const unsigned NumLinks = S.Topo.links().size();
  // A chunk uses link l where its representative uses the preimage of l
  // under the element that moves it. Over an orbit of chunks (one per
  // element: the action is free), a representative's link u thus puts
  // one chunk on l for each element mapping u to l: as many as u's
  // stabiliser has, if l is in u's orbit of links, else none. So each
  // link of an orbit carries the same number of chunks, counted once per
  // orbit of links from each representative's usable links.
  std::vector<uint64_t> OrbitLinks(NumLinks, 0), PerOrbit(NumLinks, 0);
  for (unsigned L = 0; L < NumLinks; ++L)
    ++OrbitLinks[LinkOrbit[L]];
  for (size_t C = 0; C < Use.size(); ++C)
    for (unsigned L = 0; L < Use[C].size(); ++L)
      if (Use[C][L])
        PerOrbit[LinkOrbit[L]] += Group.size() / OrbitLinks[LinkOrbit[L]];
  std::vector<uint64_t> OnLink(NumLinks);
  for (unsigned L = 0; L < NumLinks; ++L)
    OnLink[L] = PerOrbit[LinkOrbit[L]];
  return OnLink;
}

/// Counts the load, port and switch-policy rows (and the policies'
/// binaries) of links with \p OnLink chunks each; returns the terms of the
/// rows RowDeduper keeps keys of.
uint64_t countSharedRows(const Sketch &S,
                         const std::vector<unsigned> &LinkOrbit,
                         const std::vector<uint64_t> &OnLink, ModelSize &Z) {
  const Topology &Topo = S.Topo;
  const unsigned NumLinks = Topo.links().size();
  uint64_t Deduped = 0;
  for (unsigned L = 0; L < NumLinks; ++L)
    if (OnLink[L] > 0) {
      addRow(Z, 1 + OnLink[L]); // load
      Deduped += OnLink[L];
    }
  for (const Resource &Port : Topo.resources()) {
    uint64_t Terms = 0;
    for (LinkId L : Port.Links)
      Terms += OnLink[L.index()];
    if (Terms >= 2) {
      addRow(Z, 1 + Terms); // port
      Deduped += Terms;
    }
  }
  std::vector<bool> Owned(NumLinks, false);
  for (unsigned L = 0; L < NumLinks; ++L) {
    const Link &Lk = Topo.link(LinkId(L));
    if (Lk.Switch < 0 || OnLink[L] == 0 ||
        Topo.switches()[Lk.Switch].Policy == SwitchPolicy::Free)
      continue;
    // One binary per orbit of links, kept by its lowest link.
    unsigned Owner = LinkOrbit[L];
    if (!Owned[Owner]) {
      Owned[Owner] = true;
      ++Z.Variables;
      ++Z.IntegerVariables;
    }
    addRow(Z, 1 + OnLink[L]); // uc
    Deduped += OnLink[L];
  }
  return Deduped;
}
} // namespace

ModelSize tacclc::routingModelSize(const Sketch &S, const SymmetryGroup &Group,
                                   const RoutingStart &Start,
                                   ModelSize *Unreduced) {
  const unsigned NumLinks = S.Topo.links().size();
  const unsigned NumChunks = S.Coll.getNumChunks();
  PhaseScope Phase("estimating the routing model");
  ModelSize Z;
  Z.Variables = 1; // T
  // Chunks per orbit, by representative: the images of a representative's
  // variables and rows are as many (the group maps paths, relay rules and
  // nodes onto themselves).
  std::vector<uint64_t> OrbitSize(NumChunks, 0);
  for (unsigned C = 0; C < NumChunks; ++C)
    ++OrbitSize[Group.representative(ChunkId(C)).index()];
  if (Unreduced)
    *Unreduced = Z;
  // Per representative, which links it may use.
  std::vector<std::vector<bool>> Use(NumChunks);
  std::vector<unsigned> InUse(S.Topo.getNumRanks());
  UsableLinks Usable(S, Start.Horizon);
  for (unsigned C = 0; C < NumChunks; ++C) {
    if (!Group.isRepresentative(ChunkId(C)))
      continue;
    checkDeadline();
    ModelSize One;
    countChunk(S, ChunkId(C), Start.Paths[C], Usable, Use[C], InUse, One);
    for (auto [Into, Times] :
         {std::pair<ModelSize *, uint64_t>(&Z, 1), {Unreduced, OrbitSize[C]}})
      if (Into) {
        Into->Variables += One.Variables * Times;
        Into->IntegerVariables += One.IntegerVariables * Times;
        Into->Rows += One.Rows * Times;
        Into->Nonzeros += One.Nonzeros * Times;
      }
  }
  // The images' links are the representatives', moved: the same per link
  // with or without the reduction.
  const std::vector<unsigned> LinkOrbit = Group.linkOrbits();
  std::vector<uint64_t> OnLink = chunksPerLink(S, Group, LinkOrbit, Use);
  // UseVar, the warm-start vector and RowDeduper's keys.
  auto Builder = [&](ModelSize &Into, uint64_t Deduped) {
    Into.BuilderBytes = uint64_t(NumChunks) * (NumLinks * 8 + 32) +
                        Into.Variables * 16 + Deduped * 16;
  };
  Builder(Z, countSharedRows(S, LinkOrbit, OnLink, Z));
  if (Unreduced) {
    std::vector<unsigned> Alone(NumLinks);
    for (unsigned L = 0; L < NumLinks; ++L)
      Alone[L] = L;
    Builder(*Unreduced, countSharedRows(S, Alone, OnLink, *Unreduced));
  }
  return Z;
}
