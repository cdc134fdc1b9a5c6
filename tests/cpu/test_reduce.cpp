// CPU reductions against long-double references: awkward sizes (0, 1, 31, 33, 2^k +- 1),
// odd field shapes with NaN ghosts (which must never be read), NaN/Inf positions, thread
// count independence, and the 10^8-element cancellation test of the accuracy bound.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

// Checks every reduction of `v` (the same values as the field, when given) against the
// references. `what` names the case in failure messages.
template <class T>
void check_all(const std::vector<T>& v, double got_sum, double got_dot, double got_norm,
               T got_max_abs, T got_min, T got_max, const std::string& what) {
  const std::size_t n = v.size();
  test::RefSum s, d;
  T ma = 0, lo = std::numeric_limits<T>::infinity(), hi = -lo;
  for (T x : v) {
    s.add(x);
    d.add((long double)x * (long double)x);  // dot(v, v)
    ma = std::max(ma, std::fabs(x));
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  const double eps = test::eps_of<T>;
  EXPECT_LE(std::fabs(got_sum - double(s.value())), test::bound(n, s.abs, eps)) << what << " sum";
  EXPECT_LE(std::fabs(got_dot - double(d.value())), test::bound(n, d.abs, eps)) << what << " dot";
  const double ref_norm = std::sqrt(double(d.value()));
  EXPECT_LE(std::fabs(got_norm - ref_norm), test::bound(n, ref_norm, eps) + 1e-300)
      << what << " norm2";
  EXPECT_EQ(got_max_abs, ma) << what << " max_abs";
  EXPECT_EQ(got_min, lo) << what << " min";
  EXPECT_EQ(got_max, hi) << what << " max";
}

template <class T>
class ReduceCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ReduceCpu, Precisions);

}  // namespace

TYPED_TEST(ReduceCpu, FlatArraysOfAwkwardSizes) {
  using T = TypeParam;
  std::uint64_t seed = 11;
  for (std::size_t n : test::awkward_sizes(20)) {
    const std::vector<T> v = test::random_values<T>(n, ++seed);
    const T* p = v.data();
    check_all(v, sum(p, n, Memory::host), dot(p, p, n, Memory::host), norm2(p, n, Memory::host),
              max_abs(p, n, Memory::host), strata::min(p, n, Memory::host),
              strata::max(p, n, Memory::host), "n=" + std::to_string(n));
    EXPECT_TRUE(check_finite(p, n, Memory::host).all_finite) << n;
  }
}

TYPED_TEST(ReduceCpu, EmptyArraysHaveDefinedResults) {
  test::expect_empty_results<TypeParam>(Memory::host);
}

TYPED_TEST(ReduceCpu, FieldsOfOddShapesNeverReadGhostsOrPadding) {
  using T = TypeParam;
  std::uint64_t seed = 101;
  for (Extent e : {Extent{1, 1, 1}, Extent{7, 1, 33}, Extent{33, 65, 17}, Extent{130, 7, 3}})
    for (int ghost : {0, 1, 4}) {
      Field<T> f(e, ghost), g(e, ghost + 1);  // g: a different layout for dot
      test::fill_random(f, ++seed);
      test::fill_random(g, ++seed);
      test::fill_outside(f, std::numeric_limits<T>::quiet_NaN());
      test::fill_outside(g, std::numeric_limits<T>::quiet_NaN());
      const std::vector<T> v = test::interior_values(f), w = test::interior_values(g);
      const std::string what = e.str() + " ghost " + std::to_string(ghost);
      check_all(v, sum(f), dot(f, f), norm2(f), max_abs(f), strata::min(f), strata::max(f), what);
      test::RefSum d;
      for (std::size_t i = 0; i < v.size(); ++i) d.add((long double)v[i] * (long double)w[i]);
      EXPECT_LE(std::fabs(dot(f, g) - double(d.value())),
                test::bound(v.size(), d.abs, test::eps_of<T>))
          << what;
      EXPECT_TRUE(check_finite(f).all_finite) << what;
    }
}

TYPED_TEST(ReduceCpu, FindsTheFirstNonFiniteValue) {
  using T = TypeParam;
  const Extent e{33, 65, 17};
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  std::mt19937_64 rng(7);
  const std::size_t n = e.points();
  const std::size_t random_pos = 1 + rng() % (n - 2);
  for (T bad : {nan, inf, -inf})
    for (std::size_t pos : {std::size_t(0), n - 1, random_pos}) {
      Field<T> f(e, 2);
      test::fill_random(f, 5);
      const int x = int(pos % 33), y = int(pos / 33 % 65), z = int(pos / 33 / 65);
      f(x, y, z) = bad;
      const std::string what =
          "value " + std::to_string(double(bad)) + " at " + std::to_string(pos);
      const FiniteReport<T> r = check_finite(f);
      test::expect_one_non_finite(r, pos, x, y, z, what);
      EXPECT_TRUE(test::same_bits(r.value, bad)) << what << ": " << r.value;
      test::expect_reductions_carry(f, bad, what);
      // The same values as a flat array: the flat index, no coordinates.
      const std::vector<T> v = test::interior_values(f);
      const FiniteReport<T> rf = check_finite(v.data(), v.size(), Memory::host);
      EXPECT_EQ(rf.index, pos) << what;
      EXPECT_EQ(rf.x, -1) << what;
    }
  // Two bad values: the count is 2 and the first one (in C order) is reported.
  Field<T> f(e, 1);
  test::fill_random(f, 9);
  f(3, 60, 16) = inf;
  f(30, 2, 1) = nan;
  const FiniteReport<T> r = check_finite(f);
  EXPECT_EQ(r.count, 2u);
  EXPECT_EQ(r.x, 30);
  EXPECT_EQ(r.y, 2);
  EXPECT_EQ(r.z, 1);
  EXPECT_TRUE(std::isnan(r.value));
}

TYPED_TEST(ReduceCpu, ResultsDoNotDependOnTheThreadCount) {
  using T = TypeParam;
  const std::vector<T> v = test::random_values<T>((1 << 20) + 7, 3);
  const int threads = omp_get_max_threads();
  const double a = sum(v.data(), v.size(), Memory::host);
  const double b = norm2(v.data(), v.size(), Memory::host);
  omp_set_num_threads(1);
  const double a1 = sum(v.data(), v.size(), Memory::host);
  const double b1 = norm2(v.data(), v.size(), Memory::host);
  omp_set_num_threads(threads + 3);
  const double a3 = sum(v.data(), v.size(), Memory::host);
  omp_set_num_threads(threads);
  EXPECT_EQ(std::memcmp(&a, &a1, sizeof a), 0);
  EXPECT_EQ(std::memcmp(&a, &a3, sizeof a), 0);
  EXPECT_EQ(std::memcmp(&b, &b1, sizeof b), 0);
}

TEST(ReduceCpu, RejectsBadInput) {
  Field<float> empty, a({4, 4, 4}), b({4, 4, 5});
  EXPECT_THROW(sum(empty), Error);
  EXPECT_THROW(dot(a, b), Error);
  EXPECT_THROW(sum(static_cast<const float*>(nullptr), 3, Memory::host), Error);
  if (!cuda_available()) {
    const float x[2] = {1, 2};
    EXPECT_THROW(sum(x, 2, Memory::device), Error);
  }
}

// 10^8 values with heavy cancellation (the exact sum is tiny next to sum |x|): the
// documented (pairwise) bound and, for double data, the compensated one.
TEST(ReduceCpu, HundredMillionValuesWithCancellation) {
  const auto host_sum = [](const auto& v) { return sum(v.data(), v.size(), Memory::host); };
  test::check_cancellation<double>(100'000'000, host_sum);
  test::check_cancellation<float>(100'000'000, host_sum);
}
