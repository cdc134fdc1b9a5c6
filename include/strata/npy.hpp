// NumPy .npy files: read and write float32/float64 arrays, and load/save Field interiors.
// Reads format versions 1.0, 2.0 and 3.0; writes 1.0 (2.0 for huge headers) with the data
// 64-byte aligned, as numpy does. Every malformed file is rejected with a strata::Error.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "strata/field.hpp"

namespace strata {

struct NpyInfo {
  Precision dtype = Precision::f64;  // f32 for '<f4', f64 for '<f8'
  std::vector<std::size_t> shape;    // as stored, C order; empty for a rank-0 array
  std::size_t data_offset = 0;       // bytes before the data
  std::size_t elements() const;      // product of shape (1 for rank 0)
  std::size_t data_bytes() const { return elements() * bytes_of(dtype); }
};

// Reads and validates the header, and checks that the file holds exactly the data the
// header promises (no less, no more). Throws Error naming the file and the problem.
NpyInfo npy_inspect(const std::string& path);

// The 3D extent {nx, ny, nz} of an inspected (nz, ny, nx) array: rank 3, each axis in
// [1, INT_MAX]; otherwise an Error naming the file and its shape.
Extent npy_extent(const NpyInfo& info, const std::string& path);

// Any rank (rank 0 gives one element, a zero-size shape none); float32 data is widened
// and float64 data rounded to T as needed.
template <class T>
std::vector<T> npy_read(const std::string& path, std::vector<std::size_t>& shape);

// Rank 3 only: shape (nz, ny, nx) -> extent {nx, ny, nz}, each axis >= 1; x fastest.
template <class T>
std::vector<T> npy_read_3d(const std::string& path, Extent& extent);

// A field (host or device) with the given ghost width whose interior is the file's
// (nz, ny, nx) array. A device field is filled through a bounded host buffer.
template <class T>
Field<T> npy_read_field(const std::string& path, int ghost = kDefaultGhost, Memory memory = Memory::host);

// Writes data (C order, product(shape) values) as little-endian T. Atomic: on any failure
// the file at `path` is left as it was and no temporary remains.
template <class T>
void npy_write(const std::string& path, std::span<const T> data,
               std::span<const std::size_t> shape);

// Writes the interior of a host or device field as an (nz, ny, nx) array (a device field
// through a bounded host buffer). Atomic like npy_write.
template <class T>
void npy_write_field(const std::string& path, const Field<T>& f);

}  // namespace strata
