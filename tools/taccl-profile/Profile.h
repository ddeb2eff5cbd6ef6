//===- tools/taccl-profile/Profile.h - From timings to a machine -*- C++
//-*-===//
//
// profileMachine() measures a machine through a Prober and infers its
// description:
//   1. every ordered GPU pair of node 0, and every GPU of node 0 to the same
//      GPU of node 1 (the network path), is timed over a sweep of sizes,
//      sequential and concurrent sends; alpha and beta are fitted (Fit.h);
//   2. the pairs of node 0 are clustered into classes by bandwidth (a new
//      class where the next beta is over ClassGap times the last);
//   3. each class is tested for what its transfers share: two transfers on
//      pairs with no GPU in common that slow each other are a shared path
//      (PCIe through the host: no link); two from one GPU that slow each
//      other, in a class joining every pair of its GPUs, are a switch;
//      otherwise the class is point-to-point links. GPUs whose network
//      transfers slow each other share a NIC; the GPU of a NIC with the
//      lowest network latency is the one next to it;
//   4. the GPUs are renumbered by an automorphism of what was found (the
//      links, their classes and the NICs) that puts the GPU next to the NIC
//      at 0, when the node has one NIC (the TACCL paper's convention).
// writeSketch() prints the result as a machine of the sketch language, in
// the canonical layout, with the measurements in comments; writeJson() the
// raw measurements.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PROFILE_PROFILE_H
#define TACCLC_PROFILE_PROFILE_H

#include "Fit.h"
#include "Prober.h"

#include <string>
#include <vector>

namespace tacclc::profile {

/// How to measure and infer.
struct ProfileOptions {
  std::vector<double> Sizes = {64 << 10, 256 << 10, 1 << 20, 4 << 20};
  std::vector<unsigned> Counts = {1, 4};
  /// Two transfers interfere when together they take this much longer than
  /// the slower one alone.
  double Interference = 1.5;
  /// Classes split where consecutive betas differ by more than this ratio.
  double ClassGap = 1.3;
  /// The machine's name in the written file, and the date written.
  std::string Name = "measured";
  std::string Date;
};

/// One measured path.
struct PairFit {
  unsigned A = 0, B = 0; ///< Ranks as measured.
  std::vector<Sample> Samples;
  AlphaBeta Fit;
  int Class = -1;
};

/// A class of paths.
struct MeasuredClass {
  enum KindT { Links, Switch, SharedPath, Network } Kind = Links;
  std::string Name;
  double AlphaUs = 0, BetaUsPerB = 0;
  double WorstResidual = 0;
  unsigned Pairs = 0;
};

/// What was measured and inferred.
struct MachineModel {
  std::string Name, Source, Date;
  unsigned GpusPerNode = 0, Nodes = 1;
  std::vector<MeasuredClass> Classes;
  std::vector<PairFit> Intra; ///< Ordered pairs of node 0.
  std::vector<PairFit> Inter; ///< GPU g of node 0 to GPU g of node 1.
  /// NICs (local GPUs, as measured), their class, and the GPU next to each.
  std::vector<std::vector<unsigned>> Nics;
  int NetClass = -1;
  std::vector<unsigned> NicNear;
  /// Measured local GPU -> GPU in the written description.
  std::vector<unsigned> Numbering;
  /// Sentences for the file's comments.
  std::vector<std::string> Notes;
};

/// Measures \p P and infers its description.
MachineModel profileMachine(Prober &P, const ProfileOptions &O);

/// The description as a `.sketch` machine (canonical layout); empty, with
/// the parse errors on stderr, if the text written does not parse (a bug).
std::string writeSketch(const MachineModel &M);

/// The raw measurements and fits as JSON.
std::string writeJson(const MachineModel &M);

} // namespace tacclc::profile

#endif // TACCLC_PROFILE_PROFILE_H
