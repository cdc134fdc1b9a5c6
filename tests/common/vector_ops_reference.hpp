// References for the vector-operation tests, shared by the CPU and GPU suites: each
// operation's exact per-element result (in double, from the T inputs) with the magnitude
// its rounding scales with, and the checks of a result against them.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "common/test_util.hpp"
#include "strata/field.hpp"

namespace strata::test {

// One element's expected result: passes when |got - value| <= 2 eps(T) * magnitude.
struct Want {
  double value = 0, magnitude = 0;
};

inline Want ref_exact(double v) { return {v, 0.0}; }  // fill, copy
inline Want ref_scale(double a, double y) {
  const double w = a * y;
  return {w, std::fabs(w)};
}
inline Want ref_axpy(double a, double x, double y) {
  const double ax = a * x;
  return {ax + y, std::fabs(ax) + std::fabs(y)};
}
inline Want ref_axpby(double a, double x, double b, double y) {
  const double ax = a * x, by = b * y;
  return {ax + by, std::fabs(ax) + std::fabs(by)};
}
inline Want ref_sub(double b, double y) {
  const double d = b - y;
  return {d, std::fabs(d)};
}

template <class T>
bool within(T got, const Want& want) {
  const double eps = std::numeric_limits<T>::epsilon();
  return std::fabs(double(got) - want.value) <= 2 * eps * want.magnitude;
}

// Checks every interior point of out against want(x, y, z); reports the first three misses.
template <class T>
void expect_interior(const Field<T>& out, const std::string& what,
                     const std::function<Want(int, int, int)>& want) {
  const Extent n = out.extent();
  std::size_t bad = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const Want w = want(x, y, z);
        if (!within(out(x, y, z), w) && ++bad <= 3)
          ADD_FAILURE() << what << " at (" << x << "," << y << "," << z << "): " << out(x, y, z)
                        << " expected " << w.value;
      }
  EXPECT_EQ(bad, 0u) << what;
}

// An operand of the tests: ghosts and padding poisoned, a random interior in [-2, 2).
template <class T>
void fill_operand(Field<T>& f, std::uint64_t seed) {
  poison(f);
  fill_random(f, seed, -2.0, 2.0);
}

}  // namespace strata::test
