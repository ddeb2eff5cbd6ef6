//===- tools/taccl-profile/Fit.h - Alpha and beta from timings --*- C++ -*-===//
//
// The alpha-beta model of a path from two kinds of measurement: n
// sequential sends of s bytes take n (alpha + beta s), n concurrent ones
// alpha + n beta s. Both kinds are rows of one linear least-squares problem
// in (alpha, beta), solved in closed form; the fit's quality is the root
// mean square of the relative residuals.
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_PROFILE_FIT_H
#define TACCLC_PROFILE_FIT_H

#include <vector>

namespace tacclc::profile {

/// One timing.
struct Sample {
  bool Concurrent = false; ///< n in flight at once, else one after another.
  unsigned N = 1;
  double Bytes = 0;
  double Seconds = 0;
};

/// A fitted path.
struct AlphaBeta {
  double AlphaUs = 0;    ///< Latency, microseconds.
  double BetaUsPerB = 0; ///< Inverse bandwidth, microseconds per byte.
  double Residual = 0;   ///< RMS relative residual of the samples.
  bool Ok = false;       ///< False with fewer than two distinct rows.
};

/// Least squares over \p Samples, weighted so that every sample counts by
/// its relative error; alpha and beta are clamped at 0.
AlphaBeta fitAlphaBeta(const std::vector<Sample> &Samples);

} // namespace tacclc::profile

#endif // TACCLC_PROFILE_FIT_H
