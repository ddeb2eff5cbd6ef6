//===- tools/tacclc/Charts.cpp - SVG charts of simulations ----------------===//
//
// Plain SVG 1.1 written by hand: axes with ticks and labels, a legend, and
// a <title> on every mark so a browser shows the exact values on hover.
// Colours come from a fixed palette, so the same input gives the same file.
//
//===----------------------------------------------------------------------===//
#include "tools/tacclc/Charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace tacclc;

namespace {
const char *const Palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                               "#9467bd", "#8c564b", "#e377c2", "#17becf",
                               "#bcbd22", "#7f7f7f"};
constexpr size_t PaletteSize = sizeof(Palette) / sizeof(Palette[0]);

std::string escape(const std::string &S) {
  std::string Out;
  for (char C : S) {
    if (C == '&')
      Out += "&amp;";
    else if (C == '<')
      Out += "&lt;";
    else if (C == '>')
      Out += "&gt;";
    else if (C == '"')
      Out += "&quot;";
    else
      Out += C;
  }
  return Out;
}

/// A "nice" step (1, 2 or 5 times a power of ten) for about \p Ticks ticks.
double niceStep(double Max, int Ticks) {
  double Raw = Max / Ticks;
  double Pow = std::pow(10, std::floor(std::log10(Raw)));
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (M * Pow >= Raw)
      return M * Pow;
  return 10 * Pow;
}
} // namespace

std::string tacclc::sizeLabel(double Bytes) {
  const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int U = 0;
  while (Bytes >= 1024 && U < 4) {
    Bytes /= 1024;
    ++U;
  }
  return fmt::format("{:g} {}", Bytes, Units[U]);
}

std::string tacclc::bandwidthChart(const std::string &Title,
                                   const std::vector<ChartSeries> &Series) {
  const double W = 860, H = 520, L = 80, R = 220, T = 50, B = 70;
  const double PW = W - L - R, PH = H - T - B;
  double XMin = INFINITY, XMax = -INFINITY, YMax = 0;
  for (const ChartSeries &S : Series)
    for (auto [X, Y] : S.Points) {
      XMin = std::min(XMin, X);
      XMax = std::max(XMax, X);
      YMax = std::max(YMax, Y);
    }
  if (!(XMin < XMax)) {
    XMin = XMin > 0 && std::isfinite(XMin) ? XMin / 2 : 1;
    XMax = XMin * 4;
  }
  double Step = niceStep(YMax > 0 ? YMax : 1, 6);
  double YTop = std::ceil((YMax > 0 ? YMax : 1) / Step) * Step;
  auto PX = [&](double X) {
    return L + PW * (std::log2(X) - std::log2(XMin)) /
                   (std::log2(XMax) - std::log2(XMin));
  };
  auto PY = [&](double Y) { return T + PH * (1 - Y / YTop); };
  std::string S = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">{3}"
      "</text>\n",
      W, H, L + PW / 2, escape(Title));
  // Grid, ticks and labels.
  for (double Y = 0; Y <= YTop + Step / 2; Y += Step)
    S +=
        fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" "
                    "stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" "
                    "text-anchor=\"end\">{5:g}</text>\n",
                    L, PY(Y), L + PW, L - 6, PY(Y) + 4, Y);
  for (double X = std::exp2(std::ceil(std::log2(XMin))); X <= XMax * 1.0001;
       X *= 2) {
    bool Label =
        std::fmod(std::log2(X), 2) < 0.5 || std::log2(XMax / XMin) <= 12;
    S += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" "
                     "y2=\"{2}\" stroke=\"#eee\"/>\n",
                     PX(X), T, T + PH);
    if (Label)
      S += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}"
                       "</text>\n",
                       PX(X), T + PH + 18, sizeLabel(X));
  }
  S += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                   "fill=\"none\" stroke=\"black\"/>\n",
                   L, T, PW, PH);
  S += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">buffer size "
                   "(bytes, log scale)</text>\n",
                   L + PW / 2, H - 20);
  S += fmt::format("<text transform=\"translate(22,{}) rotate(-90)\" "
                   "text-anchor=\"middle\">algorithm bandwidth (GB/s)</text>\n",
                   T + PH / 2);
  // Series and legend.
  for (size_t I = 0; I < Series.size(); ++I) {
    const ChartSeries &Sr = Series[I];
    const char *Colour = Palette[I % PaletteSize];
    std::string Pts;
    for (auto [X, Y] : Sr.Points)
      Pts += fmt::format("{:.1f},{:.1f} ", PX(X), PY(Y));
    S += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
                     "stroke-width=\"2\"{}/>\n",
                     Pts, Colour, Sr.Dashed ? " stroke-dasharray=\"6,4\"" : "");
    for (auto [X, Y] : Sr.Points)
      S += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" "
                       "fill=\"{}\"><title>{}: {} -> {:.3g} GB/s</title>"
                       "</circle>\n",
                       PX(X), PY(Y), Colour, escape(Sr.Name), sizeLabel(X), Y);
    double LY = T + 10 + 20 * double(I);
    S += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                     "stroke=\"{3}\" stroke-width=\"2\"{4}/><text x=\"{5}\" "
                     "y=\"{6}\">{7}</text>\n",
                     L + PW + 15, LY, L + PW + 45, Colour,
                     Sr.Dashed ? " stroke-dasharray=\"6,4\"" : "", L + PW + 52,
                     LY + 4, escape(Sr.Name));
  }
  return S + "</svg>\n";
}

std::string
tacclc::timelineChart(const std::string &Title, const tacclrt::SimMachine &M,
                      const std::vector<tacclrt::SimTransfer> &Transfers) {
  // One row per link that carries something, in link order.
  std::map<int, int> Row;
  double End = 0;
  for (const tacclrt::SimTransfer &X : Transfers) {
    Row[X.Link] = 0;
    End = std::max(End, X.EndUs);
  }
  int Next = 0;
  for (auto &[Link, R] : Row)
    R = Next++;
  const double RowH = 18, L = 110, T = 50, PW = 900;
  const double H = T + RowH * Next + 60, W = L + PW + 30;
  if (End <= 0)
    End = 1;
  auto PX = [&](double Us) { return L + PW * Us / End; };
  std::string S = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"26\" font-size=\"15\" text-anchor=\"middle\">{3}"
      "</text>\n",
      W, H, L + PW / 2, escape(Title));
  for (auto [Link, R] : Row) {
    const tacclrt::SimLink &Ln = M.Links[static_cast<size_t>(Link)];
    double Y = T + RowH * R;
    S += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{} -&gt; "
                     "{}</text><line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" "
                     "y2=\"{:.1f}\" stroke=\"#eee\"/>\n",
                     L - 6, Y + RowH - 5, Ln.Src, Ln.Dst, L, Y + RowH, L + PW,
                     Y + RowH);
  }
  for (const tacclrt::SimTransfer &X : Transfers) {
    double Y = T + RowH * Row[X.Link];
    const char *Colour =
        Palette[static_cast<size_t>(std::max(X.Chunk, 0)) % PaletteSize];
    S += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" "
                     "height=\"{}\" fill=\"{}\" stroke=\"white\" "
                     "stroke-width=\"0.5\"><title>rank {} tb {} step {} "
                     "(iteration {}): chunk {} x{}, {} B, {:.3f} .. {:.3f} us"
                     "</title></rect>\n",
                     PX(X.StartUs), Y + 2,
                     std::max(0.5, PX(X.EndUs) - PX(X.StartUs)), RowH - 4,
                     Colour, X.Src, X.Tb, X.Step, X.Iteration, X.Chunk, X.Cnt,
                     X.Bytes, X.StartUs, X.EndUs);
  }
  double AxisY = T + RowH * Next + 8;
  double Step = niceStep(End, 8);
  for (double Us = 0; Us <= End * 1.0001; Us += Step)
    S += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" "
                     "y2=\"{2}\" stroke=\"black\"/><text x=\"{0:.1f}\" "
                     "y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
                     PX(Us), AxisY, AxisY + 5, AxisY + 18, Us);
  S += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time (us); "
                   "one row per link, a box per message, coloured by chunk"
                   "</text>\n",
                   L + PW / 2, AxisY + 40);
  return S + "</svg>\n";
}
