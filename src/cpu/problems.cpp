// The generated Poisson problems on the host (declared in backend/problems_api.inc): the loops
// src/cuda/poisson/problems.cu's kernels match bit for bit, each product formed in the order x,
// y, z and rounded as backend/problem_values.hpp says. Nothing runs on a stream: it is ignored.
#include <algorithm>
#include <cmath>

#include "backend/problem_values.hpp"
#include "backend/problems.hpp"

namespace strata::cpu {

namespace {

double product(const double* tx, const double* ty, const double* tz, int x, int y, int z) {
  double v = 1;  // this order, here and in the kernels
  v *= tx[x];
  v *= ty[y];
  v *= tz[z];
  return v;
}

}  // namespace

template <class T>
void fill_product(Tag, const double* tx, const double* ty, const double* tz, double scale,
                  double offset, Field<T>& f, void*) {
  const Extent n = f.extent();
#pragma omp parallel for
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        f(x, y, z) = T(poisson::scaled_value(scale, product(tx, ty, tz, x, y, z), offset));
}

template <class T>
void product_error(Tag, const double* tx, const double* ty, const double* tz, double offset,
                   double shift_u, double shift_e, const Field<T>& u, double out[3], void*) {
  const Extent n = u.extent();
  double mx = 0, d2 = 0, e2 = 0;
#pragma omp parallel for reduction(max : mx) reduction(+ : d2, e2)
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const double e = offset + product(tx, ty, tz, x, y, z) - shift_e;
        const double d = (double(u(x, y, z)) - shift_u) - e;
        mx = std::max(mx, std::fabs(d));
        d2 += d * d;
        e2 += e * e;
      }
  out[0] = mx, out[1] = d2, out[2] = e2;
}

template <class T>
void fill_random(Tag, Field<T>& f, std::uint64_t seed, void*) {
  const Extent n = f.extent();
#pragma omp parallel for
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        f(x, y, z) = T(poisson::random_value(seed, (std::uint64_t(z) * n.ny + y) * n.nx + x));
}

#include "backend/problems_instances.inc"

}  // namespace strata::cpu
