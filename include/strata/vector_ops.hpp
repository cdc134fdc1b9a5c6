// Element-wise vector operations over the interior of Fields (ghosts and padding are never
// read or written) and over flat arrays, plus fused update-and-norm operations that save a
// second memory pass in the solvers. Same backend rule as reduce.hpp: memory picks it.
#pragma once

#include <cstddef>
#include <type_traits>

#include "strata/field.hpp"
#include "strata/stream.hpp"

namespace strata {

// Contract:
// - Fields in one call must have the same extent and memory; ghost widths may differ.
// - Device work is asynchronous on `stream` except for the fused *_norm2 operations, which
//   return a norm and so synchronise the stream (like reduce.hpp).
// - Aliasing: operands may be the same field / array (axpy(a, y, y) is y *= a + 1); partial
//   overlap of flat arrays (shifted pointers) is not allowed.
// - Scalars have type T (deduced from the fields only). The CUDA kernels evaluate a*x + y
//   as one fused multiply-add; the CPU reference rounds the product first, so the two may
//   differ by about one rounding of |a*x| + |y|.
// - Flat arrays: n may be 0 (no-op; the fused norms return 0); device arrays must be
//   device memory of the current device.
template <class T>
using scalar_t = std::type_identity_t<T>;

// f = value on the interior.
template <class T>
void fill(Field<T>& f, scalar_t<T> value, Stream stream = {});
template <class T>
void fill(T* data, std::size_t n, scalar_t<T> value, Memory memory, Stream stream = {});

// dst = src on the interior (strata::copy in field.hpp copies whole allocations, across
// memories; this one stays in one memory and leaves dst's ghosts alone).
template <class T>
void copy_interior(const Field<T>& src, Field<T>& dst, Stream stream = {});
template <class T>
void copy(const T* src, T* dst, std::size_t n, Memory memory, Stream stream = {});

// f = a * f.
template <class T>
void scale(Field<T>& f, scalar_t<T> a, Stream stream = {});
template <class T>
void scale(T* data, std::size_t n, scalar_t<T> a, Memory memory, Stream stream = {});

// y = a * x + y.
template <class T>
void axpy(scalar_t<T> a, const Field<T>& x, Field<T>& y, Stream stream = {});
template <class T>
void axpy(scalar_t<T> a, const T* x, T* y, std::size_t n, Memory memory, Stream stream = {});

// y = a * x + b * y.
template <class T>
void axpby(scalar_t<T> a, const Field<T>& x, scalar_t<T> b, Field<T>& y, Stream stream = {});
template <class T>
void axpby(scalar_t<T> a, const T* x, scalar_t<T> b, T* y, std::size_t n, Memory memory,
           Stream stream = {});

// Fused: y = a * x + b * y, then returns ||y||_2 of the stored (rounded) y, in one pass.
// Same accuracy and determinism guarantees as norm2 in reduce.hpp.
template <class T>
double axpby_norm2(scalar_t<T> a, const Field<T>& x, scalar_t<T> b, Field<T>& y,
                   Stream stream = {});
template <class T>
double axpby_norm2(scalar_t<T> a, const T* x, scalar_t<T> b, T* y, std::size_t n,
                   Memory memory, Stream stream = {});

// Fused residual: r = b - y, then returns ||r||_2, in one pass (r may alias b or y).
template <class T>
double sub_norm2(const Field<T>& b, const Field<T>& y, Field<T>& r, Stream stream = {});
template <class T>
double sub_norm2(const T* b, const T* y, T* r, std::size_t n, Memory memory,
                 Stream stream = {});

}  // namespace strata
