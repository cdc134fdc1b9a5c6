// The public reductions and vector operations: every call is validated once, turned into
// one shape (ny*nz rows of nx values; a flat array is one row) plus strided operands, and
// handed to the backend that owns the memory (CPU reference or, if built, CUDA).
#include <cmath>
#include <limits>
#include <string>

#include "cpu/rows.hpp"
#include "strata/device.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"
#if STRATA_HAVE_CUDA
#include "cuda/rows.hpp"
#endif

namespace strata {

namespace {

struct Shape {
  std::size_t nx = 0, ny = 1, nz = 1;
  std::size_t points() const { return nx * ny * nz; }
};

// Element (x, y, z) of an operand is origin[z*plane + y*pitch + x].
template <class T>
struct Operand {
  T* origin = nullptr;
  std::ptrdiff_t pitch = 0, plane = 0;
};

template <class T>
Shape shape_of(const Field<T>& f) {
  const Extent n = f.extent();
  return {std::size_t(n.nx), std::size_t(n.ny), std::size_t(n.nz)};
}
template <class T>
Operand<const T> operand(const Field<T>& f) {
  return {f.origin(), f.layout().pitch, f.layout().plane};
}
template <class T>
Operand<T> operand(Field<T>& f) {
  return {f.origin(), f.layout().pitch, f.layout().plane};
}
template <class T>
Operand<T> flat(T* p) {
  return {p, 0, 0};
}

template <class T>
cpu::Rows<T> cpu_rows(const Shape& s, Operand<T> o) {
  return {o.origin, s.nx, s.ny, s.nz, o.pitch, o.plane};
}
#if STRATA_HAVE_CUDA
cuda::RowShape cuda_shape(const Shape& s) { return {s.nx, s.ny, s.nz}; }
template <class T>
cuda::Strided<T> cuda_op(Operand<T> o) {
  return {o.origin, o.pitch, o.plane};
}
#endif

#if !STRATA_HAVE_CUDA
// Unreachable in practice: device fields cannot be made and check_flat refuses device
// arrays without CUDA; kept so every path ends in a clear message.
[[noreturn]] void no_cuda() {
  throw Error("device memory given but strata was built without CUDA");
}
#endif

// ---- validation --------------------------------------------------------------------------

template <class T>
void check_field(const std::string& fn, const Field<T>& f) {
  require(!f.empty(), fn + ": the field is empty (default-constructed or moved from)");
}

template <class T>
void check_fields(const std::string& fn, const Field<T>& a, const Field<T>& b) {
  check_field(fn, a);
  check_field(fn, b);
  require(a.extent() == b.extent(), fn + ": the fields are " + a.extent().str() + " and " +
                                        b.extent().str() + "; extents must match");
  require(a.memory() == b.memory(),
          fn + ": the fields must both be host fields or both device fields");
}

// Flat arrays: n may be 0 (then nothing is read); otherwise the pointer must be usable in
// the memory it claims.
void check_flat(const std::string& fn, const void* p, std::size_t n, Memory memory) {
  if (n == 0) return;
  require(p != nullptr, fn + ": null pointer for " + std::to_string(n) + " values");
  if (memory == Memory::host) return;
  require(cuda_available(), fn + ": Memory::device given but " + cuda_unavailable_reason());
#if STRATA_HAVE_CUDA
  cuda::require_device_pointer(p, fn.c_str());
#endif
}

// ---- reductions --------------------------------------------------------------------------

#if STRATA_HAVE_CUDA
template <class T>
cuda::ReduceOut on_device(cuda::ReduceKind kind, const Shape& s, Operand<const T> a,
                          Operand<const T> b, Stream st) {
  return cuda::reduce<T>(kind, cuda_shape(s), cuda_op(a), cuda_op(b), st.handle);
}
#endif

template <class T>
double sum_of(const Shape& s, Operand<const T> a, Memory m, Stream st) {
  if (s.points() == 0) return 0;
  if (m == Memory::host) return cpu::sum(cpu_rows(s, a));
#if STRATA_HAVE_CUDA
  return on_device(cuda::ReduceKind::sum, s, a, a, st).value;
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
double dot_of(const Shape& s, Operand<const T> a, Operand<const T> b, Memory m, Stream st) {
  if (s.points() == 0) return 0;
  if (m == Memory::host) return cpu::dot(cpu_rows(s, a), cpu_rows(s, b));
#if STRATA_HAVE_CUDA
  return on_device(cuda::ReduceKind::dot, s, a, b, st).value;
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
double norm2_of(const Shape& s, Operand<const T> a, Memory m, Stream st) {
  if (s.points() == 0) return 0;
  if (m == Memory::host) return std::sqrt(cpu::sum_squares(cpu_rows(s, a)));
#if STRATA_HAVE_CUDA
  return std::sqrt(on_device(cuda::ReduceKind::sum_squares, s, a, a, st).value);
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
T max_abs_of(const Shape& s, Operand<const T> a, Memory m, Stream st) {
  if (s.points() == 0) return T(0);
  if (m == Memory::host) return cpu::max_abs(cpu_rows(s, a));
#if STRATA_HAVE_CUDA
  return T(on_device(cuda::ReduceKind::max_abs, s, a, a, st).hi);
#else
  (void)st;
  no_cuda();
#endif
}

// lo: the minimum, otherwise the maximum.
template <class T>
T extreme_of(bool lo, const Shape& s, Operand<const T> a, Memory m, Stream st) {
  if (s.points() == 0)
    return lo ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  if (m == Memory::host)
    return lo ? cpu::min_value(cpu_rows(s, a)) : cpu::max_value(cpu_rows(s, a));
#if STRATA_HAVE_CUDA
  const cuda::ReduceOut out = on_device(cuda::ReduceKind::min_max, s, a, a, st);
  return T(lo ? out.lo : out.hi);
#else
  (void)st;
  no_cuda();
#endif
}

// For fields, also turns the linear index into (x, y, z).
template <class T>
FiniteReport<T> finite_of(const Shape& s, Operand<const T> a, Memory m, Stream st, bool field) {
  FiniteReport<T> r;
  if (s.points() == 0) return r;
  if (m == Memory::host) {
    r = cpu::check_finite(cpu_rows(s, a));
  } else {
#if STRATA_HAVE_CUDA
    const cuda::ReduceOut out = on_device(cuda::ReduceKind::finite, s, a, a, st);
    r.all_finite = out.count == 0;
    r.count = std::size_t(out.count);
    if (!r.all_finite) r.index = std::size_t(out.first), r.value = T(out.first_value);
#else
    (void)st;
    no_cuda();
#endif
  }
  if (field && !r.all_finite) {
    r.x = int(r.index % s.nx);
    r.y = int(r.index / s.nx % s.ny);
    r.z = int(r.index / s.nx / s.ny);
  }
  return r;
}

}  // namespace

template <class T>
double sum(const Field<T>& f, Stream st) {
  check_field("sum", f);
  return sum_of(shape_of(f), operand(f), f.memory(), st);
}
template <class T>
double sum(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("sum", data, n, m);
  return sum_of(Shape{n}, flat(data), m, st);
}

template <class T>
double dot(const Field<T>& a, const Field<T>& b, Stream st) {
  check_fields("dot", a, b);
  return dot_of(shape_of(a), operand(a), operand(b), a.memory(), st);
}
template <class T>
double dot(const T* a, const T* b, std::size_t n, Memory m, Stream st) {
  check_flat("dot", a, n, m);
  check_flat("dot", b, n, m);
  return dot_of(Shape{n}, flat(a), flat(b), m, st);
}

template <class T>
double norm2(const Field<T>& f, Stream st) {
  check_field("norm2", f);
  return norm2_of(shape_of(f), operand(f), f.memory(), st);
}
template <class T>
double norm2(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("norm2", data, n, m);
  return norm2_of(Shape{n}, flat(data), m, st);
}

template <class T>
T max_abs(const Field<T>& f, Stream st) {
  check_field("max_abs", f);
  return max_abs_of(shape_of(f), operand(f), f.memory(), st);
}
template <class T>
T max_abs(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("max_abs", data, n, m);
  return max_abs_of(Shape{n}, flat(data), m, st);
}

template <class T>
T min(const Field<T>& f, Stream st) {
  check_field("min", f);
  return extreme_of(true, shape_of(f), operand(f), f.memory(), st);
}
template <class T>
T min(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("min", data, n, m);
  return extreme_of(true, Shape{n}, flat(data), m, st);
}
template <class T>
T max(const Field<T>& f, Stream st) {
  check_field("max", f);
  return extreme_of(false, shape_of(f), operand(f), f.memory(), st);
}
template <class T>
T max(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("max", data, n, m);
  return extreme_of(false, Shape{n}, flat(data), m, st);
}

template <class T>
FiniteReport<T> check_finite(const Field<T>& f, Stream st) {
  check_field("check_finite", f);
  return finite_of(shape_of(f), operand(f), f.memory(), st, true);
}
template <class T>
FiniteReport<T> check_finite(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("check_finite", data, n, m);
  return finite_of(Shape{n}, flat(data), m, st, false);
}

// ---- vector operations ---------------------------------------------------------------------

namespace {

template <class T>
void fill_of(const Shape& s, Operand<T> y, T v, Memory m, Stream st) {
  if (s.points() == 0) return;
  if (m == Memory::host) return cpu::fill(cpu_rows(s, y), v);
#if STRATA_HAVE_CUDA
  cuda::fill(cuda_shape(s), cuda_op(y), v, st.handle);
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
void copy_of(const Shape& s, Operand<const T> x, Operand<T> y, Memory m, Stream st) {
  if (s.points() == 0) return;
  if (m == Memory::host) return cpu::copy(cpu_rows(s, x), cpu_rows(s, y));
#if STRATA_HAVE_CUDA
  cuda::copy(cuda_shape(s), cuda_op(x), cuda_op(y), st.handle);
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
void scale_of(const Shape& s, T a, Operand<T> y, Memory m, Stream st) {
  if (s.points() == 0) return;
  if (m == Memory::host) return cpu::scale(cpu_rows(s, y), a);
#if STRATA_HAVE_CUDA
  cuda::scale(cuda_shape(s), a, cuda_op(y), st.handle);
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
void axpy_of(const Shape& s, T a, Operand<const T> x, Operand<T> y, Memory m, Stream st) {
  if (s.points() == 0) return;
  if (m == Memory::host) return cpu::axpy(a, cpu_rows(s, x), cpu_rows(s, y));
#if STRATA_HAVE_CUDA
  cuda::axpy(cuda_shape(s), a, cuda_op(x), cuda_op(y), st.handle);
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
void axpby_of(const Shape& s, T a, Operand<const T> x, T b, Operand<T> y, Memory m, Stream st) {
  if (s.points() == 0) return;
  if (m == Memory::host) return cpu::axpby(a, cpu_rows(s, x), b, cpu_rows(s, y));
#if STRATA_HAVE_CUDA
  cuda::axpby(cuda_shape(s), a, cuda_op(x), b, cuda_op(y), st.handle);
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
double axpby_norm2_of(const Shape& s, T a, Operand<const T> x, T b,
                      Operand<T> y, Memory m, Stream st) {
  if (s.points() == 0) return 0;
  if (m == Memory::host)
    return std::sqrt(cpu::axpby_sum_squares(a, cpu_rows(s, x), b, cpu_rows(s, y)));
#if STRATA_HAVE_CUDA
  return std::sqrt(cuda::axpby_sum_squares(cuda_shape(s), a, cuda_op(x), b, cuda_op(y), st.handle));
#else
  (void)st;
  no_cuda();
#endif
}

template <class T>
double sub_norm2_of(const Shape& s, Operand<const T> b, Operand<const T> y,
                    Operand<T> r, Memory m, Stream st) {
  if (s.points() == 0) return 0;
  if (m == Memory::host)
    return std::sqrt(cpu::sub_sum_squares(cpu_rows(s, b), cpu_rows(s, y), cpu_rows(s, r)));
#if STRATA_HAVE_CUDA
  return std::sqrt(
      cuda::sub_sum_squares(cuda_shape(s), cuda_op(b), cuda_op(y), cuda_op(r), st.handle));
#else
  (void)st;
  no_cuda();
#endif
}

}  // namespace

template <class T>
void fill(Field<T>& f, scalar_t<T> value, Stream st) {
  check_field("fill", f);
  fill_of(shape_of(f), operand(f), value, f.memory(), st);
}
template <class T>
void fill(T* data, std::size_t n, scalar_t<T> value, Memory m, Stream st) {
  check_flat("fill", data, n, m);
  fill_of(Shape{n}, flat(data), value, m, st);
}

template <class T>
void copy_interior(const Field<T>& src, Field<T>& dst, Stream st) {
  check_fields("copy_interior", src, dst);
  copy_of(shape_of(src), operand(src), operand(dst), src.memory(), st);
}
template <class T>
void copy(const T* src, T* dst, std::size_t n, Memory m, Stream st) {
  check_flat("copy", src, n, m);
  check_flat("copy", dst, n, m);
  copy_of(Shape{n}, flat(src), flat(dst), m, st);
}

template <class T>
void scale(Field<T>& f, scalar_t<T> a, Stream st) {
  check_field("scale", f);
  scale_of(shape_of(f), a, operand(f), f.memory(), st);
}
template <class T>
void scale(T* data, std::size_t n, scalar_t<T> a, Memory m, Stream st) {
  check_flat("scale", data, n, m);
  scale_of(Shape{n}, a, flat(data), m, st);
}

template <class T>
void axpy(scalar_t<T> a, const Field<T>& x, Field<T>& y, Stream st) {
  check_fields("axpy", x, y);
  axpy_of(shape_of(y), a, operand(x), operand(y), y.memory(), st);
}
template <class T>
void axpy(scalar_t<T> a, const T* x, T* y, std::size_t n, Memory m, Stream st) {
  check_flat("axpy", x, n, m);
  check_flat("axpy", y, n, m);
  axpy_of(Shape{n}, a, flat(x), flat(y), m, st);
}

template <class T>
void axpby(scalar_t<T> a, const Field<T>& x, scalar_t<T> b, Field<T>& y, Stream st) {
  check_fields("axpby", x, y);
  axpby_of(shape_of(y), a, operand(x), b, operand(y), y.memory(), st);
}
template <class T>
void axpby(scalar_t<T> a, const T* x, scalar_t<T> b, T* y, std::size_t n, Memory m, Stream st) {
  check_flat("axpby", x, n, m);
  check_flat("axpby", y, n, m);
  axpby_of(Shape{n}, a, flat(x), b, flat(y), m, st);
}

template <class T>
double axpby_norm2(scalar_t<T> a, const Field<T>& x, scalar_t<T> b, Field<T>& y, Stream st) {
  check_fields("axpby_norm2", x, y);
  return axpby_norm2_of(shape_of(y), a, operand(x), b, operand(y), y.memory(),
                        st);
}
template <class T>
double axpby_norm2(scalar_t<T> a, const T* x, scalar_t<T> b, T* y, std::size_t n, Memory m,
                   Stream st) {
  check_flat("axpby_norm2", x, n, m);
  check_flat("axpby_norm2", y, n, m);
  return axpby_norm2_of(Shape{n}, a, flat(x), b, flat(y), m, st);
}

template <class T>
double sub_norm2(const Field<T>& b, const Field<T>& y, Field<T>& r, Stream st) {
  check_fields("sub_norm2", b, y);
  check_fields("sub_norm2", b, r);
  return sub_norm2_of(shape_of(r), operand(b), operand(y), operand(r), r.memory(),
                      st);
}
template <class T>
double sub_norm2(const T* b, const T* y, T* r, std::size_t n, Memory m, Stream st) {
  check_flat("sub_norm2", b, n, m);
  check_flat("sub_norm2", y, n, m);
  check_flat("sub_norm2", r, n, m);
  return sub_norm2_of(Shape{n}, flat(b), flat(y), flat(r), m, st);
}

#define STRATA_INSTANTIATE(T)                                                               \
  template double sum(const Field<T>&, Stream);                                             \
  template double sum(const T*, std::size_t, Memory, Stream);                               \
  template double dot(const Field<T>&, const Field<T>&, Stream);                            \
  template double dot(const T*, const T*, std::size_t, Memory, Stream);                     \
  template double norm2(const Field<T>&, Stream);                                           \
  template double norm2(const T*, std::size_t, Memory, Stream);                             \
  template T max_abs(const Field<T>&, Stream);                                              \
  template T max_abs(const T*, std::size_t, Memory, Stream);                                \
  template T min(const Field<T>&, Stream);                                                  \
  template T min(const T*, std::size_t, Memory, Stream);                                    \
  template T max(const Field<T>&, Stream);                                                  \
  template T max(const T*, std::size_t, Memory, Stream);                                    \
  template FiniteReport<T> check_finite(const Field<T>&, Stream);                           \
  template FiniteReport<T> check_finite(const T*, std::size_t, Memory, Stream);             \
  template void fill(Field<T>&, scalar_t<T>, Stream);                                       \
  template void fill(T*, std::size_t, scalar_t<T>, Memory, Stream);                         \
  template void copy_interior(const Field<T>&, Field<T>&, Stream);                          \
  template void copy(const T*, T*, std::size_t, Memory, Stream);                            \
  template void scale(Field<T>&, scalar_t<T>, Stream);                                      \
  template void scale(T*, std::size_t, scalar_t<T>, Memory, Stream);                        \
  template void axpy(scalar_t<T>, const Field<T>&, Field<T>&, Stream);                      \
  template void axpy(scalar_t<T>, const T*, T*, std::size_t, Memory, Stream);               \
  template void axpby(scalar_t<T>, const Field<T>&, scalar_t<T>, Field<T>&, Stream);        \
  template void axpby(scalar_t<T>, const T*, scalar_t<T>, T*, std::size_t, Memory, Stream); \
  template double axpby_norm2(scalar_t<T>, const Field<T>&, scalar_t<T>, Field<T>&, Stream); \
  template double axpby_norm2(scalar_t<T>, const T*, scalar_t<T>, T*, std::size_t, Memory,  \
                              Stream);                                                      \
  template double sub_norm2(const Field<T>&, const Field<T>&, Field<T>&, Stream);           \
  template double sub_norm2(const T*, const T*, T*, std::size_t, Memory, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata
