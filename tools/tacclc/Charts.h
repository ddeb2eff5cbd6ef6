//===- tools/tacclc/Charts.h - SVG charts of simulations --------*- C++ -*-===//
//
// Two self-contained SVG pictures for `tacclc sim`: algorithm bandwidth
// against buffer size for several algorithms (and a bound) on one chart
// with a log-scale x axis, and the Gantt chart of one simulated call (one
// row per link, a box per message, coloured by chunk).
//
//===----------------------------------------------------------------------===//
#ifndef TACCLC_TOOLS_TACCLC_CHARTS_H
#define TACCLC_TOOLS_TACCLC_CHARTS_H

#include "sim/Simulator.h"

#include <string>
#include <utility>
#include <vector>

namespace tacclc {

/// One line of the bandwidth chart: (bytes, GB/s) points.
struct ChartSeries {
  std::string Name;
  std::vector<std::pair<double, double>> Points;
  /// Drawn dashed (bounds).
  bool Dashed = false;
};

/// algbw (GB/s) against size (bytes, log scale) for every series.
std::string bandwidthChart(const std::string &Title,
                           const std::vector<ChartSeries> &Series);

/// The messages of one simulated call on the links of \p M.
std::string timelineChart(const std::string &Title,
                          const tacclrt::SimMachine &M,
                          const std::vector<tacclrt::SimTransfer> &Transfers);

/// "1 KiB", "4 MiB", ... for axis labels.
std::string sizeLabel(double Bytes);

} // namespace tacclc

#endif // TACCLC_TOOLS_TACCLC_CHARTS_H
