// The CPU reference for reductions and vector operations: plain loops, OpenMP over fixed
// pieces of rows, Neumaier-compensated double accumulation. Results are combined in piece
// order, so they do not depend on the thread count. Shares no code with the CUDA kernels.
#pragma once

#include <cstddef>

#include "strata/reduce.hpp"

namespace strata::cpu {

// ny*nz rows of nx contiguous values: a Field's interior (origin = point (0,0,0)) or a flat
// array (one row, pitch and plane unused). Element (x, y, z) is origin[z*plane + y*pitch + x].
template <class T>
struct Rows {
  T* origin = nullptr;
  std::size_t nx = 0, ny = 1, nz = 1;
  std::ptrdiff_t pitch = 0, plane = 0;

  T* row(std::size_t y, std::size_t z) const {
    return origin + std::ptrdiff_t(z) * plane + std::ptrdiff_t(y) * pitch;
  }
};

// Reductions (every Rows here has at least one element; the core handles n == 0).
template <class T>
double sum(Rows<const T> a);
template <class T>
double dot(Rows<const T> a, Rows<const T> b);
template <class T>
double sum_squares(Rows<const T> a);
template <class T>
T max_abs(Rows<const T> a);
template <class T>
T min_value(Rows<const T> a);
template <class T>
T max_value(Rows<const T> a);
// Fills all_finite, count, index and value; x, y, z are left to the caller.
template <class T>
FiniteReport<T> check_finite(Rows<const T> a);

// Element-wise operations over rows of the same shape.
template <class T>
void fill(Rows<T> y, T value);
template <class T>
void copy(Rows<const T> x, Rows<T> y);
template <class T>
void scale(Rows<T> y, T a);
template <class T>
void axpby(T a, Rows<const T> x, T b, Rows<T> y);  // y = a*x + b*y
template <class T>
void axpy(T a, Rows<const T> x, Rows<T> y);  // y = a*x + y
// Fused: y = a*x + b*y, returns the sum of squares of the stored y.
template <class T>
double axpby_sum_squares(T a, Rows<const T> x, T b, Rows<T> y);
// Fused: r = b - y, returns the sum of squares of the stored r.
template <class T>
double sub_sum_squares(Rows<const T> b, Rows<const T> y, Rows<T> r);

}  // namespace strata::cpu
