//===- tools/taccl-profile/Prober.h - What the profiler measures -*- C++
//-*-===//
//
// The profiler's only view of a machine: timed transfers between GPUs. Ranks
// are node * gpusPerNode() + gpu. A prober on real GPUs (CudaProber.cpp)
// times NCCL sends; a simulated one (SimProber.h) computes the times from an
// alpha-beta model with hidden parts, so the whole inference is tested
// without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PROFILE_PROBER_H
#define TACCLC_PROFILE_PROBER_H

#include <string>
#include <utility>
#include <vector>

namespace tacclc::profile {

/// Timed transfers on one machine.
class Prober {
public:
  virtual ~Prober() = default;
  /// GPUs in a node, and nodes that can be measured (1, or 2 for the
  /// network path).
  virtual unsigned gpusPerNode() const = 0;
  virtual unsigned nodes() const = 0;
  /// Seconds for \p N sends of \p Bytes from rank \p A to rank \p B, each
  /// started when the one before has arrived.
  virtual double sequential(unsigned A, unsigned B, double Bytes,
                            unsigned N) = 0;
  /// Seconds for \p N sends of \p Bytes from \p A to \p B, all in flight at
  /// once.
  virtual double concurrent(unsigned A, unsigned B, double Bytes,
                            unsigned N) = 0;
  /// Seconds until every transfer of \p Pairs (one message of \p Bytes
  /// each, all started at once) has arrived.
  virtual double
  together(const std::vector<std::pair<unsigned, unsigned>> &Pairs,
           double Bytes) = 0;
  /// One line naming what was measured (GPU model and count, or the
  /// simulated machine).
  virtual std::string describe() const = 0;
};

} // namespace tacclc::profile

#endif // TACCLC_PROFILE_PROBER_H
