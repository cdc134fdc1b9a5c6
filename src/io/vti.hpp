// VTK XML image data (.vti) for ParaView and VisIt: one scalar point array over a uniform
// grid, stored raw in an appended block (no base64, no compression: fast to write and read).
#pragma once

#include <array>
#include <span>
#include <string>

#include "strata/field.hpp"

namespace strata::io {

// values: dense [z][y][x] (x fastest, VTK's order); origin: coordinates of point (0,0,0).
// Written atomically.
template <class T>
void write_vti(const std::string& path, std::span<const T> values, Extent n,
               std::array<double, 3> origin, double spacing, const std::string& name);

}  // namespace strata::io
