// CPU vector operations on odd field shapes with mixed ghost widths (ghosts and padding
// poisoned and checked untouched byte for byte), on flat arrays with guard values past the
// end, with aliased operands, and the fused norms against norm2 of the result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "common/test_util.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

using namespace strata;

namespace {

// Three fields of one extent and different ghost widths (so different layouts): random
// interiors, poisoned ghosts and padding, and snapshots to compare against afterwards.
template <class T>
struct Trio {
  Field<T> x, y, r, x0, y0, r0;
  Trio(Extent e, std::uint64_t seed) : x(e, 1), y(e, 4), r(e, 0), x0(e, 1), y0(e, 4), r0(e, 0) {
    for (Field<T>* f : {&x, &y, &r}) {
      test::poison(*f);
      test::fill_random(*f, seed++, -2.0, 2.0);
    }
    copy(x, x0), copy(y, y0), copy(r, r0);
  }
  void expect_outside_untouched(const std::string& what) const {
    EXPECT_EQ(test::outside_interior_diffs(x, x0), 0u) << what << ": x";
    EXPECT_EQ(test::outside_interior_diffs(y, y0), 0u) << what << ": y";
    EXPECT_EQ(test::outside_interior_diffs(r, r0), 0u) << what << ": r";
  }
};

// Checks out(p) against want(p) = {value, magnitude}: |out - value| <= 2 eps magnitude.
template <class T>
void expect_interior(const Field<T>& out,
                     const std::function<std::pair<double, double>(int, int, int)>& want,
                     const std::string& what) {
  const Extent n = out.extent();
  const double eps = std::numeric_limits<T>::epsilon();
  std::size_t bad = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const auto [v, mag] = want(x, y, z);
        if (!(std::fabs(double(out(x, y, z)) - v) <= 2 * eps * mag) && ++bad <= 3)
          ADD_FAILURE() << what << " at (" << x << "," << y << "," << z << "): " << out(x, y, z)
                        << " expected " << v;
      }
  EXPECT_EQ(bad, 0u) << what;
}

const Extent kShapes[] = {{1, 1, 1}, {7, 1, 33}, {33, 65, 17}, {130, 7, 3}};

template <class T>
class VectorOpsCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VectorOpsCpu, Precisions);

}  // namespace

TYPED_TEST(VectorOpsCpu, FieldOpsTouchOnlyTheInterior) {
  using T = TypeParam;
  const T a = T(0.37), b = T(-1.25), v = T(3.5);
  std::uint64_t seed = 1;
  for (Extent e : kShapes) {
    const std::string s = e.str();
    {
      Trio<T> t(e, seed += 3);
      fill(t.y, v);
      expect_interior<T>(
          t.y,
          [&](int, int, int) {
            return std::pair{double(v), 0.0};
          },
          "fill " + s);
      t.expect_outside_untouched("fill " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      copy_interior(t.x, t.y);
      expect_interior<T>(
          t.y,
          [&](int x, int y, int z) {
            return std::pair{double(t.x0(x, y, z)), 0.0};
          },
          "copy_interior " + s);
      t.expect_outside_untouched("copy_interior " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      scale(t.y, a);
      expect_interior<T>(
          t.y,
          [&](int x, int y, int z) {
            const double w = double(a) * t.y0(x, y, z);
            return std::pair{w, std::fabs(w)};
          },
          "scale " + s);
      t.expect_outside_untouched("scale " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      axpy(a, t.x, t.y);
      expect_interior<T>(
          t.y,
          [&](int x, int y, int z) {
            const double ax = double(a) * t.x0(x, y, z), yy = t.y0(x, y, z);
            return std::pair{ax + yy, std::fabs(ax) + std::fabs(yy)};
          },
          "axpy " + s);
      t.expect_outside_untouched("axpy " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      axpby(a, t.x, b, t.y);
      expect_interior<T>(
          t.y,
          [&](int x, int y, int z) {
            const double ax = double(a) * t.x0(x, y, z), by = double(b) * t.y0(x, y, z);
            return std::pair{ax + by, std::fabs(ax) + std::fabs(by)};
          },
          "axpby " + s);
      t.expect_outside_untouched("axpby " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      const double nrm = axpby_norm2(a, t.x, b, t.y);
      expect_interior<T>(
          t.y,
          [&](int x, int y, int z) {
            const double ax = double(a) * t.x0(x, y, z), by = double(b) * t.y0(x, y, z);
            return std::pair{ax + by, std::fabs(ax) + std::fabs(by)};
          },
          "axpby_norm2 " + s);
      EXPECT_EQ(nrm, norm2(t.y)) << "axpby_norm2 " << s;  // same reference sum on the CPU
      t.expect_outside_untouched("axpby_norm2 " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      const double nrm = sub_norm2(t.x, t.y, t.r);
      expect_interior<T>(
          t.r,
          [&](int x, int y, int z) {
            const double bb = t.x0(x, y, z), yy = t.y0(x, y, z);
            return std::pair{bb - yy, std::fabs(bb - yy)};
          },
          "sub_norm2 " + s);
      EXPECT_EQ(nrm, norm2(t.r)) << "sub_norm2 " << s;
      t.expect_outside_untouched("sub_norm2 " + s);
    }
  }
}

TYPED_TEST(VectorOpsCpu, AliasedOperandsAreElementWise) {
  using T = TypeParam;
  Trio<T> t({33, 65, 17}, 77);
  axpy(T(0.5), t.y, t.y);  // y = 1.5 y
  expect_interior<T>(
      t.y,
      [&](int x, int y, int z) {
        const double w = 1.5 * t.y0(x, y, z);
        return std::pair{w, std::fabs(w)};
      },
      "axpy(a, y, y)");
  copy(t.y, t.y0);
  const double nrm = sub_norm2(t.x, t.y, t.x);  // r aliases b
  expect_interior<T>(
      t.x,
      [&](int x, int y, int z) {
        const double d = double(t.x0(x, y, z)) - t.y0(x, y, z);
        return std::pair{d, std::fabs(d)};
      },
      "sub_norm2(b, y, b)");
  EXPECT_EQ(nrm, norm2(t.x));
  t.expect_outside_untouched("aliased");
}

TYPED_TEST(VectorOpsCpu, FlatArraysStopAtTheirEnd) {
  using T = TypeParam;
  const T guard = T(-777.0), a = T(1.75), b = T(0.5);
  for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(33), std::size_t(1023),
                        std::size_t(4097), std::size_t((1 << 20) + 1)}) {
    std::mt19937_64 rng(n);
    std::uniform_real_distribution<double> d(-1, 1);
    // One element of offset so the data start is not 16-byte aligned.
    std::vector<T> xs(n + 9, guard), ys(n + 9, guard);
    for (std::size_t i = 1; i <= n; ++i) xs[i] = T(d(rng)), ys[i] = T(d(rng));
    const std::vector<T> y0 = ys;
    T* x = xs.data() + 1;
    T* y = ys.data() + 1;
    const double nrm = axpby_norm2(a, x, b, y, n, Memory::host);
    const double eps = std::numeric_limits<T>::epsilon();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ax = double(a) * x[i], by = double(b) * y0[i + 1];
      if (!(std::fabs(y[i] - (ax + by)) <= 2 * eps * (std::fabs(ax) + std::fabs(by)))) ++bad;
    }
    EXPECT_EQ(bad, 0u) << n;
    EXPECT_EQ(nrm, norm2(y, n, Memory::host)) << n;
    EXPECT_EQ(ys[0], guard) << n;
    for (std::size_t i = n + 1; i < ys.size(); ++i) ASSERT_EQ(ys[i], guard) << n << " at " << i;
    fill(y, n, T(2), Memory::host);
    scale(y, n, T(0.25), Memory::host);
    axpy(T(1), x, y, n, Memory::host);
    axpby(T(2), x, T(-1), y, n, Memory::host);  // y = 2x - (x + 0.5) = x - 0.5
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_NEAR(double(y[i]), double(x[i]) - 0.5, 8 * eps * (std::fabs(x[i]) + 1)) << n;
    copy(y, x, n, Memory::host);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(x[i], y[i]) << n;
    for (std::size_t i = n + 1; i < ys.size(); ++i) ASSERT_EQ(ys[i], guard) << n << " at " << i;
    for (std::size_t i = n + 1; i < xs.size(); ++i) ASSERT_EQ(xs[i], guard) << n << " at " << i;
  }
}

TEST(VectorOpsCpu, EmptyArraysAreNoOps) {
  double* none = nullptr;
  fill(none, 0, 1.0, Memory::host);
  axpy(2.0, none, none, 0, Memory::host);
  EXPECT_EQ(axpby_norm2(1.0, none, 1.0, none, 0, Memory::host), 0.0);
  EXPECT_EQ(sub_norm2(none, none, none, 0, Memory::host), 0.0);
}

TEST(VectorOpsCpu, RejectsMismatchedFields) {
  Field<double> a({4, 4, 4}), b({4, 5, 4}), empty;
  EXPECT_THROW(axpy(1.0, a, b), Error);
  EXPECT_THROW(copy_interior(a, b), Error);
  EXPECT_THROW(fill(empty, 1.0), Error);
  EXPECT_THROW(sub_norm2(a, a, b), Error);
  EXPECT_THROW(fill(static_cast<double*>(nullptr), 4, 1.0, Memory::host), Error);
}
