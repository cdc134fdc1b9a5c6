// Colour maps and the rendering of a 2D array of signed values into an image: values are
// scaled symmetrically by a clip level (a quantile of |value|), so zero is the map's middle
// (white in "seismic"), and small images are enlarged by whole pixels to be readable.
#pragma once

#include <array>
#include <span>
#include <string>

#include "io/png.hpp"

namespace strata::io {

enum class Colormap { seismic, viridis, gray };
Colormap parse_colormap(const std::string& name);  // throws Error for other names
std::array<unsigned char, 3> colour(Colormap map, double t);  // t in [0, 1], clamped

// The q-quantile of |values| (q in (0, 1]); 1 when every value is 0.
double abs_quantile(std::span<const double> values, double q);

// values: row-major height x width. Maps [-clip, clip] onto the colour map; NaN is black.
// Each value becomes a block of `sx` x `sy` pixels.
Image render(std::span<const double> values, int width, int height, Colormap map, double clip,
             int sx = 1, int sy = 1);

}  // namespace strata::io
