// GPU vector operations through the public API: every operation on odd field shapes with
// mixed ghost widths against the exact per-element value (ghosts and padding poisoned and
// required bit-for-bit unchanged), flat arrays (aligned and not) with guards past the end,
// aliasing, and the fused norms against the CPU and run to run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/reduce_reference.hpp"
#include "common/test_util.hpp"
#include "common/vector_ops_reference.hpp"
#include "strata/device.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

using namespace strata;

namespace {

// Host fields x, y, r (ghost widths 1, 4, 0: three layouts) with random interiors and
// poisoned ghosts/padding, their device copies (every byte), and a way back.
template <class T>
struct DeviceTrio {
  Field<T> hx, hy, hr, x, y, r;
  DeviceTrio(Extent e, std::uint64_t seed)
      : hx(e, 1),
        hy(e, 4),
        hr(e, 0),
        x(e, 1, Memory::device),
        y(e, 4, Memory::device),
        r(e, 0, Memory::device) {
    for (Field<T>* f : {&hx, &hy, &hr}) test::fill_operand(*f, seed++);
    copy(hx, x), copy(hy, y), copy(hr, r);
  }
  // Copies the device fields back (whole allocations) and checks nothing outside the
  // interiors changed.
  void fetch(Field<T>& gx, Field<T>& gy, Field<T>& gr, const std::string& what) const {
    device_synchronize();
    copy(x, gx), copy(y, gy), copy(r, gr);
    EXPECT_EQ(test::outside_interior_diffs(gx, hx), 0u) << what << ": x";
    EXPECT_EQ(test::outside_interior_diffs(gy, hy), 0u) << what << ": y";
    EXPECT_EQ(test::outside_interior_diffs(gr, hr), 0u) << what << ": r";
  }
};

// The documented bound on a norm of n terms (the CPU and GPU sums may differ by twice it).
template <class T>
double norm_bound(std::size_t n, double norm) {
  return test::bound(n, norm, test::eps_of<T>);
}

const Extent kShapes[] = {{1, 1, 1}, {7, 1, 33}, {33, 65, 17}, {130, 7, 3}, {257, 33, 5}};

template <class T>
class VectorOpsCuda : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VectorOpsCuda, Precisions);

}  // namespace

TYPED_TEST(VectorOpsCuda, FieldOpsTouchOnlyTheInterior) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  const T a = T(0.37), b = T(-1.25), v = T(3.5);
  std::uint64_t seed = 1;
  for (Extent e : kShapes) {
    const std::string s = e.str();
    Field<T> gx(e, 1), gy(e, 4), gr(e, 0);
    {
      DeviceTrio<T> t(e, seed += 3);
      fill(t.y, v);
      t.fetch(gx, gy, gr, "fill " + s);
      test::expect_interior(gy, "fill " + s, [&](int, int, int) { return test::ref_exact(v); });
    }
    {
      DeviceTrio<T> t(e, seed += 3);
      copy_interior(t.x, t.y);
      t.fetch(gx, gy, gr, "copy_interior " + s);
      test::expect_interior(gy, "copy_interior " + s,
                            [&](int x, int y, int z) { return test::ref_exact(t.hx(x, y, z)); });
    }
    {
      DeviceTrio<T> t(e, seed += 3);
      scale(t.y, a);
      t.fetch(gx, gy, gr, "scale " + s);
      test::expect_interior(gy, "scale " + s,
                            [&](int x, int y, int z) { return test::ref_scale(a, t.hy(x, y, z)); });
    }
    {
      DeviceTrio<T> t(e, seed += 3);
      axpy(a, t.x, t.y);
      t.fetch(gx, gy, gr, "axpy " + s);
      test::expect_interior(gy, "axpy " + s, [&](int x, int y, int z) {
        return test::ref_axpy(a, t.hx(x, y, z), t.hy(x, y, z));
      });
    }
    {
      DeviceTrio<T> t(e, seed += 3);
      axpby(a, t.x, b, t.y);
      t.fetch(gx, gy, gr, "axpby " + s);
      test::expect_interior(gy, "axpby " + s, [&](int x, int y, int z) {
        return test::ref_axpby(a, t.hx(x, y, z), b, t.hy(x, y, z));
      });
    }
    {
      DeviceTrio<T> t(e, seed += 3);
      const double nrm = axpby_norm2(a, t.x, b, t.y);
      t.fetch(gx, gy, gr, "axpby_norm2 " + s);
      test::expect_interior(gy, "axpby_norm2 " + s, [&](int x, int y, int z) {
        return test::ref_axpby(a, t.hx(x, y, z), b, t.hy(x, y, z));
      });
      const double ref = norm2(gy);  // CPU norm of the values the GPU stored
      EXPECT_LE(std::fabs(nrm - ref), 2 * norm_bound<T>(e.points(), ref)) << "axpby_norm2 " << s;
    }
    {
      DeviceTrio<T> t(e, seed += 3);
      const double nrm = sub_norm2(t.x, t.y, t.r);
      t.fetch(gx, gy, gr, "sub_norm2 " + s);
      test::expect_interior(gr, "sub_norm2 " + s, [&](int x, int y, int z) {
        return test::ref_sub(t.hx(x, y, z), t.hy(x, y, z));
      });
      const double ref = norm2(gr);
      EXPECT_LE(std::fabs(nrm - ref), 2 * norm_bound<T>(e.points(), ref)) << "sub_norm2 " << s;
    }
  }
}

TYPED_TEST(VectorOpsCuda, AliasedOperandsAreElementWise) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  const Extent e{130, 33, 9};
  DeviceTrio<T> t(e, 55);
  Field<T> gx(e, 1), gy(e, 4), gr(e, 0);
  axpy(T(0.5), t.y, t.y);                       // y = 1.5 y
  const double nrm = sub_norm2(t.x, t.y, t.x);  // r aliases b: x = x - 1.5 y
  t.fetch(gx, gy, gr, "aliased");
  test::expect_interior(gy, "axpy(a, y, y)",
                        [&](int x, int y, int z) { return test::ref_scale(1.5, t.hy(x, y, z)); });
  test::expect_interior(gx, "sub_norm2(b, y, b)", [&](int x, int y, int z) {
    return test::ref_sub(t.hx(x, y, z), gy(x, y, z));
  });
  EXPECT_LE(std::fabs(nrm - norm2(gx)), 2 * norm_bound<T>(e.points(), norm2(gx)));
}

TYPED_TEST(VectorOpsCuda, FlatArraysStopAtTheirEnd) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  const T guard = T(-777.0), a = T(1.75), b = T(0.5);
  for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(33), std::size_t(1023),
                        std::size_t(4097), std::size_t((1 << 20) + 1), std::size_t((1 << 22) + 3)})
    for (int offset : {0, 1}) {  // 1: not 16-byte aligned, the scalar kernels
      const std::string what = "n=" + std::to_string(n) + " offset " + std::to_string(offset);
      std::mt19937_64 rng(n + offset);
      std::uniform_real_distribution<double> d(-1, 1);
      const std::size_t len = n + offset + 9;
      std::vector<T> xs(len, guard), ys(len, guard);
      for (std::size_t i = 0; i < n; ++i) xs[offset + i] = T(d(rng)), ys[offset + i] = T(d(rng));
      Field<T> dx({int(len), 1, 1}, 0, Memory::device), dy({int(len), 1, 1}, 0, Memory::device);
      dx.load_interior(xs), dy.load_interior(ys);
      T* x = dx.origin() + offset;
      T* y = dy.origin() + offset;
      const double nrm = axpby_norm2(a, x, b, y, n, Memory::device);
      std::vector<T> got(len);
      dy.store_interior(got);
      const double eps = std::numeric_limits<T>::epsilon();
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (!test::within(got[offset + i], test::ref_axpby(a, xs[offset + i], b, ys[offset + i])))
          ++bad;
      EXPECT_EQ(bad, 0u) << what;
      for (int i = 0; i < offset; ++i) EXPECT_EQ(got[std::size_t(i)], guard) << what;
      for (std::size_t i = offset + n; i < len; ++i)
        ASSERT_EQ(got[i], guard) << what << " at " << i;
      const double ref = norm2(got.data() + offset, n, Memory::host);
      EXPECT_LE(std::fabs(nrm - ref), 2 * norm_bound<T>(n, ref)) << what;
      // The plain operations, chained: y = 2x - (x + 0.5) = x - 0.5, then copied to x.
      fill(y, n, T(2), Memory::device);
      scale(y, n, T(0.25), Memory::device);
      axpy(T(1), x, y, n, Memory::device);
      axpby(T(2), x, T(-1), y, n, Memory::device);
      copy(y, x, n, Memory::device);
      std::vector<T> gx(len);
      dx.store_interior(gx);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_NEAR(double(gx[offset + i]), double(xs[offset + i]) - 0.5,
                    8 * eps * (std::fabs(xs[offset + i]) + 1))
            << what << " at " << i;
      for (int i = 0; i < offset; ++i) EXPECT_EQ(gx[std::size_t(i)], guard) << what;
      for (std::size_t i = offset + n; i < len; ++i) ASSERT_EQ(gx[i], guard) << what << " at " << i;
    }
}

TYPED_TEST(VectorOpsCuda, FusedNormsAreBitwiseIdenticalRunToRun) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  const Extent e{257, 129, 65};
  Field<T> hx(e), hy(e);
  test::fill_random(hx, 1);
  test::fill_random(hy, 2);
  Field<T> x(e, kDefaultGhost, Memory::device), y1(e, kDefaultGhost, Memory::device),
      y2(e, kDefaultGhost, Memory::device), r(e, kDefaultGhost, Memory::device);
  copy(hx, x), copy(hy, y1), copy(hy, y2);
  const double n1 = axpby_norm2(T(0.3), x, T(0.9), y1);
  const double n2 = axpby_norm2(T(0.3), x, T(0.9), y2);
  EXPECT_TRUE(test::same_bits(n1, n2)) << n1 << " vs " << n2;
  const double s1 = sub_norm2(x, y1, r), s2 = sub_norm2(x, y2, r);
  EXPECT_TRUE(test::same_bits(s1, s2)) << s1 << " vs " << s2;
  Field<T> g1(e), g2(e);
  copy(y1, g1), copy(y2, g2);
  EXPECT_EQ(std::memcmp(g1.data(), g2.data(), g1.layout().bytes()), 0);
}
