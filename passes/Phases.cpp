//===- passes/Phases.cpp - Solving a sketch in phases ---------------------===//
//
// The plan is fixed before any phase is solved. For every class of chunks
// the relay rules treat alike (one per local GPU that sends, or one when
// the sketch has no `sender` rules) and every phase k, Dist[k][r][d] is the
// fewest hops from rank r to rank d using phase k's links, then phase
// k + 1's, and so on (0 from d to itself after the last phase). A chunk's
// targets in phase k follow from Dist[k + 1]; its holders grow phase by
// phase. Ranks number at most a few thousand, so the R x R tables per
// phase and class are cheap next to any solve.
//
//===----------------------------------------------------------------------===//
#include "passes/Phases.h"

#include "passes/Symmetry.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <tuple>

using namespace tacclc;
using namespace tacclc::ir;

namespace {

constexpr unsigned Far = std::numeric_limits<unsigned>::max() / 4;

/// Hops from the ranks in \p From over \p Out (adjacency lists).
std::vector<unsigned> hops(const std::vector<std::vector<unsigned>> &Out,
                           llvm::ArrayRef<unsigned> From) {
  std::vector<unsigned> D(Out.size(), Far);
  std::deque<unsigned> Work;
  for (unsigned R : From)
    if (D[R] != 0) {
      D[R] = 0;
      Work.push_back(R);
    }
  while (!Work.empty()) {
    unsigned R = Work.front();
    Work.pop_front();
    for (unsigned Next : Out[R])
      if (D[Next] == Far) {
        D[Next] = D[R] + 1;
        Work.push_back(Next);
      }
  }
  return D;
}

/// The ranks phase sketch \p P lets chunk \p C go to from each rank.
std::vector<std::vector<unsigned>> adjacency(const Sketch &P, ChunkId C) {
  std::vector<std::vector<unsigned>> Out(P.Topo.getNumRanks());
  for (unsigned L = 0; L < P.Topo.links().size(); ++L) {
    const Link &Lk = P.Topo.link(LinkId(L));
    if (P.mayCarry(C, LinkId(L)))
      Out[Lk.Src.index()].push_back(Lk.Dst.index());
  }
  for (auto &Next : Out) {
    llvm::sort(Next);
    Next.erase(std::unique(Next.begin(), Next.end()), Next.end());
  }
  return Out;
}

/// The phases' distance tables for the chunks that \p C's relay rules
/// cover: Dist[k][r * R + d], k from 0 to the number of phases.
std::vector<std::vector<unsigned>>
distances(const std::vector<Sketch> &Phases, ChunkId C,
          std::vector<std::vector<std::vector<unsigned>>> &Adj) {
  unsigned R = Phases.front().Topo.getNumRanks();
  size_t K = Phases.size();
  std::vector<std::vector<unsigned>> Dist(K + 1,
                                          std::vector<unsigned>(R * R, Far));
  for (unsigned D = 0; D < R; ++D)
    Dist[K][D * R + D] = 0;
  Adj.clear();
  for (const Sketch &P : Phases)
    Adj.push_back(adjacency(P, C));
  for (size_t Kk = K; Kk-- > 0;) {
    for (unsigned From = 0; From < R; ++From) {
      unsigned Start[] = {From};
      std::vector<unsigned> H = hops(Adj[Kk], Start);
      for (unsigned Via = 0; Via < R; ++Via) {
        if (H[Via] == Far)
          continue;
        const unsigned *Later = &Dist[Kk + 1][Via * R];
        unsigned *Row = &Dist[Kk][From * R];
        for (unsigned D = 0; D < R; ++D)
          Row[D] = std::min(Row[D], H[Via] + Later[D]);
      }
    }
  }
  return Dist;
}

/// Keeps the symmetries of \p S, in order, that still act on phase \p P.
void keepActingSymmetries(const Sketch &S, Sketch &P) {
  std::vector<Symmetry> Kept;
  for (const Symmetry &Sym : S.Symmetries) {
    P.Symmetries = Kept;
    P.Symmetries.push_back(Sym);
    std::string Why;
    const Symmetry *Culprit = nullptr;
    if (tryBuildSymmetryGroup(P, Why, Culprit))
      Kept.push_back(Sym);
  }
  P.Symmetries = std::move(Kept);
}

std::string chunkName(const Sketch &S, ChunkId C) {
  const Chunk &Ch = S.Coll.chunk(C);
  return fmt::format("chunk {} (input chunk {} of rank {})", C.index(),
                     Ch.InputIndex, Ch.Source.index());
}

} // namespace

std::optional<std::vector<Sketch>>
tacclc::phaseSketches(const Sketch &S, DiagnosticEngine &Diags) {
  const Topology &T = S.Topo;
  const unsigned R = T.getNumRanks(), G = T.getGpusPerNode();
  std::vector<Sketch> Phases;
  for (const Phase &Ph : S.Phases) {
    Sketch P = S;
    P.Phases.clear();
    P.PhaseLinks.assign(T.links().size(), false);
    for (unsigned L = 0; L < T.links().size(); ++L) {
      const Link &Lk = T.link(LinkId(L));
      bool Inside = T.nodeOf(Lk.Src) == T.nodeOf(Lk.Dst);
      P.PhaseLinks[L] = Inside == (Ph.Where == Phase::WithinNodes);
    }
    Phases.push_back(std::move(P));
  }

  // The relay rules treat the chunks of one sending GPU alike.
  std::map<unsigned, std::vector<std::vector<unsigned>>> DistOf;
  std::map<unsigned, std::vector<std::vector<std::vector<unsigned>>>> AdjOf;
  const Collective &Coll = S.Coll;
  std::vector<std::vector<std::pair<std::vector<RankId>, std::vector<RankId>>>>
      Ends(Phases.size());
  for (unsigned C = 0; C < Coll.getNumChunks(); ++C) {
    const Chunk &Ch = Coll.chunk(ChunkId(C));
    unsigned Class = S.Carries.empty() ? 0 : Ch.Source.index() % G + 1;
    if (!DistOf.count(Class))
      DistOf[Class] = distances(Phases, ChunkId(C), AdjOf[Class]);
    const auto &Dist = DistOf[Class];
    const auto &Adj = AdjOf[Class];
    std::vector<bool> Holds(R, false);
    for (RankId P : Ch.Pre)
      Holds[P.index()] = true;
    for (size_t K = 0; K < Phases.size(); ++K) {
      std::vector<unsigned> From;
      for (unsigned Rk = 0; Rk < R; ++Rk)
        if (Holds[Rk])
          From.push_back(Rk);
      std::vector<unsigned> Near = hops(Adj[K], From);
      std::vector<bool> Target = Holds;
      for (RankId D : Ch.Post) {
        unsigned Dst = D.index();
        if (Holds[Dst])
          continue;
        std::tuple<unsigned, bool, unsigned, unsigned> Best{Far, true, Far, R};
        for (unsigned Rk = 0; Rk < R; ++Rk) {
          if (Near[Rk] == Far || Dist[K + 1][Rk * R + Dst] == Far)
            continue;
          Best = std::min(Best, {Dist[K + 1][Rk * R + Dst], Rk % G != Dst % G,
                                 Near[Rk], Rk});
        }
        unsigned Via = std::get<3>(Best);
        if (Via == R) {
          Diags.report(DiagId::PhasesUndeliverable, S.Phases.front().Loc,
                       chunkName(S, ChunkId(C)), Dst);
          return std::nullopt;
        }
        Target[Via] = true;
      }
      std::vector<RankId> Pre, Post;
      for (unsigned Rk = 0; Rk < R; ++Rk) {
        if (Holds[Rk])
          Pre.push_back(RankId(Rk));
        if (Target[Rk])
          Post.push_back(RankId(Rk));
      }
      Ends[K].emplace_back(std::move(Pre), std::move(Post));
      Holds = std::move(Target);
    }
  }
  for (size_t K = 0; K < Phases.size(); ++K) {
    for (unsigned C = 0; C < Coll.getNumChunks(); ++C)
      Phases[K].Coll.setChunkEnds(ChunkId(C), std::move(Ends[K][C].first),
                                  std::move(Ends[K][C].second));
    keepActingSymmetries(S, Phases[K]);
  }
  return Phases;
}

Schedule tacclc::composeSchedules(llvm::ArrayRef<Schedule> Phases) {
  Schedule Out;
  double Offset = 0;
  for (const Schedule &P : Phases) {
    for (Transfer T : P.Transfers) {
      T.StartUs += Offset;
      T.EndUs += Offset;
      Out.Transfers.push_back(T);
    }
    Offset += P.MakespanUs;
  }
  Out.MakespanUs = Offset;
  Out.sortTransfers();
  return Out;
}

Routes tacclc::composeRoutes(llvm::ArrayRef<Routes> Phases) {
  std::map<unsigned, std::vector<LinkId>> Links;
  Routes Out;
  for (const Routes &P : Phases) {
    for (const ChunkRoute &C : P.Chunks) {
      auto &L = Links[C.Chunk.index()];
      L.insert(L.end(), C.Links.begin(), C.Links.end());
    }
    Out.RelaxedMakespanUs += P.RelaxedMakespanUs;
    if (Out.SolverStatus.empty() || P.SolverStatus != "optimal")
      Out.SolverStatus = P.SolverStatus;
  }
  for (auto &[C, L] : Links)
    Out.Chunks.push_back({ChunkId(C), std::move(L)});
  return Out;
}
