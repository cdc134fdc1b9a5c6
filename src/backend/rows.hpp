// The row-wise seam: reductions and element-wise vector operations over ny*nz rows of nx
// values (a Field's interior, or a flat array as one row). What a backend implements is
// declared once, in rows_api.inc, for strata::cpu (src/cpu/rows.cpp) and strata::cuda
// (src/cuda/rows/reduce.cu, vector_ops.cu), each taking its backend's tag first (backend/tag.hpp).
// src/dispatch/reduce.cpp validates a call and reaches the backend through on_backend
// (dispatch/backend.hpp).
//
// Plain aggregates with no member functions: the CUDA kernels take them by value.
#pragma once

#include <cstddef>

#include "strata/reduce.hpp"

namespace strata {

// The iteration space: ny*nz rows of nx contiguous values. The linear index of (x, y, z)
// is (z*ny + y)*nx + x (the C order "first" refers to in the finite check).
struct RowShape {
  std::size_t nx = 0, ny = 1, nz = 1;
};

inline std::size_t points(const RowShape& s) { return s.nx * s.ny * s.nz; }

// One operand: element (x, y, z) lives at origin[z*plane + y*pitch + x]. Operands of one
// call share the RowShape but may have different strides (different ghost widths); a flat
// array has pitch = plane = 0 and one row.
template <class T>
struct Strided {
  T* origin = nullptr;
  std::ptrdiff_t pitch = 0, plane = 0;
};

template <class T>
Strided<const T> as_const(Strided<T> a) {
  return {a.origin, a.pitch, a.plane};
}

}  // namespace strata

#define STRATA_SEAM_LIST "backend/rows_api.inc"
#include "backend/each_backend.inc"
