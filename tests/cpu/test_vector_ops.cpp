// CPU vector operations on odd field shapes with mixed ghost widths (ghosts and padding
// poisoned and checked untouched byte for byte), on flat arrays with guard values past the
// end, with aliased operands, and the fused norms against norm2 of the result.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "common/vector_ops_reference.hpp"
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
    for (Field<T>* f : {&x, &y, &r}) test::fill_operand(*f, seed++);
    copy(x, x0), copy(y, y0), copy(r, r0);
  }
  void expect_outside_untouched(const std::string& what) const {
    EXPECT_EQ(test::outside_interior_diffs(x, x0), 0u) << what << ": x";
    EXPECT_EQ(test::outside_interior_diffs(y, y0), 0u) << what << ": y";
    EXPECT_EQ(test::outside_interior_diffs(r, r0), 0u) << what << ": r";
  }
};

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
      test::expect_interior(t.y, "fill " + s, [&](int, int, int) { return test::ref_exact(v); });
      t.expect_outside_untouched("fill " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      copy_interior(t.x, t.y);
      test::expect_interior(t.y, "copy_interior " + s,
                            [&](int x, int y, int z) { return test::ref_exact(t.x0(x, y, z)); });
      t.expect_outside_untouched("copy_interior " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      scale(t.y, a);
      test::expect_interior(t.y, "scale " + s,
                            [&](int x, int y, int z) { return test::ref_scale(a, t.y0(x, y, z)); });
      t.expect_outside_untouched("scale " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      axpy(a, t.x, t.y);
      test::expect_interior(t.y, "axpy " + s, [&](int x, int y, int z) {
        return test::ref_axpy(a, t.x0(x, y, z), t.y0(x, y, z));
      });
      t.expect_outside_untouched("axpy " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      axpby(a, t.x, b, t.y);
      test::expect_interior(t.y, "axpby " + s, [&](int x, int y, int z) {
        return test::ref_axpby(a, t.x0(x, y, z), b, t.y0(x, y, z));
      });
      t.expect_outside_untouched("axpby " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      const double nrm = axpby_norm2(a, t.x, b, t.y);
      test::expect_interior(t.y, "axpby_norm2 " + s, [&](int x, int y, int z) {
        return test::ref_axpby(a, t.x0(x, y, z), b, t.y0(x, y, z));
      });
      EXPECT_EQ(nrm, norm2(t.y)) << "axpby_norm2 " << s;  // same reference sum on the CPU
      t.expect_outside_untouched("axpby_norm2 " + s);
    }
    {
      Trio<T> t(e, seed += 3);
      const double nrm = sub_norm2(t.x, t.y, t.r);
      test::expect_interior(t.r, "sub_norm2 " + s, [&](int x, int y, int z) {
        return test::ref_sub(t.x0(x, y, z), t.y0(x, y, z));
      });
      EXPECT_EQ(nrm, norm2(t.r)) << "sub_norm2 " << s;
      t.expect_outside_untouched("sub_norm2 " + s);
    }
  }
}

TYPED_TEST(VectorOpsCpu, AliasedOperandsAreElementWise) {
  using T = TypeParam;
  Trio<T> t({33, 65, 17}, 77);
  axpy(T(0.5), t.y, t.y);  // y = 1.5 y
  test::expect_interior(t.y, "axpy(a, y, y)",
                        [&](int x, int y, int z) { return test::ref_scale(1.5, t.y0(x, y, z)); });
  copy(t.y, t.y0);
  const double nrm = sub_norm2(t.x, t.y, t.x);  // r aliases b
  test::expect_interior(t.x, "sub_norm2(b, y, b)", [&](int x, int y, int z) {
    return test::ref_sub(t.x0(x, y, z), t.y0(x, y, z));
  });
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
    for (std::size_t i = 0; i < n; ++i)
      if (!test::within(y[i], test::ref_axpby(a, x[i], b, y0[i + 1]))) ++bad;
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
