// References for the reduction tests, shared by the CPU and GPU suites: a long-double sum,
// the documented accuracy bound, the inputs both suites draw (random values, awkward sizes,
// the cancellation set, NaN ghosts) and the checks whose expectations do not depend on the
// backend. Each suite keeps only what is its own (device copies, thread counts, alignment).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "strata/field.hpp"
#include "strata/reduce.hpp"

namespace strata::test {

template <class T>
inline constexpr double eps_of = std::numeric_limits<T>::epsilon();

// The documented bound: log2(max(n, 2)) * eps(T) * sum |terms|.
inline double bound(std::size_t n, long double abs_sum, double eps) {
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
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Seeded values in [-1, 1) times 2^-4 .. 2^4: varied magnitudes.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& x : v) x = T(d(rng) * std::ldexp(1.0, int(rng() % 9) - 4));
  return v;
}

// 1, 2, 31, 33 and 2^k - 1, 2^k, 2^k + 1 for k in {5, 7, 10, 12, 16, 20, 24} up to
// largest_log2: sizes that are not multiples of a warp, a block or a vector width.
inline std::vector<std::size_t> awkward_sizes(int largest_log2) {
  std::vector<std::size_t> n = {1, 2, 31, 33};
  for (int k : {5, 7, 10, 12, 16, 20, 24})
    if (k <= largest_log2)
      for (std::ptrdiff_t d : {-1, 0, 1}) n.push_back(std::size_t((std::ptrdiff_t(1) << k) + d));
  return n;
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

// The interior of a host field as a flat array in C order.
template <class T>
std::vector<T> interior_values(const Field<T>& f) {
  std::vector<T> v(f.extent().points());
  f.store_interior(v);
  return v;
}

// The results every backend must give for an empty flat array (data may be null).
template <class T>
void expect_empty_results(Memory memory) {
  const T* none = nullptr;
  EXPECT_EQ(sum(none, 0, memory), 0.0);
  EXPECT_EQ(dot(none, none, 0, memory), 0.0);
  EXPECT_EQ(norm2(none, 0, memory), 0.0);
  EXPECT_EQ(max_abs(none, 0, memory), T(0));
  EXPECT_EQ(strata::min(none, 0, memory), std::numeric_limits<T>::infinity());
  EXPECT_EQ(strata::max(none, 0, memory), -std::numeric_limits<T>::infinity());
  const FiniteReport<T> r = check_finite(none, 0, memory);
  EXPECT_TRUE(r.all_finite);
  EXPECT_EQ(r.count, 0u);
}

// A report of exactly one non-finite value, at linear index `index` = interior (x, y, z).
template <class T>
void expect_one_non_finite(const FiniteReport<T>& r, std::size_t index, int x, int y, int z,
                           const std::string& what) {
  EXPECT_FALSE(r.all_finite) << what;
  EXPECT_EQ(r.count, 1u) << what;
  EXPECT_EQ(r.index, index) << what;
  EXPECT_EQ(r.x, x) << what;
  EXPECT_EQ(r.y, y) << what;
  EXPECT_EQ(r.z, z) << what;
}

// The reductions of a field whose only non-finite value is `bad`: a NaN reaches every
// result; +-inf is the sum, makes max_abs inf and is the max (min).
template <class T>
void expect_reductions_carry(const Field<T>& f, T bad, const std::string& what) {
  if (std::isnan(bad)) {
    EXPECT_TRUE(std::isnan(sum(f))) << what;
    EXPECT_TRUE(std::isnan(norm2(f))) << what;
    EXPECT_TRUE(std::isnan(max_abs(f))) << what;
    EXPECT_TRUE(std::isnan(strata::min(f))) << what;
    EXPECT_TRUE(std::isnan(strata::max(f))) << what;
  } else {
    EXPECT_EQ(sum(f), double(bad)) << what;
    EXPECT_EQ(max_abs(f), std::numeric_limits<T>::infinity()) << what;
    EXPECT_EQ(bad > 0 ? strata::max(f) : strata::min(f), bad) << what;
  }
}

// n values with heavy cancellation: large values of many magnitudes in the first half,
// their negations plus a small offset in the second half (so they cancel only globally).
// The exact sum is tiny next to sum |x|.
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

// sum_of(v) (one backend's sum of a host vector) on the n cancelling values: within the
// documented (pairwise) bound and, for double data, the compensated one,
// |err| <= 2 eps |S| + n eps^2 sum|x|. The error is recorded as a test property.
template <class T, class SumOf>
void check_cancellation(std::size_t n, SumOf&& sum_of) {
  const std::vector<T> v = cancelling_values<T>(n);
  RefSum ref;
  for (T x : v) ref.add(x);
  const double got = sum_of(v);
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

}  // namespace strata::test
