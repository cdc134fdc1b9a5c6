// Generated Poisson problems. The manufactured solution is separable, u* = offset + X(x) Y(y)
// Z(z): one table per axis, made here; the backend that owns the field (backend/problems.hpp,
// reached through on_backend) multiplies three entries per point in the same order on the
// host and on the device, so both write the same values.
#include "strata/manufactured.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "backend/problems.hpp"
#include "dispatch/backend.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"

namespace strata::poisson {

namespace {

struct Mode {
  std::vector<double> t[3];  // the factor of each axis at its points
  double k2 = 0;             // -Lap(X Y Z) = k2 X Y Z
  double offset = 0;         // the Dirichlet boundary value
};

Mode mode_of(const Boundary& bc, double h, Extent n) {
  const double pi = std::numbers::pi;
  const int len[3] = {n.nx, n.ny, n.nz};
  const double mult = bc.kind == BoundaryKind::periodic ? 2.0 : 1.0;
  Mode m;
  for (int a = 0; a < 3; ++a) {
    const double L = bc.kind == BoundaryKind::dirichlet ? (len[a] + 1) * h : len[a] * h;  // the box
    const double k = mult * pi / L;
    m.k2 += k * k;
    m.t[a].resize(std::size_t(len[a]));
    for (int i = 0; i < len[a]; ++i) {
      const double c = poisson_coordinate(bc, i, h);
      m.t[a][std::size_t(i)] = bc.kind == BoundaryKind::neumann ? std::cos(k * c) : std::sin(k * c);
    }
  }
  m.offset = bc.kind == BoundaryKind::dirichlet ? bc.value : 0.0;
  return m;
}

double mean_of(const Mode& m) {
  double s[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for (double v : m.t[a]) s[a] += v;
  return s[0] / double(m.t[0].size()) * (s[1] / double(m.t[1].size())) *
         (s[2] / double(m.t[2].size()));
}

ErrorNorms norms(double max_abs, double d2, double e2) {
  return {max_abs, e2 > 0 ? std::sqrt(d2 / e2) : std::sqrt(d2)};
}

}  // namespace

template <class T>
void manufactured(const Boundary& bc, double h, Field<T>& f, Field<T>* exact, Stream stream) {
  const Extent n = f.extent();
  const Mode m = mode_of(bc, h, n);
  const double *tx = m.t[0].data(), *ty = m.t[1].data(), *tz = m.t[2].data();
  on_backend(f.memory(), [&](auto tag) {
    fill_product(tag, tx, ty, tz, m.k2, 0.0, f, stream.handle);
    if (!exact) return;
    require(exact->extent() == n && exact->memory() == f.memory(),
            "manufactured: exact must match f");
    fill_product(tag, tx, ty, tz, 1.0, m.offset, *exact, stream.handle);
  });
}

template <class T>
ErrorNorms manufactured_error(const Boundary& bc, double h, const Field<T>& u, Stream stream) {
  const Extent n = u.extent();
  const Mode m = mode_of(bc, h, n);
  // Neumann and periodic solutions are compared with zero mean.
  const bool shift = bc.kind != BoundaryKind::dirichlet;
  const double mu = shift ? sum(u, stream) / double(n.points()) : 0.0;
  const double me = shift ? m.offset + mean_of(m) : 0.0;
  double r[3];
  on_backend(u.memory(), [&](auto tag) {
    product_error(tag, m.t[0].data(), m.t[1].data(), m.t[2].data(), m.offset, mu, me, u, r,
                  stream.handle);
  });
  return norms(r[0], r[1], r[2]);
}

template <class T>
ErrorNorms solution_error(const Boundary& bc, const Field<T>& u, const Field<T>& exact) {
  require(u.memory() == Memory::host && exact.memory() == Memory::host,
          "solution_error: host fields");
  const Extent n = u.extent();
  double mu = 0, me = 0;
  if (bc.kind != BoundaryKind::dirichlet) {
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) mu += u(x, y, z), me += exact(x, y, z);
    mu /= double(n.points());
    me /= double(n.points());
  }
  double mx = 0, d2 = 0, e2 = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const double d = (u(x, y, z) - mu) - (exact(x, y, z) - me);
        mx = std::max(mx, std::fabs(d));
        d2 += d * d;
        e2 += (exact(x, y, z) - me) * (exact(x, y, z) - me);
      }
  return norms(mx, d2, e2);
}

template <class T>
void random_rhs(Field<T>& f, std::uint64_t seed, Stream stream) {
  on_backend(f.memory(), [&](auto tag) { fill_random(tag, f, seed, stream.handle); });
}

#define STRATA_INSTANTIATE(T)                                                               \
  template void manufactured(const Boundary&, double, Field<T>&, Field<T>*, Stream);        \
  template ErrorNorms manufactured_error(const Boundary&, double, const Field<T>&, Stream); \
  template ErrorNorms solution_error(const Boundary&, const Field<T>&, const Field<T>&);    \
  template void random_rhs(Field<T>&, std::uint64_t, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::poisson
