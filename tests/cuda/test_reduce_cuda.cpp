// GPU reductions through the public API: against long-double references and the CPU backend
// (within the documented bound; extremes exactly) on awkward sizes, misaligned arrays (the
// scalar path), odd field shapes with NaN ghosts; NaN/Inf positions; bitwise run-to-run
// determinism; and the 10^8-element cancellation test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/reduce_reference.hpp"
#include "common/test_util.hpp"
#include "strata/device.hpp"
#include "strata/reduce.hpp"

using namespace strata;

namespace {

// A flat device array, stored in a one-row device field with no ghosts (origin == data).
template <class T>
struct DeviceArray {
  Field<T> f;
  explicit DeviceArray(const std::vector<T>& v)
      : f(Extent{int(std::max<std::size_t>(v.size(), 1)), 1, 1}, 0, Memory::device) {
    if (!v.empty()) f.load_interior(v);
  }
  T* data() { return f.origin(); }
};

// GPU results for values v (given as device pointer p, n values) against the long-double
// reference and the CPU backend on the same host values.
template <class T>
void check_flat(const std::vector<T>& v, const T* p, std::size_t n, const std::string& what) {
  const T* h = v.data() + (v.size() - n);  // the host copy of the same n values
  test::RefSum s, q;
  for (std::size_t i = 0; i < n; ++i) s.add(h[i]), q.add((long double)h[i] * h[i]);
  const double eps = test::eps_of<T>;
  const double gs = sum(p, n, Memory::device), gd = dot(p, p, n, Memory::device),
               gn = norm2(p, n, Memory::device);
  EXPECT_LE(std::fabs(gs - double(s.value())), test::bound(n, s.abs, eps)) << what << " sum";
  EXPECT_LE(std::fabs(gd - double(q.value())), test::bound(n, q.abs, eps)) << what << " dot";
  const double ref_norm = std::sqrt(double(q.value()));
  EXPECT_LE(std::fabs(gn - ref_norm), test::bound(n, ref_norm, eps)) << what << " norm2";
  EXPECT_LE(std::fabs(gs - sum(h, n, Memory::host)), 2 * test::bound(n, s.abs, eps)) << what;
  EXPECT_LE(std::fabs(gn - norm2(h, n, Memory::host)), 2 * test::bound(n, ref_norm, eps)) << what;
  EXPECT_TRUE(test::same_bits(max_abs(p, n, Memory::device), max_abs(h, n, Memory::host))) << what;
  EXPECT_TRUE(test::same_bits(strata::min(p, n, Memory::device), strata::min(h, n, Memory::host)))
      << what;
  EXPECT_TRUE(test::same_bits(strata::max(p, n, Memory::device), strata::max(h, n, Memory::host)))
      << what;
  const FiniteReport<T> r = check_finite(p, n, Memory::device);
  EXPECT_TRUE(r.all_finite) << what;
  EXPECT_EQ(r.count, 0u) << what;
}

// A device copy of a host field, ghosts and padding included (same ghost width).
template <class T>
Field<T> on_device(const Field<T>& h) {
  Field<T> d(h.extent(), h.ghost(), Memory::device);
  copy(h, d);
  return d;
}

template <class T>
class ReduceCuda : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ReduceCuda, Precisions);

}  // namespace

TYPED_TEST(ReduceCuda, FlatArraysOfAwkwardSizes) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  std::uint64_t seed = 21;
  for (std::size_t n : test::awkward_sizes(24)) {
    const std::vector<T> v = test::random_values<T>(n, ++seed);
    DeviceArray<T> dv(v);
    check_flat(v, dv.data(), n, "n=" + std::to_string(n));
    // Offset by one element: not 16-byte aligned, so the scalar kernels run.
    if (n > 1) check_flat(v, dv.data() + 1, n - 1, "misaligned n=" + std::to_string(n - 1));
  }
}

TYPED_TEST(ReduceCuda, EmptyDeviceArraysHaveDefinedResults) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  test::expect_empty_results<TypeParam>(Memory::device);
}

TYPED_TEST(ReduceCuda, FieldsOfOddShapesAgreeWithTheCpu) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  std::uint64_t seed = 301;
  for (Extent e : {Extent{1, 1, 1}, Extent{7, 1, 33}, Extent{33, 65, 17}, Extent{130, 7, 3},
                   Extent{257, 129, 9}})
    for (int ghost : {0, 1, 4}) {
      Field<T> h(e, ghost), g(e, ghost + 1);
      test::fill_random(h, ++seed);
      test::fill_random(g, ++seed);
      test::fill_outside(h, std::numeric_limits<T>::quiet_NaN());  // a ghost read shows as NaN
      test::fill_outside(g, std::numeric_limits<T>::quiet_NaN());
      const Field<T> d = on_device(h), dg = on_device(g);
      const std::string what = e.str() + " ghost " + std::to_string(ghost);
      const std::size_t n = e.points();
      test::RefSum s, q, x;
      const std::vector<T> v = test::interior_values(h), w = test::interior_values(g);
      for (std::size_t i = 0; i < n; ++i)
        s.add(v[i]), q.add((long double)v[i] * v[i]), x.add((long double)v[i] * w[i]);
      const double eps = test::eps_of<T>;
      EXPECT_LE(std::fabs(sum(d) - double(s.value())), test::bound(n, s.abs, eps)) << what;
      EXPECT_LE(std::fabs(sum(d) - sum(h)), 2 * test::bound(n, s.abs, eps)) << what;
      EXPECT_LE(std::fabs(dot(d, dg) - double(x.value())), test::bound(n, x.abs, eps)) << what;
      EXPECT_LE(std::fabs(dot(d, d) - double(q.value())), test::bound(n, q.abs, eps)) << what;
      const double ref_norm = std::sqrt(double(q.value()));
      EXPECT_LE(std::fabs(norm2(d) - ref_norm), test::bound(n, ref_norm, eps)) << what;
      EXPECT_TRUE(test::same_bits(max_abs(d), max_abs(h))) << what;
      EXPECT_TRUE(test::same_bits(strata::min(d), strata::min(h))) << what;
      EXPECT_TRUE(test::same_bits(strata::max(d), strata::max(h))) << what;
      EXPECT_TRUE(check_finite(d).all_finite) << what;
    }
}

TYPED_TEST(ReduceCuda, FindsTheFirstNonFiniteValue) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  const Extent e{130, 7, 33};
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const std::size_t n = e.points();
  std::mt19937_64 rng(8);
  const std::size_t random_pos = 1 + rng() % (n - 2);
  for (T bad : {nan, inf, -inf})
    for (std::size_t pos : {std::size_t(0), n - 1, random_pos}) {
      Field<T> h(e, 3);
      test::fill_random(h, 6);
      const int x = int(pos % 130), y = int(pos / 130 % 7), z = int(pos / 130 / 7);
      h(x, y, z) = bad;
      const Field<T> d = on_device(h);
      const std::string what =
          "value " + std::to_string(double(bad)) + " at " + std::to_string(pos);
      const FiniteReport<T> r = check_finite(d);
      test::expect_one_non_finite(r, pos, x, y, z, what);
      if (std::isnan(bad))
        EXPECT_TRUE(std::isnan(r.value)) << what;
      else
        EXPECT_EQ(r.value, bad) << what;
      test::expect_reductions_carry(d, bad, what);
      // Flat, and large enough that many blocks take part.
      std::vector<T> v = test::random_values<T>((1 << 22) + 3, 4);
      const std::size_t fpos = pos == 0 ? 0 : pos == n - 1 ? v.size() - 1 : (pos * 977) % v.size();
      v[fpos] = bad;
      v[(fpos + v.size() / 2) % v.size()] = nan;  // a second one, later or earlier
      DeviceArray<T> dv(v);
      const FiniteReport<T> rf = check_finite(dv.data(), v.size(), Memory::device);
      const std::size_t first = std::min(fpos, (fpos + v.size() / 2) % v.size());
      EXPECT_EQ(rf.count, 2u) << what;
      EXPECT_EQ(rf.index, first) << what;
      EXPECT_EQ(rf.x, -1) << what;
    }
}

TYPED_TEST(ReduceCuda, BitwiseIdenticalRunToRun) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  const std::vector<T> v = test::random_values<T>((std::size_t(1) << 24) + 5, 99);
  DeviceArray<T> dv(v);
  const std::size_t n = v.size();
  for (int misaligned : {0, 1}) {
    const T* p = dv.data() + misaligned;
    const std::size_t m = n - misaligned;
    const double s1 = sum(p, m, Memory::device), d1 = dot(p, p, m, Memory::device),
                 n1 = norm2(p, m, Memory::device);
    for (int rep = 0; rep < 3; ++rep) {
      const double s2 = sum(p, m, Memory::device), d2 = dot(p, p, m, Memory::device),
                   n2 = norm2(p, m, Memory::device);
      EXPECT_TRUE(test::same_bits(s1, s2)) << s1 << " vs " << s2;
      EXPECT_TRUE(test::same_bits(d1, d2)) << d1 << " vs " << d2;
      EXPECT_TRUE(test::same_bits(n1, n2)) << n1 << " vs " << n2;
    }
  }
  Field<T> h({257, 129, 65}, 4);
  test::fill_random(h, 5);
  const Field<T> d = on_device(h);
  const double f1 = sum(d);
  for (int rep = 0; rep < 3; ++rep) EXPECT_TRUE(test::same_bits(f1, sum(d)));
}

TEST(ReduceCuda, RejectsHostPointersAsDeviceMemory) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  const std::vector<float> v(100, 1.0f);
  EXPECT_THROW(sum(v.data(), v.size(), Memory::device), Error);
  Field<float> a({4, 4, 4}, 1, Memory::device), b({4, 4, 4}, 1);
  EXPECT_THROW(dot(a, b), Error);  // one host, one device field
}

// 10^8 values with heavy cancellation (the CPU test's data): the documented bound, and for
// double data the compensated one. STRATA_TEST_QUICK (sanitizer runs) uses 10^7.
TEST(ReduceCuda, HundredMillionValuesWithCancellation) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  const std::size_t n = std::getenv("STRATA_TEST_QUICK") ? 10'000'000 : 100'000'000;
  const auto device_sum = [](const auto& v) {
    DeviceArray dv(v);
    return sum(dv.data(), v.size(), Memory::device);
  };
  test::check_cancellation<double>(n, device_sum);
  test::check_cancellation<float>(n, device_sum);
}
