// The parts of the .npy reader and writer the distributed layer builds on: reading one box
// of a file (each rank reads only what it owns) and the preamble of a file that several
// ranks fill (src/parallel/npy.cpp).
#pragma once

#include <array>
#include <functional>
#include <span>
#include <string>

#include "strata/field.hpp"

namespace strata {

// Magic, version and header of a .npy file of `dtype` and `shape` (C order): the data
// follows at byte preamble.size(), a multiple of 64. Throws Error if it cannot be written.
std::string npy_preamble(Precision dtype, std::span<const std::size_t> shape, const std::string& path);

// Reads box (offset .. offset + box) of the file's (nz, ny, nx) array, converting to T, a
// chunk of rows at a time through one buffer: put(z, y, rows, values) takes rows
// y .. y + rows - 1 of the box's plane z (dense, x fastest; at most chunk_rows of them),
// valid during the call, so the host never holds the whole box. A box as wide as the array
// reads a chunk in one call. The file is validated as npy_inspect does.
template <class T>
void npy_read_box_rows(const std::string& path, std::array<int, 3> offset, Extent box, int chunk_rows,
                       const std::function<void(int z, int y, int rows, const T* values)>& put);

}  // namespace strata
