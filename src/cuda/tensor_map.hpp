// TMA descriptors for Field planes: the allocation seen as a 3D tensor (pitch, rows,
// planes) from which kernels copy one (W x ROWS x 1) box per plane.
#pragma once

#include <cuda.h>
#include <cstddef>
#include <cstdint>

namespace strata::cuda {

// base: allocation start (16-byte aligned); strides in elements; box in elements.
CUtensorMap make_plane_tensor_map(const void* base, std::size_t elem_bytes, std::int64_t pitch,
                                  std::int64_t rows, std::int64_t planes, int box_w, int box_rows);

}  // namespace strata::cuda
