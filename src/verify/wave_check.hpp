// The fused leapfrog update as a plain loop, for checking the GPU kernel point by point:
// out = 2u - u_prev + c2 * star(u), summed in double, with the rounding bound of each point
// (the magnitudes summed times eps(T) times the number of terms). Shared by the GPU test
// and the benchmark's pre-timing validation; the solver's own CPU backend is src/cpu/wave.cpp.
#pragma once

#include <cmath>
#include <limits>
#include <span>

#include "verify/stencil_check.hpp"
#include "strata/field.hpp"

namespace strata::cpu {

template <class T>
verify::Mismatch check_leapfrog(std::span<const double> star, const Field<T>& u, const Field<T>& up,
                                const Field<T>& c2, const Field<T>& got) {
  const Extent n = u.extent();
  const int R = int(star.size()) - 1;
  const int terms = 6 * R + 4;
  Field<T> ref(n, 0), mag(n, 0);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        double s = star[0] * double(u(x, y, z)), m = std::fabs(s);
        for (int r = 1; r <= R; ++r) {
          const double v[6] = {u(x - r, y, z), u(x + r, y, z), u(x, y - r, z),
                               u(x, y + r, z), u(x, y, z - r), u(x, y, z + r)};
          for (double w : v) s += star[r] * w, m += std::fabs(star[r] * w);
        }
        const double c = c2(x, y, z);
        ref(x, y, z) = T(2.0 * double(u(x, y, z)) - double(up(x, y, z)) + c * s);
        // The stored reference's own rounding is one more eps * |value|.
        mag(x, y, z) = T(2.0 * std::fabs(double(u(x, y, z))) + std::fabs(double(up(x, y, z))) + std::fabs(c) * m +
                         std::fabs(double(ref(x, y, z))));
      }
  return verify::compare(got, ref, mag, terms);
}

}  // namespace strata::cpu
