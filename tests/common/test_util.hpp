// Test helpers shared by the CPU and GPU suites: seeded random data and poisoned outputs.
// Comparison against the reference lives in verify/stencil_check.hpp (shared with bench, demo).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "strata/field.hpp"
#include "strata/stencil.hpp"

namespace strata::test {

// Random interior in [lo, hi); ghosts and padding left as they are.
template <class T>
void fill_random(Field<T>& f, std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  const Extent n = f.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) f(x, y, z) = T(d(rng));
}

// Distinct, non-uniform coefficients (never all equal: a swapped index must show).
inline std::vector<double> random_coeffs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(0.25, 1.0);
  std::vector<double> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = d(rng) * ((rng() & 1) ? 1.0 : -1.0) * (1.0 + 0.37 * double(i));
  return c;
}

inline Stencil random_stencil(StencilKind kind, int radius, std::uint64_t seed) {
  switch (kind) {
    case StencilKind::star: return Stencil::star(radius, random_coeffs(radius + 1, seed));
    case StencilKind::sym27: {
      auto c = random_coeffs(4, seed);
      return Stencil::sym27(c[0], c[1], c[2], c[3]);
    }
    case StencilKind::box27: return Stencil::box27(random_coeffs(27, seed));
  }
  return Stencil::laplacian7();
}

// Sets every byte outside the interior (ghosts and padding) to a recognisable pattern and
// every interior point to NaN, so unwritten points and stray writes both show.
template <class T>
void poison(Field<T>& f) {
  std::memset(static_cast<void*>(f.data()), 0xA5, f.layout().bytes());
  const Extent n = f.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) f(x, y, z) = std::numeric_limits<T>::quiet_NaN();
}

// Number of elements outside the interior whose bytes differ between a and b (same layout).
template <class T>
std::size_t outside_interior_diffs(const Field<T>& a, const Field<T>& b) {
  const Layout& L = a.layout();
  const Extent n = L.n;
  std::size_t diffs = 0;
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(L.size); ++i) {
    const std::ptrdiff_t z = i / L.plane - L.ghost, y = (i % L.plane) / L.pitch - L.ghost,
                         x = i % L.pitch - L.xoff;
    const bool interior = x >= 0 && x < n.nx && y >= 0 && y < n.ny && z >= 0 && z < n.nz;
    if (!interior && std::memcmp(a.data() + i, b.data() + i, sizeof(T)) != 0) ++diffs;
  }
  return diffs;
}

// The interior points whose bits differ between want and got (host fields of one extent;
// ghosts ignored): empty when none, else their count and the first three, for a message.
template <class T>
std::string interior_bit_diffs(const Field<T>& want, const Field<T>& got) {
  const Extent n = want.extent();
  std::ostringstream first;
  long count = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        if (std::memcmp(&want(x, y, z), &got(x, y, z), sizeof(T)) != 0 && ++count <= 3)
          first << " (" << x << ", " << y << ", " << z << "): " << got(x, y, z) << " not " << want(x, y, z) << ";";
  if (count == 0) return {};
  return std::to_string(count) + " points differ, first at" + first.str();
}

}  // namespace strata::test
