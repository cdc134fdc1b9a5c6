// Colour maps (piecewise-linear ramps), and the clip level of signed data: a quantile of
// |value|, so that a symmetric range [-clip, clip] puts zero at the map's middle (white in
// "seismic"). io/figure.hpp draws with them.
#pragma once

#include <array>
#include <span>
#include <string>

namespace strata::io {

enum class Colormap { seismic, viridis, gray };
Colormap parse_colormap(const std::string& name);  // throws Error for other names
std::array<unsigned char, 3> colour(Colormap map, double t);  // t in [0, 1], clamped

// The q-quantile of |values| (q in (0, 1]); 1 when every value is 0.
double abs_quantile(std::span<const double> values, double q);

}  // namespace strata::io
