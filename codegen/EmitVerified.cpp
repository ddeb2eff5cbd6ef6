//===- codegen/EmitVerified.cpp - Lowering policy and verification --------===//
//
// The order of the choices:
//
//  1. Waves. Where one chunk takes several buffer slices of its protocol at
//     the sketch's largest size, consecutive slices may overlap if a link's
//     transfers are split into waves. Whether that is faster depends on the
//     algorithm, so with --slice-overlap=auto both programs are lowered and
//     simulated on the sketch's machine, and the faster is kept (ties: the
//     one without waves, which has fewer threadblocks).
//  2. Pacing. Where a rank sends through its NIC to several nodes and a
//     chunk is one slice, the program whose sends wait their turn as the
//     schedule gives it (PaceNics.cpp) is lowered too with
//     --pace-nics=auto, both are simulated (the unpaced one on another
//     core while the paced one is lowered and verified), and the faster is
//     kept (ties: the unpaced one).
//  3. Fusion. Relays are fused into `rcs` steps, keeping every threadblock in
//     schedule order, which cannot deadlock (FuseRelays.cpp); should a fused
//     program still fail the checker, it is lowered again with the ranks the
//     checker named left unfused, and after a few rounds with no fusion.
//  4. The FIFO. A fused program ordered for a FIFO of several messages that
//     fails is first lowered for a FIFO of one; the program that keeps the
//     FIFO's order with the named ranks unfused is built too, and the
//     faster of the two in the simulator is kept.
//
// A trial simulation (one that decides between candidates) stops after a
// fixed amount of work: EmitOptions::TrialFlowUpdates (2^30) messages in
// flight summed over its events. Where every NIC keeps a hundred messages
// in flight at once (an unpaced alltoall on 1,024 GPUs: 6.6 billion),
// max-min sharing over them is recomputed at every event, and a trial
// would take minutes. A stopped trial loses to one that ended (counted, so
// the choice is the same on any machine), and the compile's summary says
// so.
//
// Every candidate is lowered, printed, loaded and simulated at most once and
// kept whole, so the program chosen is never lowered again and its
// simulation is handed on; only the kept one is checked last.
// The legacy runtime is not simulated: it gets no trials.
//
//===----------------------------------------------------------------------===//
#include "codegen/EmitVerified.h"
#include "codegen/LoweringInternal.h"
#include "codegen/SimMachine.h"

#include "support/Deadline.h"

#include "checker/Checker.h"
#include "format/Loader.h"
#include "format/PlanWriter.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <system_error>
#include <thread>

using namespace tacclc;

namespace {
/// How fast the runtime's loader parses XML, at the least, for deciding
/// whether a parse can end before the compile's deadline (pugixml reads
/// 60-70 MB/s on one core of a 2020s server; this leaves room for load).
constexpr double XmlParseBytesPerSecond = 40e6;

/// One lowering: its options, program, text and the text as loaded.
struct Candidate {
  CodegenOptions CG;
  ir::Program Program;
  std::string Xml;
  std::optional<tacclrt::Algo> Plan;
  /// The loader's issues, then the checker's once verify() ran.
  tacclrt::Report Rep;
  bool FusionDropped = false;
  /// verify() ran (its issues are in Rep).
  bool Verified = false;
  /// simulated() ran, and what it measured (nothing: the simulation could
  /// not run or end in time).
  bool Simulated = false;
  std::optional<tacclrt::SimResult> Sim;
  /// The simulation stopped at EmitOptions::TrialFlowUpdates.
  bool SimStopped = false;
};

/// How many slices of its protocol the runtime cuts one chunk into at the
/// largest size \p S is meant for (each slice is one pass over every
/// threadblock's steps).
uint64_t slicesPerChunk(const ir::Sketch &S) {
  uint64_t Bytes = std::max(S.SizeBytes, S.MaxBytes);
  uint64_t Chunks = uint64_t(chunksPerLoop(S.Coll)) * std::max(1u, S.Instances);
  uint64_t PerChunk = runtimeBytes(S.Coll, Bytes) / Chunks;
  uint64_t Slice = tacclrt::protocolSliceBytes(
      tacclrt::parseProtocol(S.Protocol).value_or(tacclrt::Protocol::Simple));
  return (PerChunk + Slice - 1) / Slice;
}

/// Runs a task on another thread where the machine has more than one
/// core, else at once; joins it when destroyed (also while an exception
/// leaves the scope) and rethrows what the task threw.
class Beside {
public:
  explicit Beside(std::function<void()> Task) {
    auto Run = [this, Task = std::move(Task)] {
      try {
        Task();
      } catch (...) {
        Failed = std::current_exception();
      }
    };
    if (std::thread::hardware_concurrency() > 1) {
      try {
        Thread = std::thread(Run);
        return;
      } catch (const std::system_error &) {
        // No thread to be had: run it here.
      }
    }
    Run();
  }
  ~Beside() noexcept(false) {
    if (Thread.joinable())
      Thread.join();
    if (Failed && !std::uncaught_exceptions())
      std::rethrow_exception(Failed);
  }
  Beside(const Beside &) = delete;
  Beside &operator=(const Beside &) = delete;

private:
  std::thread Thread;
  std::exception_ptr Failed;
};

/// The choices of emitVerified() over one schedule.
class Emitter {
public:
  Emitter(const ir::Sketch &S, const ir::Schedule &Sch, const EmitOptions &O,
          DiagnosticEngine &Diags)
      : S(S), Sch(Sch), O(O), Diags(Diags),
        Legacy(O.Dialect == tacclrt::Dialect::Legacy) {}

  std::optional<EmittedProgram> run();

private:
  std::optional<Candidate> lower(const CodegenOptions &CG,
                                 DiagnosticEngine &D) const;
  void verify(Candidate &C) const;
  bool settle(std::optional<Candidate> &C, bool MayDropFifo,
              DiagnosticEngine &D) const;
  std::optional<double> simulated(std::optional<Candidate> &C) const;
  std::optional<Candidate> chooseWaves(CodegenOptions CG);
  std::optional<Candidate> choosePacing(std::optional<Candidate> C);

  const ir::Sketch &S;
  const ir::Schedule &Sch;
  const EmitOptions &O;
  DiagnosticEngine &Diags;
  const bool Legacy;
  /// Trial simulations stopped at their budget (simulated() may run
  /// beside the lowering of another candidate).
  mutable std::atomic<unsigned> TrialsStopped{0};
};

/// Lowers with \p CG, replicates instances, sets the size range and the
/// provenance, prints in the dialect's spellings and loads; nothing (errors in
/// \p D) when the program breaks a runtime limit.
std::optional<Candidate> Emitter::lower(const CodegenOptions &CG,
                                        DiagnosticEngine &D) const {
  Candidate C;
  C.CG = CG;
  std::optional<ir::Program> P = lowerToProgram(S, Sch, CG, D);
  if (!P || !replicateInstances(*P, S.Instances, CG, S.Loc, D))
    return std::nullopt;
  // The size range the runtime selects the program for: the sketch's, or
  // every size. The new runtime's range is inclusive with 0 = unlimited;
  // the old one's is exclusive and 0 would mean "never".
  P->MinBytes = runtimeBytes(S.Coll, S.MinBytes);
  P->MaxBytes = runtimeBytes(S.Coll, S.MaxBytes);
  if (Legacy)
    P->MaxBytes = P->MaxBytes ? P->MaxBytes + 1 : uint64_t(1) << 40;
  P->Origin = O.Origin;
  {
    PhaseScope Printing("printing the XML");
    checkDeadline();
    C.Xml = tacclrt::writePlan(*P, O.Dialect);
  }
  if (C.Xml.size() > tacclrt::MaxPlanFileBytes) {
    D.report(DiagId::LimitExceeded, S.Loc,
             fmt::format("the program's XML has {} bytes; the runtimes read "
                         "at most {} MiB (use fewer chunks, or a sketch "
                         "with fewer transfers)",
                         C.Xml.size(), tacclrt::MaxPlanFileBytes >> 20));
    return std::nullopt;
  }
  C.Program = std::move(*P);
  tacclrt::LoadOptions LO;
  LO.D = O.Dialect;
  // The XML parser checks no deadline: do not start it when it could not
  // end in time (at a rate most machines beat).
  PhaseScope Loading("verifying the program");
  checkDeadlineAhead(double(C.Xml.size()) / XmlParseBytesPerSecond);
  C.Plan = tacclrt::loadPlan(C.Xml, "<generated>", LO, C.Rep);
  return C;
}

/// Proves \p C with the symbolic checker (once loaded without errors).
void Emitter::verify(Candidate &C) const {
  PhaseScope Verifying("verifying the program");
  if (!C.Plan || C.Rep.hasErrors() || C.Verified)
    return;
  C.Verified = true;
  tacclrt::CheckOptions CO;
  CO.IdenticalOrder = S.IdenticalResults;
  C.Rep.append(tacclrt::checkPlan(*C.Plan, "<generated>", CO));
}

/// Verifies \p C, lowering again with less fusion until it verifies or
/// nothing is fused; false when a lowering fails (its errors in \p D).
bool Emitter::settle(std::optional<Candidate> &C, bool MayDropFifo,
                     DiagnosticEngine &D) const {
  for (unsigned Round = 0;; ++Round) {
    verify(*C);
    if (!C->Rep.hasErrors() || !C->CG.FuseRelays)
      return true;
    CodegenOptions CG = C->CG;
    bool Dropped = C->FusionDropped;
    if (CG.FifoMessages > 1 && MayDropFifo) {
      // Fusion is proved deadlock-free for a FIFO of one message.
      CG.FifoMessages = 1;
    } else {
      bool Named = false;
      for (const tacclrt::Issue &I : C->Rep)
        if (I.Rank >= 0 && unsigned(I.Rank) < CG.NoFuseRanks.size() &&
            !CG.NoFuseRanks[I.Rank])
          CG.NoFuseRanks[I.Rank] = Named = true;
      if (!Named || Round == 4) {
        CG.FuseRelays = false;
        Dropped = true;
      }
    }
    C = lower(CG, D);
    if (!C)
      return false;
    C->FusionDropped = Dropped;
  }
}

/// The in-house simulation's time of \p C, if it loaded; simulated once.
std::optional<double> Emitter::simulated(std::optional<Candidate> &C) const {
  if (!C || !C->Plan || C->Rep.hasErrors())
    return std::nullopt;
  if (!C->Simulated) {
    C->Sim = simulatedCall(*C->Plan, S, O.TrialFlowUpdates, &C->SimStopped);
    C->Simulated = true;
    if (C->SimStopped)
      ++TrialsStopped;
  }
  if (!C->Sim)
    return std::nullopt;
  return C->Sim->TimeUs;
}

/// Step 1: the first lowering, with waves or without as above.
std::optional<Candidate> Emitter::chooseWaves(CodegenOptions CG) {
  const bool TryWaves = slicesPerChunk(S) > 1;
  if (TryWaves && O.Overlap == SliceOverlap::On)
    CG.PipelineWaves = CG.SeparateHalves = true;
  if (!TryWaves || O.Overlap != SliceOverlap::Auto || Legacy)
    return lower(CG, Diags);
  // Trial lowerings report into an engine of their own: a variant the
  // runtime's limits refuse is simply not chosen.
  DiagnosticEngine Quiet(Diags.getSourceMgr());
  CodegenOptions WavesCG = CG;
  WavesCG.PipelineWaves = WavesCG.SeparateHalves = true;
  std::optional<Candidate> Waves = lower(WavesCG, Quiet);
  std::optional<Candidate> Plain = lower(CG, Quiet);
  std::optional<double> WithWaves = simulated(Waves),
                        Without = simulated(Plain);
  const bool UseWaves = WithWaves && (!Without || *WithWaves < *Without);
  std::optional<Candidate> &Kept = UseWaves ? Waves : Plain;
  if (Kept && !Kept->Rep.hasErrors())
    return std::move(Kept);
  // A variant that did not lower (or load) is lowered again to report why.
  return lower(UseWaves ? WavesCG : CG, Diags);
}

/// Step 2: with --pace-nics=auto, the same lowering with a rank's sends
/// through its NIC paced, kept if it simulates faster. Only where a chunk
/// is one slice: pacing holds within a slice, and every slice's first sends
/// still start together (PaceNics.cpp).
std::optional<Candidate> Emitter::choosePacing(std::optional<Candidate> C) {
  if (!C || C->Rep.hasErrors() || C->CG.PaceNics ||
      O.Pacing != NicPacing::Auto || Legacy || slicesPerChunk(S) > 1)
    return C;
  const std::vector<NicPace> Pace = paceNics(S.Topo, Sch);
  if (std::none_of(Pace.begin(), Pace.end(),
                   [](const NicPace &P) { return P.Recv >= 0; }))
    return C;
  std::optional<Candidate> Paced;
  PhaseScope Trying("pacing NIC sends");
  // The unpaced program is simulated on a core of its own meanwhile (the
  // result is the same on any number of cores).
  std::optional<double> PlainUs;
  {
    Beside Plain([&] { PlainUs = simulated(C); });
    DiagnosticEngine Quiet(Diags.getSourceMgr());
    CodegenOptions CG = C->CG;
    CG.PaceNics = true;
    Paced = lower(CG, Quiet);
    // Kept only verified (the waits follow the schedule's time, so this is
    // a safeguard, not a choice).
    if (Paced)
      verify(*Paced);
  }
  std::optional<double> PacedUs = simulated(Paced);
  if (PacedUs && (!PlainUs || *PacedUs < *PlainUs))
    return Paced;
  return C;
}

std::optional<EmittedProgram> Emitter::run() {
  CodegenOptions CG;
  CG.setDialect(O.Dialect);
  CG.MergeContiguous = S.Instances <= 1;
  CG.FifoMessages = O.FifoMessages;
  CG.NoFuseRanks.assign(S.Topo.getNumRanks(), false);
  CG.PaceNics = O.Pacing == NicPacing::On;
  std::optional<Candidate> C = choosePacing(chooseWaves(CG));
  if (!C)
    return std::nullopt;
  const CodegenOptions Ordered = C->CG;
  if (!settle(C, /*MayDropFifo=*/true, Diags))
    return std::nullopt;
  bool UnfusedFaster = false;
  if (Ordered.FifoMessages > 1 && C->CG.FifoMessages == 1 &&
      !C->Rep.hasErrors() && !Legacy) {
    // Step 4: the FIFO's order kept, some ranks unfused, if faster.
    PhaseScope Trying("comparing fused orders");
    DiagnosticEngine Quiet(Diags.getSourceMgr());
    std::optional<Candidate> Kept = lower(Ordered, Quiet);
    bool Settled = Kept && settle(Kept, /*MayDropFifo=*/false, Quiet);
    std::optional<double> KeptUs = Settled ? simulated(Kept) : std::nullopt;
    std::optional<double> OneUs = simulated(C);
    if (KeptUs && (!OneUs || *KeptUs < *OneUs)) {
      C = std::move(Kept);
      UnfusedFaster = true;
    }
  }
  if (C->Rep.hasErrors() || !C->Plan)
    reportInternalError("the generated algorithm failed verification:\n" +
                        C->Rep.str());
  return EmittedProgram{
      std::move(C->Program), std::move(C->Xml),    std::move(*C->Plan),
      std::move(C->CG),      C->FusionDropped,     UnfusedFaster,
      std::move(C->Sim),     TrialsStopped.load(), C->SimStopped};
}
} // namespace

unsigned EmittedProgram::unfusedRanks() const {
  return unsigned(
      std::count(Options.NoFuseRanks.begin(), Options.NoFuseRanks.end(), true));
}

std::string EmittedProgram::fusionNote() const {
  unsigned Unfused = unfusedRanks();
  if (FusionDropped && UnfusedFaster)
    return "; unfused: faster than relays fused for a FIFO of one message";
  if (FusionDropped)
    return "; the fused program did not verify";
  if (Unfused && UnfusedFaster)
    return fmt::format("; {} rank(s) unfused: faster than relays fused for "
                       "a FIFO of one message",
                       Unfused);
  if (Unfused)
    return fmt::format("; {} rank(s) unfused: fusion did not verify", Unfused);
  return std::string();
}

std::string EmittedProgram::trialNote() const {
  if (!TrialsStopped)
    return std::string();
  return fmt::format(", {} trial simulation(s) stopped at their work budget "
                     "(the other kept)",
                     TrialsStopped);
}

std::optional<EmittedProgram> tacclc::emitVerified(const ir::Sketch &S,
                                                   const ir::Schedule &Sch,
                                                   const EmitOptions &Opts,
                                                   DiagnosticEngine &Diags) {
  return Emitter(S, Sch, Opts, Diags).run();
}
