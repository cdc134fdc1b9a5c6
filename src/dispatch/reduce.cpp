// The public reductions and vector operations: every call is validated once, turned into
// one RowShape (ny*nz rows of nx values; a flat array is one row) plus Strided operands, and
// handed to the backend that owns the memory (on_backend, dispatch/backend.hpp) through the
// seam in backend/rows.hpp.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "backend/rows.hpp"
#include "base/runtime.hpp"
#include "dispatch/backend.hpp"
#include "strata/device.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata {

namespace {

template <class T>
RowShape shape_of(const Field<T>& f) {
  const Extent n = f.extent();
  return {std::size_t(n.nx), std::size_t(n.ny), std::size_t(n.nz)};
}
template <class T>
Strided<const T> operand(const Field<T>& f) {
  return {f.origin(), f.layout().pitch, f.layout().plane};
}
template <class T>
Strided<T> operand(Field<T>& f) {
  return {f.origin(), f.layout().pitch, f.layout().plane};
}
template <class T>
Strided<T> flat(T* p) {
  return {p, 0, 0};
}
RowShape flat_shape(std::size_t n) { return {n, 1, 1}; }

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
  runtime::require_device_pointer(p, fn);
}

// ---- reductions --------------------------------------------------------------------------
// Empty shapes are answered here; the backends see at least one value.

template <class T>
double sum_of(const RowShape& s, Strided<const T> a, Memory m, Stream st) {
  if (points(s) == 0) return 0;
  return on_backend(m, [&](auto tag) { return sum(tag, s, a, st.handle); });
}

template <class T>
double dot_of(const RowShape& s, Strided<const T> a, Strided<const T> b, Memory m, Stream st) {
  if (points(s) == 0) return 0;
  return on_backend(m, [&](auto tag) { return dot(tag, s, a, b, st.handle); });
}

template <class T>
double norm2_of(const RowShape& s, Strided<const T> a, Memory m, Stream st) {
  if (points(s) == 0) return 0;
  return std::sqrt(on_backend(m, [&](auto tag) { return sum_squares(tag, s, a, st.handle); }));
}

template <class T>
T max_abs_of(const RowShape& s, Strided<const T> a, Memory m, Stream st) {
  if (points(s) == 0) return T(0);
  return on_backend(m, [&](auto tag) { return max_abs(tag, s, a, st.handle); });
}

// lo: the minimum, otherwise the maximum.
template <class T>
T extreme_of(bool lo, const RowShape& s, Strided<const T> a, Memory m, Stream st) {
  if (points(s) == 0)
    return lo ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  return on_backend(m, [&](auto tag) {
    return lo ? min_value(tag, s, a, st.handle) : max_value(tag, s, a, st.handle);
  });
}

// For fields, also turns the linear index into (x, y, z).
template <class T>
FiniteReport<T> finite_of(const RowShape& s, Strided<const T> a, Memory m, Stream st, bool field) {
  if (points(s) == 0) return {};
  FiniteReport<T> r = on_backend(m, [&](auto tag) { return check_finite(tag, s, a, st.handle); });
  if (field && !r.all_finite) {
    r.x = int(r.index % s.nx);
    r.y = int(r.index / s.nx % s.ny);
    r.z = int(r.index / s.nx / s.ny);
  }
  return r;
}

// ---- vector operations ---------------------------------------------------------------------

template <class T>
void fill_of(const RowShape& s, Strided<T> y, T v, Memory m, Stream st) {
  if (points(s) == 0) return;
  on_backend(m, [&](auto tag) { fill(tag, s, y, v, st.handle); });
}

template <class T>
void copy_of(const RowShape& s, Strided<const T> x, Strided<T> y, Memory m, Stream st) {
  if (points(s) == 0) return;
  on_backend(m, [&](auto tag) { copy(tag, s, x, y, st.handle); });
}

template <class T>
void scale_of(const RowShape& s, T a, Strided<T> y, Memory m, Stream st) {
  if (points(s) == 0) return;
  on_backend(m, [&](auto tag) { scale(tag, s, a, y, st.handle); });
}

template <class T>
void axpy_of(const RowShape& s, T a, Strided<const T> x, Strided<T> y, Memory m, Stream st) {
  if (points(s) == 0) return;
  on_backend(m, [&](auto tag) { axpy(tag, s, a, x, y, st.handle); });
}

template <class T>
void axpby_of(const RowShape& s, T a, Strided<const T> x, T b, Strided<T> y, Memory m, Stream st) {
  if (points(s) == 0) return;
  on_backend(m, [&](auto tag) { axpby(tag, s, a, x, b, y, st.handle); });
}

template <class T>
double axpby_norm2_of(const RowShape& s, T a, Strided<const T> x, T b, Strided<T> y, Memory m,
                      Stream st) {
  if (points(s) == 0) return 0;
  return std::sqrt(
      on_backend(m, [&](auto tag) { return axpby_sum_squares(tag, s, a, x, b, y, st.handle); }));
}

template <class T>
double sub_norm2_of(const RowShape& s, Strided<const T> b, Strided<const T> y, Strided<T> r,
                    Memory m, Stream st) {
  if (points(s) == 0) return 0;
  return std::sqrt(
      on_backend(m, [&](auto tag) { return sub_sum_squares(tag, s, b, y, r, st.handle); }));
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
  return sum_of(flat_shape(n), flat(data), m, st);
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
  return dot_of(flat_shape(n), flat(a), flat(b), m, st);
}

template <class T>
double norm2(const Field<T>& f, Stream st) {
  check_field("norm2", f);
  return norm2_of(shape_of(f), operand(f), f.memory(), st);
}
template <class T>
double norm2(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("norm2", data, n, m);
  return norm2_of(flat_shape(n), flat(data), m, st);
}

template <class T>
T max_abs(const Field<T>& f, Stream st) {
  check_field("max_abs", f);
  return max_abs_of(shape_of(f), operand(f), f.memory(), st);
}
template <class T>
T max_abs(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("max_abs", data, n, m);
  return max_abs_of(flat_shape(n), flat(data), m, st);
}

template <class T>
T min(const Field<T>& f, Stream st) {
  check_field("min", f);
  return extreme_of(true, shape_of(f), operand(f), f.memory(), st);
}
template <class T>
T min(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("min", data, n, m);
  return extreme_of(true, flat_shape(n), flat(data), m, st);
}
template <class T>
T max(const Field<T>& f, Stream st) {
  check_field("max", f);
  return extreme_of(false, shape_of(f), operand(f), f.memory(), st);
}
template <class T>
T max(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("max", data, n, m);
  return extreme_of(false, flat_shape(n), flat(data), m, st);
}

template <class T>
FiniteReport<T> check_finite(const Field<T>& f, Stream st) {
  check_field("check_finite", f);
  return finite_of(shape_of(f), operand(f), f.memory(), st, true);
}
template <class T>
FiniteReport<T> check_finite(const T* data, std::size_t n, Memory m, Stream st) {
  check_flat("check_finite", data, n, m);
  return finite_of(flat_shape(n), flat(data), m, st, false);
}

template <class T>
std::string describe(const FiniteReport<T>& r, std::size_t points) {
  char b[256];
  const std::string where = r.x >= 0 ? "(x, y, z) = (" + std::to_string(r.x) + ", " +
                                           std::to_string(r.y) + ", " + std::to_string(r.z) + ")"
                                     : "index " + std::to_string(r.index);
  const double share = points ? 100.0 * double(r.count) / double(points) : 0.0;
  std::snprintf(b, sizeof b, "%zu non-finite value%s of %zu (%.3g%%), the first %g at %s", r.count,
                r.count == 1 ? "" : "s", points, share, double(r.value), where.c_str());
  return b;
}

template <class T>
std::string nonfinite_result(const FiniteReport<T>& result, const FiniteReport<T>* input,
                             std::size_t points) {
  const std::string held = "the result holds " + describe(result, points);
  if (!input) return held;
  if (!input->all_finite) return held + "; the input holds " + describe(*input, points);
  return held + "; the input is finite: the computation overflows " + to_string(precision_of<T>) +
         " on these values";
}

template <class T>
void fill(Field<T>& f, scalar_t<T> value, Stream st) {
  check_field("fill", f);
  fill_of(shape_of(f), operand(f), value, f.memory(), st);
}
template <class T>
void fill(T* data, std::size_t n, scalar_t<T> value, Memory m, Stream st) {
  check_flat("fill", data, n, m);
  fill_of(flat_shape(n), flat(data), value, m, st);
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
  copy_of(flat_shape(n), flat(src), flat(dst), m, st);
}

template <class T>
void scale(Field<T>& f, scalar_t<T> a, Stream st) {
  check_field("scale", f);
  scale_of(shape_of(f), a, operand(f), f.memory(), st);
}
template <class T>
void scale(T* data, std::size_t n, scalar_t<T> a, Memory m, Stream st) {
  check_flat("scale", data, n, m);
  scale_of(flat_shape(n), a, flat(data), m, st);
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
  axpy_of(flat_shape(n), a, flat(x), flat(y), m, st);
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
  axpby_of(flat_shape(n), a, flat(x), b, flat(y), m, st);
}

template <class T>
double axpby_norm2(scalar_t<T> a, const Field<T>& x, scalar_t<T> b, Field<T>& y, Stream st) {
  check_fields("axpby_norm2", x, y);
  return axpby_norm2_of(shape_of(y), a, operand(x), b, operand(y), y.memory(), st);
}
template <class T>
double axpby_norm2(scalar_t<T> a, const T* x, scalar_t<T> b, T* y, std::size_t n, Memory m,
                   Stream st) {
  check_flat("axpby_norm2", x, n, m);
  check_flat("axpby_norm2", y, n, m);
  return axpby_norm2_of(flat_shape(n), a, flat(x), b, flat(y), m, st);
}

template <class T>
double sub_norm2(const Field<T>& b, const Field<T>& y, Field<T>& r, Stream st) {
  check_fields("sub_norm2", b, y);
  check_fields("sub_norm2", b, r);
  return sub_norm2_of(shape_of(r), operand(b), operand(y), operand(r), r.memory(), st);
}
template <class T>
double sub_norm2(const T* b, const T* y, T* r, std::size_t n, Memory m, Stream st) {
  check_flat("sub_norm2", b, n, m);
  check_flat("sub_norm2", y, n, m);
  check_flat("sub_norm2", r, n, m);
  return sub_norm2_of(flat_shape(n), flat(b), flat(y), flat(r), m, st);
}

#define STRATA_INSTANTIATE(T)                                                                \
  template double sum(const Field<T>&, Stream);                                              \
  template double sum(const T*, std::size_t, Memory, Stream);                                \
  template double dot(const Field<T>&, const Field<T>&, Stream);                             \
  template double dot(const T*, const T*, std::size_t, Memory, Stream);                      \
  template double norm2(const Field<T>&, Stream);                                            \
  template double norm2(const T*, std::size_t, Memory, Stream);                              \
  template T max_abs(const Field<T>&, Stream);                                               \
  template T max_abs(const T*, std::size_t, Memory, Stream);                                 \
  template T min(const Field<T>&, Stream);                                                   \
  template T min(const T*, std::size_t, Memory, Stream);                                     \
  template T max(const Field<T>&, Stream);                                                   \
  template T max(const T*, std::size_t, Memory, Stream);                                     \
  template FiniteReport<T> check_finite(const Field<T>&, Stream);                            \
  template FiniteReport<T> check_finite(const T*, std::size_t, Memory, Stream);              \
  template std::string describe(const FiniteReport<T>&, std::size_t);                        \
  template std::string nonfinite_result(const FiniteReport<T>&, const FiniteReport<T>*,      \
                                        std::size_t);                                        \
  template void fill(Field<T>&, scalar_t<T>, Stream);                                        \
  template void fill(T*, std::size_t, scalar_t<T>, Memory, Stream);                          \
  template void copy_interior(const Field<T>&, Field<T>&, Stream);                           \
  template void copy(const T*, T*, std::size_t, Memory, Stream);                             \
  template void scale(Field<T>&, scalar_t<T>, Stream);                                       \
  template void scale(T*, std::size_t, scalar_t<T>, Memory, Stream);                         \
  template void axpy(scalar_t<T>, const Field<T>&, Field<T>&, Stream);                       \
  template void axpy(scalar_t<T>, const T*, T*, std::size_t, Memory, Stream);                \
  template void axpby(scalar_t<T>, const Field<T>&, scalar_t<T>, Field<T>&, Stream);         \
  template void axpby(scalar_t<T>, const T*, scalar_t<T>, T*, std::size_t, Memory, Stream);  \
  template double axpby_norm2(scalar_t<T>, const Field<T>&, scalar_t<T>, Field<T>&, Stream); \
  template double axpby_norm2(scalar_t<T>, const T*, scalar_t<T>, T*, std::size_t, Memory,   \
                              Stream);                                                       \
  template double sub_norm2(const Field<T>&, const Field<T>&, Field<T>&, Stream);            \
  template double sub_norm2(const T*, const T*, T*, std::size_t, Memory, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata
