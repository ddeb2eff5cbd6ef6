//===- tools/taccl-profile/Fit.cpp - Alpha and beta from timings ----------===//
//
// fitAlphaBeta (Fit.h): each sample is a row t = a * x + b * y with
// (x, y) = (n, n s) for sequential and (1, n s) for concurrent sends, all
// divided by t so that the residuals are relative; the 2x2 normal equations
// are solved directly.
//
//===----------------------------------------------------------------------===//
#include "Fit.h"

#include <algorithm>
#include <cmath>

using namespace tacclc::profile;

AlphaBeta tacclc::profile::fitAlphaBeta(const std::vector<Sample> &Samples) {
  double Sxx = 0, Sxy = 0, Syy = 0, Sx = 0, Sy = 0;
  for (const Sample &S : Samples) {
    if (S.Seconds <= 0)
      continue;
    const double T = S.Seconds * 1e6; // microseconds
    const double X = (S.Concurrent ? 1.0 : double(S.N)) / T;
    const double Y = double(S.N) * S.Bytes / T;
    Sxx += X * X;
    Sxy += X * Y;
    Syy += Y * Y;
    Sx += X; // right-hand side is T / T = 1
    Sy += Y;
  }
  AlphaBeta R;
  const double Det = Sxx * Syy - Sxy * Sxy;
  // Rows that do not tell alpha from beta (one size, one kind) are refused.
  if (!(Det > 1e-9 * Sxx * Syy) || Sxx <= 0 || Syy <= 0)
    return R;
  R.AlphaUs = (Sx * Syy - Sy * Sxy) / Det;
  R.BetaUsPerB = (Sy * Sxx - Sx * Sxy) / Det;
  // A negative parameter is fixed at 0 and the other refitted alone.
  if (R.AlphaUs < 0) {
    R.AlphaUs = 0;
    R.BetaUsPerB = Sy / Syy;
  } else if (R.BetaUsPerB < 0) {
    R.BetaUsPerB = 0;
    R.AlphaUs = Sx / Sxx;
  }
  double Sum = 0;
  unsigned Count = 0;
  for (const Sample &S : Samples) {
    if (S.Seconds <= 0)
      continue;
    const double T = S.Seconds * 1e6;
    const double Model = (S.Concurrent ? 1.0 : double(S.N)) * R.AlphaUs +
                         double(S.N) * S.Bytes * R.BetaUsPerB;
    Sum += (Model - T) / T * (Model - T) / T;
    ++Count;
  }
  R.Residual = Count ? std::sqrt(Sum / Count) : 0;
  R.Ok = true;
  return R;
}
