// CPU reductions against long-double references: awkward sizes (0, 1, 31, 33, 2^k +- 1),
// odd field shapes with NaN ghosts (which must never be read), NaN/Inf positions, thread
// count independence, and the 10^8-element cancellation test of the accuracy bound.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/test_util.hpp"
#include "strata/device.hpp"
#include "strata/reduce.hpp"

using namespace strata;

namespace {

template <class T>
constexpr double eps_of = std::numeric_limits<T>::epsilon();

// The documented bound: log2(max(n, 2)) * eps(T) * sum |terms|.
double bound(std::size_t n, long double abs_sum, double eps) {
  return std::log2(std::max(double(n), 2.0)) * eps * double(abs_sum);
}

// Long-double Neumaier: far more accurate than anything it checks.
struct RefSum {
  long double s = 0, c = 0, abs = 0;
  void add(long double v) {
    const long double t = s + v;
    c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
    s = t;
    abs += std::fabs(v);
  }
  long double value() const { return s + c; }
};

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& x : v) x = T(d(rng) * std::ldexp(1.0, int(rng() % 9) - 4));  // varied magnitudes
  return v;
}

std::vector<std::size_t> awkward_sizes() {
  std::vector<std::size_t> n = {0, 1, 2, 31, 33};
  for (int k : {5, 7, 10, 12, 16, 20})
    for (std::ptrdiff_t d : {-1, 0, 1}) n.push_back(std::size_t((std::ptrdiff_t(1) << k) + d));
  return n;
}

// Checks every reduction of `v` (the same values as the field, when given) against the
// references. `what` names the case in failure messages.
template <class T>
void check_all(const std::vector<T>& v, double got_sum, double got_dot, double got_norm,
               T got_max_abs, T got_min, T got_max, const std::string& what) {
  const std::size_t n = v.size();
  RefSum s, d;
  T ma = 0, lo = std::numeric_limits<T>::infinity(), hi = -lo;
  for (T x : v) {
    s.add(x);
    d.add((long double)x * (long double)x);  // dot(v, v)
    ma = std::max(ma, std::fabs(x));
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  const double eps = eps_of<T>;
  EXPECT_LE(std::fabs(got_sum - double(s.value())), bound(n, s.abs, eps)) << what << " sum";
  EXPECT_LE(std::fabs(got_dot - double(d.value())), bound(n, d.abs, eps)) << what << " dot";
  const double ref_norm = std::sqrt(double(d.value()));
  EXPECT_LE(std::fabs(got_norm - ref_norm), bound(n, ref_norm, eps) + 1e-300) << what << " norm2";
  EXPECT_EQ(got_max_abs, ma) << what << " max_abs";
  EXPECT_EQ(got_min, lo) << what << " min";
  EXPECT_EQ(got_max, hi) << what << " max";
}

// Every element outside the interior (ghosts and padding) becomes `value`.
template <class T>
void fill_outside(Field<T>& f, T value) {
  const Layout& L = f.layout();
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(L.size); ++i) {
    const std::ptrdiff_t z = i / L.plane - L.ghost, y = (i % L.plane) / L.pitch - L.ghost,
                         x = i % L.pitch - L.xoff;
    if (!(x >= 0 && x < L.n.nx && y >= 0 && y < L.n.ny && z >= 0 && z < L.n.nz))
      f.data()[i] = value;
  }
}

template <class T>
std::vector<T> interior(const Field<T>& f) {
  std::vector<T> v(f.extent().points());
  f.store_interior(v);
  return v;
}

template <class T>
class ReduceCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ReduceCpu, Precisions);

}  // namespace

TYPED_TEST(ReduceCpu, FlatArraysOfAwkwardSizes) {
  using T = TypeParam;
  std::uint64_t seed = 11;
  for (std::size_t n : awkward_sizes()) {
    if (n == 0) continue;
    const std::vector<T> v = random_values<T>(n, ++seed);
    const T* p = v.data();
    check_all(v, sum(p, n, Memory::host), dot(p, p, n, Memory::host), norm2(p, n, Memory::host),
              max_abs(p, n, Memory::host), strata::min(p, n, Memory::host),
              strata::max(p, n, Memory::host), "n=" + std::to_string(n));
    EXPECT_TRUE(check_finite(p, n, Memory::host).all_finite) << n;
  }
}

TYPED_TEST(ReduceCpu, EmptyArraysHaveDefinedResults) {
  using T = TypeParam;
  const T* none = nullptr;
  EXPECT_EQ(sum(none, 0, Memory::host), 0.0);
  EXPECT_EQ(dot(none, none, 0, Memory::host), 0.0);
  EXPECT_EQ(norm2(none, 0, Memory::host), 0.0);
  EXPECT_EQ(max_abs(none, 0, Memory::host), T(0));
  EXPECT_EQ(strata::min(none, 0, Memory::host), std::numeric_limits<T>::infinity());
  EXPECT_EQ(strata::max(none, 0, Memory::host), -std::numeric_limits<T>::infinity());
  const FiniteReport<T> r = check_finite(none, 0, Memory::host);
  EXPECT_TRUE(r.all_finite);
  EXPECT_EQ(r.count, 0u);
}

TYPED_TEST(ReduceCpu, FieldsOfOddShapesNeverReadGhostsOrPadding) {
  using T = TypeParam;
  std::uint64_t seed = 101;
  for (Extent e : {Extent{1, 1, 1}, Extent{7, 1, 33}, Extent{33, 65, 17}, Extent{130, 7, 3}})
    for (int ghost : {0, 1, 4}) {
      Field<T> f(e, ghost), g(e, ghost + 1);  // g: a different layout for dot
      test::fill_random(f, ++seed);
      test::fill_random(g, ++seed);
      fill_outside(f, std::numeric_limits<T>::quiet_NaN());
      fill_outside(g, std::numeric_limits<T>::quiet_NaN());
      const std::vector<T> v = interior(f), w = interior(g);
      const std::string what = e.str() + " ghost " + std::to_string(ghost);
      check_all(v, sum(f), dot(f, f), norm2(f), max_abs(f), strata::min(f), strata::max(f), what);
      RefSum d;
      for (std::size_t i = 0; i < v.size(); ++i) d.add((long double)v[i] * (long double)w[i]);
      EXPECT_LE(std::fabs(dot(f, g) - double(d.value())), bound(v.size(), d.abs, eps_of<T>))
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
      EXPECT_FALSE(r.all_finite) << what;
      EXPECT_EQ(r.count, 1u) << what;
      EXPECT_EQ(r.index, pos) << what;
      EXPECT_EQ(r.x, x) << what;
      EXPECT_EQ(r.y, y) << what;
      EXPECT_EQ(r.z, z) << what;
      EXPECT_EQ(std::memcmp(&r.value, &bad, sizeof(T)), 0) << what << ": " << r.value;
      if (std::isnan(bad)) {
        EXPECT_TRUE(std::isnan(sum(f))) << what;
        EXPECT_TRUE(std::isnan(max_abs(f))) << what;
        EXPECT_TRUE(std::isnan(strata::min(f))) << what;
        EXPECT_TRUE(std::isnan(strata::max(f))) << what;
      } else {
        EXPECT_EQ(sum(f), double(bad)) << what;
        EXPECT_EQ(max_abs(f), inf) << what;
        EXPECT_EQ(bad > 0 ? strata::max(f) : strata::min(f), bad) << what;
      }
      // The same values as a flat array: the flat index, no coordinates.
      const std::vector<T> v = interior(f);
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
  const std::vector<T> v = random_values<T>((1 << 20) + 7, 3);
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

// 10^8 values with heavy cancellation: large values of many magnitudes in the first half,
// their negations plus a small offset in the second half (so they cancel only globally).
// The exact sum is tiny next to sum |x|. Checks the documented (pairwise) bound and, for
// double data, the compensated one: |err| <= 2 eps |S| + n eps^2 sum|x|.
template <class T>
std::vector<T> cancelling_values(std::size_t n) {
  std::vector<T> v(n);
  const std::size_t half = n / 2;
#pragma omp parallel for
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(half); ++i) {
    std::uint64_t h = std::uint64_t(i) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    const double u = double(h >> 11) * 0x1p-53 * 2.0 - 1.0;  // [-1, 1)
    const std::uint64_t h2 = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    const double w = double(h2 >> 11) * 0x1p-53;        // [0, 1), 53 bits
    v[std::size_t(i)] = T(std::ldexp(u, int(h % 24)));  // up to 2^23
    v[half + std::size_t(i)] = T(-double(v[std::size_t(i)]) + w);
  }
  if (n % 2) v[n - 1] = T(0.5);
  return v;
}

template <class T>
void check_cancellation(std::size_t n) {
  const std::vector<T> v = cancelling_values<T>(n);
  RefSum ref;
  for (T x : v) ref.add(x);
  const double got = sum(v.data(), n, Memory::host);
  const double err = std::fabs(got - double(ref.value()));
  const double eps = eps_of<T>;
  char note[96];
  std::snprintf(note, sizeof note, "%.3e (bound %.3e, sum %.6e)", err, bound(n, ref.abs, eps),
                double(ref.value()));
  ::testing::Test::RecordProperty(sizeof(T) == 4 ? "error_f32" : "error_f64", note);
  EXPECT_LE(err, bound(n, ref.abs, eps)) << "exact " << double(ref.value()) << " got " << got;
  if (sizeof(T) == 8) {
    EXPECT_LE(err,
              2 * eps * std::fabs(double(ref.value())) + double(n) * eps * eps * double(ref.abs))
        << "exact " << double(ref.value()) << " got " << got;
  }
}

TEST(ReduceCpu, HundredMillionValuesWithCancellation) {
  check_cancellation<double>(100'000'000);
  check_cancellation<float>(100'000'000);
}
