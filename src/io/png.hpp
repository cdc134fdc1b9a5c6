// A minimal PNG encoder (8-bit RGB, no interlace) over zlib, for pictures of wavefield
// slices and seismograms. Written atomically.
#pragma once

#include <string>
#include <vector>

namespace strata::io {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // row-major, 3 bytes per pixel, row 0 at the top
};

void write_png(const std::string& path, const Image& image);

}  // namespace strata::io
