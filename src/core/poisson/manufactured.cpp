// Manufactured solutions and error norms (host only, double arithmetic).
#include "core/poisson/manufactured.hpp"

#include <cmath>
#include <numbers>

#include "strata/poisson.hpp"

namespace strata::poisson {

template <class T>
void manufactured(const Boundary& bc, double h, Field<T>& f, Field<T>* exact) {
  const Extent n = f.extent();
  const double pi = std::numbers::pi;
  // Box lengths along each axis, and the wave number per axis.
  auto length = [&](int m) { return bc.kind == BoundaryKind::dirichlet ? (m + 1) * h : m * h; };
  const double L[3] = {length(n.nx), length(n.ny), length(n.nz)};
  const double mult = bc.kind == BoundaryKind::periodic ? 2.0 : 1.0;
  double k2 = 0, k[3];
  for (int a = 0; a < 3; ++a) k[a] = mult * pi / L[a], k2 += k[a] * k[a];
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const double c[3] = {poisson_coordinate(bc, x, h), poisson_coordinate(bc, y, h),
                             poisson_coordinate(bc, z, h)};
        double v = 1;
        for (int a = 0; a < 3; ++a)
          v *= bc.kind == BoundaryKind::neumann ? std::cos(k[a] * c[a]) : std::sin(k[a] * c[a]);
        f(x, y, z) = T(k2 * v);
        if (exact) (*exact)(x, y, z) = T(v + (bc.kind == BoundaryKind::dirichlet ? bc.value : 0.0));
      }
}

template <class T>
ErrorNorms solution_error(const Boundary& bc, const Field<T>& u, const Field<T>& exact) {
  const Extent n = u.extent();
  double mu = 0, me = 0;
  if (bc.kind != BoundaryKind::dirichlet) {
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) mu += u(x, y, z), me += exact(x, y, z);
    mu /= double(n.points());
    me /= double(n.points());
  }
  ErrorNorms e;
  double num = 0, den = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const double d = (u(x, y, z) - mu) - (exact(x, y, z) - me);
        e.max_abs = std::max(e.max_abs, std::fabs(d));
        num += d * d;
        den += (exact(x, y, z) - me) * (exact(x, y, z) - me);
      }
  e.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

template void manufactured(const Boundary&, double, Field<float>&, Field<float>*);
template void manufactured(const Boundary&, double, Field<double>&, Field<double>*);
template ErrorNorms solution_error(const Boundary&, const Field<float>&, const Field<float>&);
template ErrorNorms solution_error(const Boundary&, const Field<double>&, const Field<double>&);

}  // namespace strata::poisson
