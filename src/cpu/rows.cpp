// Reference reductions and vector operations, written as directly as possible. The rows
// are cut into fixed pieces of at most kPiece values; OpenMP shares the pieces out and the
// per-piece results are combined in piece order, so any thread count gives the same bits.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/cpu.hpp"
#include "cpu/rows.hpp"

namespace strata::cpu {

namespace {

constexpr std::size_t kPiece = 4096;  // values per work item: balances threads, tiny partials

// Neumaier's compensated sum: c collects the rounding error of every addition.
struct Neumaier {
  double s = 0, c = 0;
  void add(double v) {
    const double t = s + v;
    c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
    s = t;
  }
  // a*b: exact in double for float data; for double data the product's own rounding error
  // (recovered with an FMA) goes into c as well.
  void add_product(float a, float b) { add(double(a) * double(b)); }
  void add_product(double a, double b) {
    const double p = a * b;
    add(p);
    c += std::fma(a, b, -p);
  }
  Neumaier merged(const Neumaier& o) const {
    Neumaier r = *this;
    r.add(o.s);
    r.c += o.c;
    return r;
  }
  // Once s is inf or NaN, c is meaningless (inf - inf): report s.
  double value() const { return std::isfinite(s) ? s + c : s; }
};

// One piece of the iteration: values [x0, x1) of row `row` (row = z * ny + y).
struct Piece {
  std::size_t row, x0, x1;
};

template <class T>
std::size_t pieces_per_row(const Rows<T>& a) {
  return (a.nx + kPiece - 1) / kPiece;
}

template <class T>
Piece piece(const Rows<T>& a, std::size_t p) {
  const std::size_t per_row = pieces_per_row(a);
  const std::size_t row = p / per_row, x0 = (p % per_row) * kPiece;
  return {row, x0, std::min(a.nx, x0 + kPiece)};
}

template <class T>
T* row_of(const Rows<T>& a, std::size_t row) {
  return a.row(row % a.ny, row / a.ny);
}

// body(Piece) -> Acc for every piece in parallel, then merge(acc, piece_acc) in order.
template <class T, class Acc, class Body, class Merge>
Acc reduce_pieces(const Rows<T>& shape, Acc init, Body body, Merge merge) {
  const std::size_t count = pieces_per_row(shape) * shape.ny * shape.nz;
  std::vector<Acc> part(count, init);
#pragma omp parallel for schedule(static) if (threaded(shape.nx * shape.ny * shape.nz))
  for (std::ptrdiff_t p = 0; p < std::ptrdiff_t(count); ++p)
    part[std::size_t(p)] = body(piece(shape, std::size_t(p)));
  Acc acc = init;
  for (const Acc& a : part) acc = merge(acc, a);
  return acc;
}

// body(Piece) for every piece in parallel (element-wise operations).
template <class T, class Body>
void for_pieces(const Rows<T>& shape, Body body) {
  const std::size_t count = pieces_per_row(shape) * shape.ny * shape.nz;
#pragma omp parallel for schedule(static) if (threaded(shape.nx * shape.ny * shape.nz))
  for (std::ptrdiff_t p = 0; p < std::ptrdiff_t(count); ++p) body(piece(shape, std::size_t(p)));
}

// Compensated sum over all values; bind(row) returns the per-x action on a Neumaier.
template <class T, class Bind>
double compensated(const Rows<T>& shape, Bind bind) {
  const Neumaier r = reduce_pieces(
      shape, Neumaier{},
      [&](const Piece& q) {
        const auto add = bind(q.row);
        Neumaier acc;
        for (std::size_t x = q.x0; x < q.x1; ++x) add(acc, x);
        return acc;
      },
      [](const Neumaier& a, const Neumaier& b) { return a.merged(b); });
  return r.value();
}

// NaN sticks: once m is NaN, v < m and v > m are false for every v.
template <class T>
T take_min(T m, T v) {
  return (v < m || std::isnan(v)) ? v : m;
}
template <class T>
T take_max(T m, T v) {
  return (v > m || std::isnan(v)) ? v : m;
}

template <class T, class Pick>
T extreme(Rows<const T> a, T init, Pick pick) {
  return reduce_pieces(
      a, init,
      [&](const Piece& q) {
        const T* r = row_of(a, q.row);
        T m = init;
        for (std::size_t x = q.x0; x < q.x1; ++x) m = pick(m, r[x]);
        return m;
      },
      pick);
}

}  // namespace

template <class T>
double sum(Rows<const T> a) {
  return compensated(a, [&](std::size_t row) {
    const T* r = row_of(a, row);
    return [r](Neumaier& acc, std::size_t x) { acc.add(double(r[x])); };
  });
}

template <class T>
double dot(Rows<const T> a, Rows<const T> b) {
  return compensated(a, [&](std::size_t row) {
    const T* ra = row_of(a, row);
    const T* rb = row_of(b, row);
    return [ra, rb](Neumaier& acc, std::size_t x) { acc.add_product(ra[x], rb[x]); };
  });
}

template <class T>
double sum_squares(Rows<const T> a) {
  return compensated(a, [&](std::size_t row) {
    const T* r = row_of(a, row);
    return [r](Neumaier& acc, std::size_t x) { acc.add_product(r[x], r[x]); };
  });
}

template <class T>
T max_abs(Rows<const T> a) {
  return reduce_pieces(
      a, T(0),
      [&](const Piece& q) {
        const T* r = row_of(a, q.row);
        T m = 0;
        for (std::size_t x = q.x0; x < q.x1; ++x) m = take_max(m, std::fabs(r[x]));
        return m;
      },
      take_max<T>);
}

template <class T>
T min_value(Rows<const T> a) {
  return extreme(a, std::numeric_limits<T>::infinity(), take_min<T>);
}

template <class T>
T max_value(Rows<const T> a) {
  return extreme(a, -std::numeric_limits<T>::infinity(), take_max<T>);
}

template <class T>
FiniteReport<T> check_finite(Rows<const T> a) {
  return reduce_pieces(
      a, FiniteReport<T>{},
      [&](const Piece& q) {
        const T* r = row_of(a, q.row);
        FiniteReport<T> f;
        for (std::size_t x = q.x0; x < q.x1; ++x)
          if (!std::isfinite(r[x])) {
            if (f.all_finite) f.index = q.row * a.nx + x, f.value = r[x];
            f.all_finite = false;
            ++f.count;
          }
        return f;
      },
      [](FiniteReport<T> acc, const FiniteReport<T>& f) {
        if (acc.all_finite && !f.all_finite) acc.index = f.index, acc.value = f.value;
        acc.all_finite = acc.all_finite && f.all_finite;
        acc.count += f.count;
        return acc;
      });
}

template <class T>
void fill(Rows<T> y, T value) {
  for_pieces(y, [&](const Piece& q) {
    T* d = row_of(y, q.row);
    std::fill(d + q.x0, d + q.x1, value);
  });
}

template <class T>
void copy(Rows<const T> x, Rows<T> y) {
  for_pieces(y, [&](const Piece& q) {
    const T* s = row_of(x, q.row);
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = s[i];
  });
}

template <class T>
void scale(Rows<T> y, T a) {
  for_pieces(y, [&](const Piece& q) {
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = a * d[i];
  });
}

template <class T>
void axpy(T a, Rows<const T> x, Rows<T> y) {
  for_pieces(y, [&](const Piece& q) {
    const T* s = row_of(x, q.row);
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = a * s[i] + d[i];
  });
}

template <class T>
void axpby(T a, Rows<const T> x, T b, Rows<T> y) {
  for_pieces(y, [&](const Piece& q) {
    const T* s = row_of(x, q.row);
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = a * s[i] + b * d[i];
  });
}

template <class T>
double axpby_sum_squares(T a, Rows<const T> x, T b, Rows<T> y) {
  axpby(a, x, b, y);
  return sum_squares(Rows<const T>{y.origin, y.nx, y.ny, y.nz, y.pitch, y.plane});
}

template <class T>
double sub_sum_squares(Rows<const T> b, Rows<const T> y, Rows<T> r) {
  for_pieces(r, [&](const Piece& q) {
    const T* sb = row_of(b, q.row);
    const T* sy = row_of(y, q.row);
    T* d = row_of(r, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = sb[i] - sy[i];
  });
  return sum_squares(Rows<const T>{r.origin, r.nx, r.ny, r.nz, r.pitch, r.plane});
}

#define STRATA_INSTANTIATE(T)                                                   \
  template double sum(Rows<const T>);                                           \
  template double dot(Rows<const T>, Rows<const T>);                            \
  template double sum_squares(Rows<const T>);                                   \
  template T max_abs(Rows<const T>);                                            \
  template T min_value(Rows<const T>);                                          \
  template T max_value(Rows<const T>);                                          \
  template FiniteReport<T> check_finite(Rows<const T>);                         \
  template void fill(Rows<T>, T);                                               \
  template void copy(Rows<const T>, Rows<T>);                                   \
  template void scale(Rows<T>, T);                                              \
  template void axpy(T, Rows<const T>, Rows<T>);                                \
  template void axpby(T, Rows<const T>, T, Rows<T>);                            \
  template double axpby_sum_squares(T, Rows<const T>, T, Rows<T>);              \
  template double sub_sum_squares(Rows<const T>, Rows<const T>, Rows<T>);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::cpu
