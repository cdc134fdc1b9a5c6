// Reference reductions and vector operations, written as directly as possible. The rows
// are cut into fixed pieces of at most kPiece values; OpenMP shares the pieces out and the
// per-piece results are combined in piece order, so any thread count gives the same bits.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/rows.hpp"
#include "cpu/cpu.hpp"

namespace strata::cpu {

// Not an anonymous namespace: the instantiations come from an included list
// (backend/rows_instances.inc), and types with internal linkage may not appear in them.
namespace rows_detail {

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

// The shape and one operand together, as the loops below walk them.
template <class T>
struct Rows {
  T* origin;
  std::size_t nx, ny, nz;
  std::ptrdiff_t pitch, plane;
  T* row(std::size_t y, std::size_t z) const {
    return origin + std::ptrdiff_t(z) * plane + std::ptrdiff_t(y) * pitch;
  }
};
template <class T>
Rows<T> rows(const RowShape& s, Strided<T> a) {
  return {a.origin, s.nx, s.ny, s.nz, a.pitch, a.plane};
}

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

}  // namespace rows_detail

using namespace rows_detail;

template <class T>
double sum(Tag, const RowShape& s, Strided<const T> a_op, void*) {
  const Rows<const T> a = rows(s, a_op);
  return compensated(a, [&](std::size_t row) {
    const T* r = row_of(a, row);
    return [r](Neumaier& acc, std::size_t x) { acc.add(double(r[x])); };
  });
}

template <class T>
double dot(Tag, const RowShape& s, Strided<const T> a_op, Strided<const T> b_op, void*) {
  const Rows<const T> a = rows(s, a_op);
  const Rows<const T> b = rows(s, b_op);
  return compensated(a, [&](std::size_t row) {
    const T* ra = row_of(a, row);
    const T* rb = row_of(b, row);
    return [ra, rb](Neumaier& acc, std::size_t x) { acc.add_product(ra[x], rb[x]); };
  });
}

template <class T>
double sum_squares(Tag, const RowShape& s, Strided<const T> a_op, void*) {
  const Rows<const T> a = rows(s, a_op);
  return compensated(a, [&](std::size_t row) {
    const T* r = row_of(a, row);
    return [r](Neumaier& acc, std::size_t x) { acc.add_product(r[x], r[x]); };
  });
}

template <class T>
T max_abs(Tag, const RowShape& s, Strided<const T> a_op, void*) {
  const Rows<const T> a = rows(s, a_op);
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
T min_value(Tag, const RowShape& s, Strided<const T> a_op, void*) {
  const Rows<const T> a = rows(s, a_op);
  return extreme(a, std::numeric_limits<T>::infinity(), take_min<T>);
}

template <class T>
T max_value(Tag, const RowShape& s, Strided<const T> a_op, void*) {
  const Rows<const T> a = rows(s, a_op);
  return extreme(a, -std::numeric_limits<T>::infinity(), take_max<T>);
}

template <class T>
FiniteReport<T> check_finite(Tag, const RowShape& s, Strided<const T> a_op, void*) {
  const Rows<const T> a = rows(s, a_op);
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
void fill(Tag, const RowShape& s, Strided<T> y_op, T value, void*) {
  const Rows<T> y = rows(s, y_op);
  for_pieces(y, [&](const Piece& q) {
    T* d = row_of(y, q.row);
    std::fill(d + q.x0, d + q.x1, value);
  });
}

template <class T>
void copy(Tag, const RowShape& s, Strided<const T> x_op, Strided<T> y_op, void*) {
  const Rows<const T> x = rows(s, x_op);
  const Rows<T> y = rows(s, y_op);
  for_pieces(y, [&](const Piece& q) {
    const T* src = row_of(x, q.row);
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = src[i];
  });
}

template <class T>
void scale(Tag, const RowShape& s, T a, Strided<T> y_op, void*) {
  const Rows<T> y = rows(s, y_op);
  for_pieces(y, [&](const Piece& q) {
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = a * d[i];
  });
}

template <class T>
void axpy(Tag, const RowShape& s, T a, Strided<const T> x_op, Strided<T> y_op, void*) {
  const Rows<const T> x = rows(s, x_op);
  const Rows<T> y = rows(s, y_op);
  for_pieces(y, [&](const Piece& q) {
    const T* src = row_of(x, q.row);
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = a * src[i] + d[i];
  });
}

template <class T>
void axpby(Tag, const RowShape& s, T a, Strided<const T> x_op, T b, Strided<T> y_op, void*) {
  const Rows<const T> x = rows(s, x_op);
  const Rows<T> y = rows(s, y_op);
  for_pieces(y, [&](const Piece& q) {
    const T* src = row_of(x, q.row);
    T* d = row_of(y, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = a * src[i] + b * d[i];
  });
}

template <class T>
double axpby_sum_squares(Tag, const RowShape& s, T a, Strided<const T> x_op, T b, Strided<T> y_op,
                         void*) {
  axpby(Tag{}, s, a, x_op, b, y_op, nullptr);
  return sum_squares(Tag{}, s, as_const(y_op), nullptr);
}

template <class T>
double sub_sum_squares(Tag, const RowShape& s, Strided<const T> b_op, Strided<const T> y_op,
                       Strided<T> r_op, void*) {
  const Rows<const T> b = rows(s, b_op);
  const Rows<const T> y = rows(s, y_op);
  const Rows<T> r = rows(s, r_op);
  for_pieces(r, [&](const Piece& q) {
    const T* sb = row_of(b, q.row);
    const T* sy = row_of(y, q.row);
    T* d = row_of(r, q.row);
    for (std::size_t i = q.x0; i < q.x1; ++i) d[i] = sb[i] - sy[i];
  });
  return sum_squares(Tag{}, s, as_const(r_op), nullptr);
}

#include "backend/rows_instances.inc"

}  // namespace strata::cpu
