// TMA descriptors for Field planes: the allocation seen as a 3D tensor (pitch, rows,
// planes) from which kernels copy one (W x ROWS x 1) box per plane; or the interior alone
// (nx, ny, nz with the allocation's strides), whose boxes the hardware fills with zeros
// where they reach past it.
#pragma once

#include <cuda.h>
#include <cstddef>
#include <cstdint>

namespace strata::cuda {

// base: allocation start (16-byte aligned); strides in elements; box in elements.
CUtensorMap make_plane_tensor_map(const void* base, std::size_t elem_bytes, std::int64_t pitch,
                                  std::int64_t rows, std::int64_t planes, int box_w, int box_rows);

// base: the first element of an nx x ny x nz box (16-byte aligned) whose rows are `pitch` and
// planes `plane` elements apart; box in elements. Elements a copy reads outside the box are +0.
CUtensorMap make_box_tensor_map(const void* base, std::size_t elem_bytes, std::int64_t nx,
                                std::int64_t ny, std::int64_t nz, std::int64_t pitch,
                                std::int64_t plane, int box_w, int box_rows);

}  // namespace strata::cuda
