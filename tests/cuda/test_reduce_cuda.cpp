// GPU reductions through the public API: against long-double references and the CPU backend
// (within the documented bound; extremes exactly) on awkward sizes, misaligned arrays (the
// scalar path), odd field shapes with NaN ghosts; NaN/Inf positions; bitwise run-to-run
// determinism; and the 10^8-element cancellation test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

double bound(std::size_t n, long double abs_sum, double eps) {
  return std::log2(std::max(double(n), 2.0)) * eps * double(abs_sum);
}

struct RefSum {  // long-double Neumaier
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
  for (T& x : v) x = T(d(rng) * std::ldexp(1.0, int(rng() % 9) - 4));
  return v;
}

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

template <class T>
std::vector<T> to_host(const Field<T>& f) {
  std::vector<T> v(f.extent().points());
  f.store_interior(v);
  return v;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// GPU results for values v (given as device pointer p, n values) against the long-double
// reference and the CPU backend on the same host values.
template <class T>
void check_flat(const std::vector<T>& v, const T* p, std::size_t n, const std::string& what) {
  const T* h = v.data() + (v.size() - n);  // the host copy of the same n values
  RefSum s, q;
  for (std::size_t i = 0; i < n; ++i) s.add(h[i]), q.add((long double)h[i] * h[i]);
  const double eps = eps_of<T>;
  const double gs = sum(p, n, Memory::device), gd = dot(p, p, n, Memory::device),
               gn = norm2(p, n, Memory::device);
  EXPECT_LE(std::fabs(gs - double(s.value())), bound(n, s.abs, eps)) << what << " sum";
  EXPECT_LE(std::fabs(gd - double(q.value())), bound(n, q.abs, eps)) << what << " dot";
  const double ref_norm = std::sqrt(double(q.value()));
  EXPECT_LE(std::fabs(gn - ref_norm), bound(n, ref_norm, eps)) << what << " norm2";
  EXPECT_LE(std::fabs(gs - sum(h, n, Memory::host)), 2 * bound(n, s.abs, eps)) << what;
  EXPECT_LE(std::fabs(gn - norm2(h, n, Memory::host)), 2 * bound(n, ref_norm, eps)) << what;
  EXPECT_TRUE(same_bits(max_abs(p, n, Memory::device), max_abs(h, n, Memory::host))) << what;
  EXPECT_TRUE(same_bits(strata::min(p, n, Memory::device), strata::min(h, n, Memory::host)))
      << what;
  EXPECT_TRUE(same_bits(strata::max(p, n, Memory::device), strata::max(h, n, Memory::host)))
      << what;
  const FiniteReport<T> r = check_finite(p, n, Memory::device);
  EXPECT_TRUE(r.all_finite) << what;
  EXPECT_EQ(r.count, 0u) << what;
}

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
  std::vector<std::size_t> sizes = {1, 2, 31, 33};
  for (int k : {5, 7, 10, 12, 16, 20, 24})
    for (std::ptrdiff_t d : {-1, 0, 1}) sizes.push_back(std::size_t((std::ptrdiff_t(1) << k) + d));
  std::uint64_t seed = 21;
  for (std::size_t n : sizes) {
    const std::vector<T> v = random_values<T>(n, ++seed);
    DeviceArray<T> dv(v);
    check_flat(v, dv.data(), n, "n=" + std::to_string(n));
    // Offset by one element: not 16-byte aligned, so the scalar kernels run.
    if (n > 1) check_flat(v, dv.data() + 1, n - 1, "misaligned n=" + std::to_string(n - 1));
  }
}

TYPED_TEST(ReduceCuda, EmptyDeviceArraysHaveDefinedResults) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  using T = TypeParam;
  const T* none = nullptr;
  EXPECT_EQ(sum(none, 0, Memory::device), 0.0);
  EXPECT_EQ(dot(none, none, 0, Memory::device), 0.0);
  EXPECT_EQ(norm2(none, 0, Memory::device), 0.0);
  EXPECT_EQ(max_abs(none, 0, Memory::device), T(0));
  EXPECT_EQ(strata::min(none, 0, Memory::device), std::numeric_limits<T>::infinity());
  EXPECT_EQ(strata::max(none, 0, Memory::device), -std::numeric_limits<T>::infinity());
  EXPECT_TRUE(check_finite(none, 0, Memory::device).all_finite);
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
      fill_outside(h, std::numeric_limits<T>::quiet_NaN());  // a ghost read shows as NaN
      fill_outside(g, std::numeric_limits<T>::quiet_NaN());
      const Field<T> d = on_device(h), dg = on_device(g);
      const std::string what = e.str() + " ghost " + std::to_string(ghost);
      const std::size_t n = e.points();
      RefSum s, q, x;
      const std::vector<T> v = to_host(h), w = to_host(g);
      for (std::size_t i = 0; i < n; ++i)
        s.add(v[i]), q.add((long double)v[i] * v[i]), x.add((long double)v[i] * w[i]);
      const double eps = eps_of<T>;
      EXPECT_LE(std::fabs(sum(d) - double(s.value())), bound(n, s.abs, eps)) << what;
      EXPECT_LE(std::fabs(sum(d) - sum(h)), 2 * bound(n, s.abs, eps)) << what;
      EXPECT_LE(std::fabs(dot(d, dg) - double(x.value())), bound(n, x.abs, eps)) << what;
      EXPECT_LE(std::fabs(dot(d, d) - double(q.value())), bound(n, q.abs, eps)) << what;
      const double ref_norm = std::sqrt(double(q.value()));
      EXPECT_LE(std::fabs(norm2(d) - ref_norm), bound(n, ref_norm, eps)) << what;
      EXPECT_TRUE(same_bits(max_abs(d), max_abs(h))) << what;
      EXPECT_TRUE(same_bits(strata::min(d), strata::min(h))) << what;
      EXPECT_TRUE(same_bits(strata::max(d), strata::max(h))) << what;
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
      EXPECT_FALSE(r.all_finite) << what;
      EXPECT_EQ(r.count, 1u) << what;
      EXPECT_EQ(r.index, pos) << what;
      EXPECT_EQ(r.x, x) << what;
      EXPECT_EQ(r.y, y) << what;
      EXPECT_EQ(r.z, z) << what;
      if (std::isnan(bad)) {
        EXPECT_TRUE(std::isnan(r.value)) << what;
        EXPECT_TRUE(std::isnan(sum(d))) << what;
        EXPECT_TRUE(std::isnan(norm2(d))) << what;
        EXPECT_TRUE(std::isnan(max_abs(d))) << what;
        EXPECT_TRUE(std::isnan(strata::min(d))) << what;
        EXPECT_TRUE(std::isnan(strata::max(d))) << what;
      } else {
        EXPECT_EQ(r.value, bad) << what;
        EXPECT_EQ(sum(d), double(bad)) << what;
        EXPECT_EQ(max_abs(d), inf) << what;
        EXPECT_EQ(bad > 0 ? strata::max(d) : strata::min(d), bad) << what;
      }
      // Flat, and large enough that many blocks take part.
      std::vector<T> v = random_values<T>((1 << 22) + 3, 4);
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
  const std::vector<T> v = random_values<T>((std::size_t(1) << 24) + 5, 99);
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
      EXPECT_TRUE(same_bits(s1, s2)) << s1 << " vs " << s2;
      EXPECT_TRUE(same_bits(d1, d2)) << d1 << " vs " << d2;
      EXPECT_TRUE(same_bits(n1, n2)) << n1 << " vs " << n2;
    }
  }
  Field<T> h({257, 129, 65}, 4);
  test::fill_random(h, 5);
  const Field<T> d = on_device(h);
  const double f1 = sum(d);
  for (int rep = 0; rep < 3; ++rep) EXPECT_TRUE(same_bits(f1, sum(d)));
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
template <class T>
std::vector<T> cancelling_values(std::size_t n) {
  std::vector<T> v(n);
  const std::size_t half = n / 2;
  for (std::size_t i = 0; i < half; ++i) {
    std::uint64_t h = std::uint64_t(i) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    const std::uint64_t h2 = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    const double u = double(h >> 11) * 0x1p-53 * 2.0 - 1.0;
    const double w = double(h2 >> 11) * 0x1p-53;
    v[i] = T(std::ldexp(u, int(h % 24)));
    v[half + i] = T(-double(v[i]) + w);
  }
  if (n % 2) v[n - 1] = T(0.5);
  return v;
}

template <class T>
void check_cancellation(std::size_t n) {
  const std::vector<T> v = cancelling_values<T>(n);
  RefSum ref;
  for (T x : v) ref.add(x);
  DeviceArray<T> dv(v);
  const double got = sum(dv.data(), n, Memory::device);
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

TEST(ReduceCuda, HundredMillionValuesWithCancellation) {
  if (!strata::cuda_available()) GTEST_SKIP() << strata::cuda_unavailable_reason();
  const std::size_t n = std::getenv("STRATA_TEST_QUICK") ? 10'000'000 : 100'000'000;
  check_cancellation<double>(n);
  check_cancellation<float>(n);
}
