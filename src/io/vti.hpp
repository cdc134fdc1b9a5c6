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
// The file is vti_head, the raw values, vti_tail: a file that several processes fill
// (src/parallel) writes the same bytes.
template <class T>
void write_vti(const std::string& path, std::span<const T> values, Extent n,
               std::array<double, 3> origin, double spacing, const std::string& name);
template <class T>
std::string vti_head(Extent n, std::array<double, 3> origin, double spacing, const std::string& name);
std::string vti_tail();

}  // namespace strata::io
