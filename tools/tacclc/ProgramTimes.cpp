//===- tools/tacclc/ProgramTimes.cpp - A compiled program's times ---------===//
//
// The program is simulated on the sketch's own topology (sketchCall), at
// the sketch's size rounded up to a whole number of elements per chunk.
// When the time disagrees with the prediction, two more runs measure the
// causes explainDisagreement() weighs: one slice of every chunk alone,
// with every message recorded (how many links share a port at once), and
// the call with links and ports serving one message at a time. Every run
// stops at the compile's deadline; what was measured by then is kept.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/ProgramTimes.h"

#include "codegen/SimMachine.h"
#include "support/Deadline.h"

#include "sim/SimGrid.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace tacclc;

namespace {
/// The most links whose messages move data through one shared port at
/// once in \p R, and that port.
std::pair<unsigned, std::string> portSharing(const tacclrt::SimMachine &M,
                                             const tacclrt::SimResult &R) {
  std::pair<unsigned, std::string> Most{0, ""};
  std::vector<std::vector<const tacclrt::SimTransfer *>> OnPort(M.Ports.size());
  for (const tacclrt::SimTransfer &T : R.Transfers)
    for (int P : M.Links[size_t(T.Link)].Ports)
      OnPort[size_t(P)].push_back(&T);
  for (size_t P = 0; P < OnPort.size(); ++P) {
    // Sweep: a message moves data from DataUs to EndUs; ends first on ties.
    std::vector<std::tuple<double, int, int>> Events;
    for (const tacclrt::SimTransfer *T : OnPort[P])
      if (T->EndUs > T->DataUs) {
        Events.emplace_back(T->DataUs, 1, T->Link);
        Events.emplace_back(T->EndUs, -1, T->Link);
      }
    std::sort(Events.begin(), Events.end(), [](const auto &A, const auto &B) {
      return std::make_pair(std::get<0>(A), std::get<1>(A)) <
             std::make_pair(std::get<0>(B), std::get<1>(B));
    });
    std::map<int, unsigned> Active;
    unsigned Links = 0;
    for (const auto &[At, Delta, Link] : Events) {
      unsigned &N = Active[Link];
      if (Delta > 0 && N++ == 0)
        ++Links;
      if (Delta < 0 && --N == 0)
        --Links;
      if (Links > Most.first)
        Most = {Links, M.Ports[P].Name};
    }
  }
  return Most;
}
/// The sends of one slice of \p A (a step of several chunks is one) and
/// its connections (sender, receiver, channel).
std::pair<unsigned, unsigned> sends(const tacclrt::Algo &A) {
  unsigned Sends = 0;
  std::set<std::tuple<int, int, int>> Conns;
  for (const tacclrt::Gpu &G : A.Gpus)
    for (const tacclrt::Tb &T : G.Tbs) {
      if (T.Send < 0)
        continue;
      Conns.insert({G.Id, T.Send, T.Chan});
      for (const tacclrt::Step &St : T.Steps)
        Sends += tacclrt::sendsMessage(St.Type);
    }
  return {Sends, unsigned(Conns.size())};
}
} // namespace

ProgramTimes tacclc::timeProgram(const tacclrt::Algo &A, const ir::Sketch &S,
                                 const CallPrediction &Predicted,
                                 unsigned OrderedForFifo, bool AskReferee,
                                 const tacclrt::SimResult *Known,
                                 bool KnownStopped, long ExplainFlowUpdates) {
  ProgramTimes Out;
  std::optional<SketchCall> C = sketchCall(A, S);
  if (!C) {
    Out.RefereeNote = "the program has no chunks";
    return Out;
  }
  if (KnownStopped)
    Out.SimNote = "its trial simulation stopped at the compile's work budget "
                  "(`tacclc sim` runs it to the end)";
  else
    try {
      PhaseScope Phase("simulating the program");
      tacclrt::SimResult R =
          Known ? *Known : tacclrt::simulate(A, C->Machine, C->Options);
      if (R.Ok) {
        MeasuredCall M;
        M.Engine = "tacclc sim";
        M.TimeUs = R.TimeUs;
        M.Slices = unsigned(std::max(1L, R.Iterations));
        M.Events = R.Events;
        M.FlowUpdates = R.FlowUpdates;
        M.OrderedForFifo = OrderedForFifo;
        std::tie(M.ProgramMessages, M.ProgramConnections) = sends(A);
        Out.Simulated = M;
        if (timesDisagree(Predicted.TotalUs, R.TimeUs)) {
          // One slice of every chunk alone, every message recorded.
          tacclrt::SimOptions One = C->Options;
          One.RecordTransfers = true;
          One.MaxFlowUpdates = ExplainFlowUpdates;
          if (M.Slices > 1) {
            uint64_t Slice = tacclrt::protocolSliceBytes(A.Proto);
            One.Bytes = uint64_t(A.NChunksPerLoop) * (Slice / 4 * 4);
          }
          tacclrt::SimResult First = tacclrt::simulate(A, C->Machine, One);
          if (First.Ok) {
            M.OneSliceUs = First.TimeUs;
            std::tie(M.PortSharing, M.SharedPort) =
                portSharing(C->Machine, First);
          }
          Out.Simulated = M;
          tacclrt::SimOptions Serial = C->Options;
          Serial.Service = tacclrt::PortService::Serial;
          Serial.MaxFlowUpdates = ExplainFlowUpdates;
          tacclrt::SimResult S1 = tacclrt::simulate(A, C->Machine, Serial);
          if (S1.Ok)
            M.SerialUs = S1.TimeUs;
          Out.Simulated = M;
        }
      }
    } catch (const TimeLimitExceeded &) {
      // Keep what was measured.
    }
  if (AskReferee)
    Out.RefereeUs = refereeUs(A, C->Machine, C->Options, Out.RefereeNote);
  else
    Out.RefereeNote = "not asked";
  return Out;
}

std::optional<double> tacclc::refereeUs(const tacclrt::Algo &A,
                                        const tacclrt::SimMachine &M,
                                        const tacclrt::SimOptions &O,
                                        std::string &Why) {
  // SimGrid's max-min flow model (CM02, factors 1), the referee that
  // bench/synthesis judges by, for the same call on the same machine.
  const tacclrt::SimEngineKind Referee = tacclrt::SimEngineKind::SimGrid;
  if (!tacclrt::engineAvailable(Referee, Why))
    return std::nullopt;
  try {
    PhaseScope Phase("simulating the program on SimGrid");
    tacclrt::SimResult R = tacclrt::simulateOn(Referee, A, M, O);
    if (R.Ok)
      return R.TimeUs;
    Why = R.Issues.str();
  } catch (const TimeLimitExceeded &) {
    Why = "the compile's time limit passed";
  }
  return std::nullopt;
}
