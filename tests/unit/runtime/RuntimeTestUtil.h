//===- tests/unit/runtime/RuntimeTestUtil.h - Runtime test helpers -*- C++ -*-//
//
// Helpers shared by the runtime unit tests: reading the XML fixtures of
// tests/xml/, loading text with a report, searching reports for a
// message, small text and plan mutations, and the fixtures and calls the
// device-plan tests run.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLRT_TESTS_RUNTIMETESTUTIL_H
#define TACCLRT_TESTS_RUNTIMETESTUTIL_H

#include "format/Call.h"
#include "format/Diagnostic.h"
#include "format/Loader.h"
#include "format/Plan.h"
#include "sim/Simulator.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace tacclrt::test {

/// The fixtures the device-plan tests flatten and run on the host.
inline const char *const DeviceFixtures[] = {
    "allgather_ring4.xml", "allgather_ring4_inplace.xml",
    "allreduce_deps2.xml", "allreduce_orders3.xml",
    "allreduce_ring3.xml", "allreduce_rrc2.xml",
    "alltoall3.xml",       "reducescatter2.xml"};

/// A call of \p A with \p ElemsPerChunk elements of \p T per chunk and
/// slices of \p SliceBytes (0: the protocol's), in place where \p A is.
inline RunOptions deviceCall(const Algo &A, std::uint64_t ElemsPerChunk,
                             std::size_t SliceBytes,
                             DataType T = DataType::Float32) {
  RunOptions O;
  O.Type = T;
  O.Bytes = ElemsPerChunk * std::uint64_t(A.NChunksPerLoop) * sizeOf(T);
  O.SliceBytes = SliceBytes;
  O.InPlace = !A.OutOfPlace && A.InPlace;
  return O;
}

/// Path of fixture \p Name in tests/xml/.
inline std::string fixturePath(const std::string &Name) {
  return std::string(TACCLRT_XML_DIR) + "/" + Name;
}

/// The text of fixture \p Name (empty when missing).
inline std::string readFixture(const std::string &Name) {
  std::ifstream In(fixturePath(Name));
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Result of loading a text.
struct Loaded {
  std::optional<Algo> A;
  Report R;
};

/// Loads \p Text under \p D.
inline Loaded load(const std::string &Text, Dialect D = Dialect::Executor) {
  Loaded L;
  LoadOptions O;
  O.D = D;
  L.A = loadPlan(Text, "test.xml", O, L.R);
  return L;
}

/// Loads fixture \p Name; the plan must load.
inline Algo loadFixture(const std::string &Name) {
  Report R;
  std::optional<Algo> A = loadPlanFile(fixturePath(Name), LoadOptions(), R);
  return A ? *A : Algo();
}

/// The first issue of severity \p Sev whose message contains \p Needle.
inline const Issue *findIssue(const Report &R, const std::string &Needle,
                              Issue::Severity Sev = Issue::Error) {
  for (const Issue &I : R)
    if (I.Sev == Sev && I.Message.find(Needle) != std::string::npos)
      return &I;
  return nullptr;
}

/// True when some error names a rank, a threadblock and a step.
inline bool namesRankTbStep(const Report &R) {
  for (const Issue &I : R)
    if (I.Sev == Issue::Error && I.Rank >= 0 && I.Tb >= 0 && I.Step >= 0)
      return true;
  return false;
}

/// \p Text with the \p N-th occurrence (0-based) of \p From replaced.
inline std::string replaceNth(std::string Text, const std::string &From,
                              const std::string &To, int N = 0) {
  std::size_t Pos = Text.find(From);
  for (int K = 0; K < N && Pos != std::string::npos; ++K)
    Pos = Text.find(From, Pos + 1);
  if (Pos != std::string::npos)
    Text.replace(Pos, From.size(), To);
  return Text;
}

/// Removes step \p Pos of tb \p TbId on rank \p Rank and renumbers `s`.
inline void eraseStep(Algo &A, int Rank, int TbId, int Pos) {
  auto &Steps = A.Gpus[static_cast<std::size_t>(Rank)]
                    .Tbs[static_cast<std::size_t>(TbId)]
                    .Steps;
  Steps.erase(Steps.begin() + Pos);
  for (std::size_t K = 0; K < Steps.size(); ++K)
    Steps[K].S = static_cast<int>(K);
}

/// Options without protocol costs: a message costs its link's alpha and
/// beta exactly, so closed forms hold.
inline SimOptions rawSimOptions() {
  SimOptions O;
  O.ProtocolOverheads = false;
  return O;
}

/// A unidirectional ring of \p N ranks (with \p Full, every other pair
/// too), every link with \p Alpha and \p Beta.
inline SimMachine ringMachine(int N, double Alpha, double Beta,
                              bool Full = false) {
  SimMachine M;
  M.Name = "ring";
  M.NRanks = N;
  for (int R = 0; R < N; ++R)
    for (int D = 0; D < N; ++D)
      if (D != R && (Full || D == (R + 1) % N))
        M.Links.push_back({R, D, 0, 0, 1, {}});
  for (SimLink &L : M.Links) {
    L.AlphaUs = Alpha;
    L.BetaUsPerB = Beta;
  }
  return M;
}

/// Three fully connected ranks with no latency where rank 0 sends through
/// one NIC port of inverse bandwidth \p Beta; its link to rank 2 is four
/// times slower than the port, the others as fast.
inline SimMachine sharedPortMachine(double Beta) {
  SimMachine M = ringMachine(3, 0, Beta, true);
  M.Ports.push_back({"nic 0 send", Beta});
  for (SimLink &L : M.Links)
    if (L.Src == 0) {
      L.Ports.push_back(0);
      if (L.Dst == 2)
        L.BetaUsPerB = 4 * Beta;
    }
  return M;
}

} // namespace tacclrt::test

#endif // TACCLRT_TESTS_RUNTIMETESTUTIL_H
