// Checking a computed stencil pass against the CPU reference, shared by the tests, the
// benchmark (every variant is validated before it is timed) and `strata demo`.
// Tolerance per point = abs_tol + sum_i |c_i u_i| * eps(T) * terms: the standard bound for
// a sum of `terms` products in precision T, scaled by the magnitude that was summed.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "strata/apply.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"
#include "strata/steps.hpp"

namespace strata::verify {

// The same stencil with |coefficients|: applied to |u| it gives sum |c_i u_i|.
inline Stencil abs_stencil(const Stencil& s) {
  std::vector<double> c(s.coeffs().begin(), s.coeffs().end());
  for (double& v : c) v = std::fabs(v);
  switch (s.kind()) {
    case StencilKind::star: return Stencil::star(s.radius(), c);
    case StencilKind::sym27: return Stencil::sym27(c[0], c[1], c[2], c[3]);
    case StencilKind::box27: return Stencil::box27(c);
  }
  return s;
}

inline int terms_of(const Stencil& s) {
  return s.kind() == StencilKind::star ? 1 + 6 * s.radius() : 27;
}

struct Mismatch {
  std::size_t bad = 0, checked = 0;
  double worst = 0;  // worst |error| / tolerance
  int x = -1, y = -1, z = -1;
  double got = 0, ref = 0, tol = 0;
  bool ok() const { return bad == 0; }
  std::string str() const {
    std::ostringstream s;
    s.precision(10);
    if (bad == 0) {
      s << "all " << checked << " points within tolerance (worst " << worst << " of the bound)";
      return s.str();
    }
    s << bad << " of " << checked << " points out of tolerance; worst at (" << x << "," << y
      << "," << z << "): got " << got << ", expected " << ref << ", tolerance " << tol;
    return s.str();
  }
};

// |got - ref| <= abs_tol + mag * eps(T) * terms on every interior point; NaN never passes.
template <class T>
Mismatch compare(const Field<T>& got, const Field<T>& ref, const Field<T>& mag, int terms,
                 double abs_tol = 0.0) {
  Mismatch m;
  const Extent n = ref.extent();
  const double eps = std::numeric_limits<T>::epsilon();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const double g = got(x, y, z), r = ref(x, y, z);
        const double tol = abs_tol + double(mag(x, y, z)) * eps * terms;
        const double err = std::fabs(g - r);
        const bool bad = !(err <= tol);  // NaN fails
        const double score = bad && !(err < std::numeric_limits<double>::infinity())
                                 ? std::numeric_limits<double>::infinity()
                                 : err / (tol > 0 ? tol : std::numeric_limits<double>::min());
        ++m.checked;
        if (bad) ++m.bad;
        if (score > m.worst || (bad && m.bad == 1)) {
          m.worst = score;
          m.x = x, m.y = y, m.z = z, m.got = g, m.ref = r, m.tol = tol;
        }
      }
  return m;
}

// Checks `got` (a host field) against the CPU reference of stencil on `in` (a host field
// whose ghosts already hold the boundary values; host fields run on the CPU backend).
template <class T>
Mismatch against_reference(const Stencil& s, const Field<T>& in, const Field<T>& got) {
  const Extent n = in.extent();
  Field<T> ref(n, in.ghost()), mag(n, in.ghost()), abs_in(n, in.ghost());
  apply_interior(s, in, ref);
  const Layout& L = in.layout();
  for (std::size_t i = 0; i < L.size; ++i) abs_in.data()[i] = std::fabs(in.data()[i]);
  apply_interior(abs_stencil(s), abs_in, mag);
  return compare(got, ref, mag, terms_of(s));
}

// A polynomial of one degree per axis plus mixed terms, and its exact Laplacian: a central
// difference Laplacian of order p is exact on polynomials of degree p + 1. Evaluated in
// long double so that sampling it in T costs exactly one rounding to T.
struct Polynomial {
  int degree = 3;
  double a[3][10] = {};  // a[axis][m] t^m
  double xyz = 0.7, x2y = -0.45;

  explicit Polynomial(int deg) : degree(deg) {
    for (int ax = 0; ax < 3; ++ax)
      for (int m = 0; m <= deg; ++m) a[ax][m] = (1.0 + 0.31 * ax + 0.17 * m) * ((m + ax) % 2 ? -1 : 1);
  }
  long double value(long double x, long double y, long double z) const {
    const long double t[3] = {x, y, z};
    long double v = xyz * x * y * z + x2y * x * x * y;
    for (int ax = 0; ax < 3; ++ax)
      for (int m = degree; m >= 0; --m) v += a[ax][m] * std::pow(t[ax], m);
    return v;
  }
  long double laplacian(long double x, long double y, long double z) const {
    const long double t[3] = {x, y, z};
    long double v = 2.0L * x2y * y;
    for (int ax = 0; ax < 3; ++ax)
      for (int m = 2; m <= degree; ++m) v += a[ax][m] * m * (m - 1) * std::pow(t[ax], m - 2);
    return v;
  }
};

// Applies `laplacian` (spacing h) on memory `mem` to the polynomial sampled everywhere,
// ghosts included, and compares the interior with the exact Laplacian. The tolerance scales
// with sum |c_i u_i| (which holds the 1/h^2), so it is a rounding bound, not a fudge.
template <class T>
Mismatch laplacian_exactness(const Stencil& laplacian, int degree, Extent n, double h, Memory mem) {
  const Polynomial p(degree);
  const int g = laplacian.radius();
  Field<T> u(n, g), exact(n, g), mag(n, g), abs_u(n, g), got(n, g);
  auto coord = [&](int i, int len) { return (i - 0.5L * (len - 1)) * (long double)h; };
  for (int z = -g; z < n.nz + g; ++z)
    for (int y = -g; y < n.ny + g; ++y)
      for (int x = -g; x < n.nx + g; ++x) {
        const long double cx = coord(x, n.nx), cy = coord(y, n.ny), cz = coord(z, n.nz);
        u(x, y, z) = T(p.value(cx, cy, cz));
        abs_u(x, y, z) = std::fabs(u(x, y, z));
        if (x >= 0 && y >= 0 && z >= 0 && x < n.nx && y < n.ny && z < n.nz)
          exact(x, y, z) = T(p.laplacian(cx, cy, cz));
      }
  // The exact value's own rounding to T and the sampling of u in T add |u|-sized errors.
  apply_interior(abs_stencil(laplacian), abs_u, mag);
  if (mem == Memory::host) {
    apply_interior(laplacian, u, got);
  } else {
    Field<T> du(n, g, Memory::device), dgot(n, g, Memory::device);
    copy(u, du);
    apply_interior(laplacian, du, dgot);
    copy(dgot, got);
  }
  Mismatch m = compare(got, exact, mag, terms_of(laplacian) + 2);
  return m;
}

// Repeated steps (strata/steps.hpp). sum |c_i| over the taps, a star's off-centre
// coefficient counted for its 6 taps: the gain of one step of A.
inline double tap_mass(const Stencil& s) {
  double a = 0;
  for (std::size_t i = 0; i < s.coeffs().size(); ++i)
    a += std::fabs(s.coeffs()[i]) * (s.kind() == StencilKind::star && i > 0 ? 6 : 1);
  return a;
}

// The per-step gain g and, carried over `steps` steps, sum_t g^t (t < steps, g >= 1).
inline double steps_carried(const Stencil& s, const StepOptions& o, int steps) {
  const double a = tap_mass(s);
  const double g = o.update == StepUpdate::repeat ? a : 1 + std::fabs(o.c) * a;
  double carried = 0;
  for (int t = 0; t < steps; ++t) carried = carried * std::max(g, 1.0) + 1;
  return carried;
}

// Bound on worst_relative between two backends' apply_steps after `steps` steps: each
// step's roundings (a few eps of the sum of |terms|, itself g) carried on by the later
// steps' gain.
inline double steps_bound(const Stencil& s, const StepOptions& o, int steps, double eps) {
  const double a = tap_mass(s);
  const double terms = o.update == StepUpdate::repeat ? a : 1 + std::fabs(o.c) * a;
  return 8 * terms * steps_carried(s, o, steps) * eps;
}

// max |got - want| / max(1, |want|) over the interior of two host fields of one extent.
template <class T>
double worst_relative(const Field<T>& got, const Field<T>& want) {
  const Extent n = want.extent();
  double worst = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        worst = std::max(worst, std::fabs(double(got(x, y, z)) - double(want(x, y, z))) /
                                    std::max(1.0, std::fabs(double(want(x, y, z)))));
  return worst;
}

}  // namespace strata::verify
