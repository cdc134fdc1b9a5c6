// Colour maps as piecewise-linear ramps through anchor colours: "seismic" (dark blue, blue,
// white, red, dark red: signed data), "viridis" (perceptually uniform, anchors at every
// tenth of the published map), "gray".
#include "io/colormap.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "strata/error.hpp"

namespace strata::io {

namespace {

struct Anchor {
  double t;
  unsigned char r, g, b;
};

const std::vector<Anchor>& anchors(Colormap m) {
  static const std::vector<Anchor> seismic = {
      {0.0, 0, 0, 77}, {0.25, 0, 0, 255}, {0.5, 255, 255, 255}, {0.75, 255, 0, 0}, {1.0, 128, 0, 0}};
  static const std::vector<Anchor> viridis = {
      {0.0, 0x44, 0x01, 0x54}, {0.1, 0x48, 0x24, 0x75}, {0.2, 0x41, 0x44, 0x87}, {0.3, 0x35, 0x5f, 0x8d},
      {0.4, 0x2a, 0x78, 0x8e}, {0.5, 0x21, 0x91, 0x8c}, {0.6, 0x22, 0xa8, 0x84}, {0.7, 0x44, 0xbf, 0x70},
      {0.8, 0x7a, 0xd1, 0x51}, {0.9, 0xbd, 0xdf, 0x26}, {1.0, 0xfd, 0xe7, 0x25}};
  static const std::vector<Anchor> gray = {{0.0, 0, 0, 0}, {1.0, 255, 255, 255}};
  return m == Colormap::seismic ? seismic : m == Colormap::viridis ? viridis : gray;
}

}  // namespace

Colormap parse_colormap(const std::string& name) {
  if (name == "seismic") return Colormap::seismic;
  if (name == "viridis") return Colormap::viridis;
  if (name == "gray") return Colormap::gray;
  throw Error("unknown colour map '" + name + "': allowed seismic, viridis, gray");
}

std::array<unsigned char, 3> colour(Colormap m, double t) {
  const auto& a = anchors(m);
  t = std::clamp(t, 0.0, 1.0);
  std::size_t i = 1;
  while (i + 1 < a.size() && a[i].t < t) ++i;
  const double f = (t - a[i - 1].t) / (a[i].t - a[i - 1].t);
  auto mix = [&](unsigned char p, unsigned char q) {
    return static_cast<unsigned char>(std::lround(p + f * (double(q) - double(p))));
  };
  return {mix(a[i - 1].r, a[i].r), mix(a[i - 1].g, a[i].g), mix(a[i - 1].b, a[i].b)};
}

double abs_quantile(std::span<const double> values, double q) {
  std::vector<double> a;
  a.reserve(values.size());
  for (double v : values)
    if (std::isfinite(v)) a.push_back(std::fabs(v));
  if (a.empty()) return 1.0;
  const double rank = std::max(1.0, std::ceil(q * double(a.size())));  // 1-based rank of the quantile
  const std::size_t k = std::min(a.size(), std::size_t(rank)) - 1;
  std::nth_element(a.begin(), a.begin() + std::ptrdiff_t(k), a.end());
  const double c = a[k];
  if (c > 0) return c;
  const double peak = *std::max_element(a.begin(), a.end());
  return peak > 0 ? peak : 1.0;
}

}  // namespace strata::io
