// Poisson operators, grid geometry and the symbol of D^-1 A.
#include "core/poisson/operator.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "strata/error.hpp"
#include "strata/poisson.hpp"

namespace strata {

std::string_view to_string(PoissonOperator op) { return op == PoissonOperator::fd7 ? "fd7" : "fe27"; }
std::string_view to_string(Smoother s) { return s == Smoother::jacobi ? "jacobi" : "chebyshev"; }
std::string_view to_string(PoissonMethod m) {
  switch (m) {
    case PoissonMethod::jacobi: return "jacobi";
    case PoissonMethod::mg: return "mg";
    case PoissonMethod::fmg: return "fmg";
    case PoissonMethod::cg: return "cg";
    case PoissonMethod::mgcg: return "mgcg";
    case PoissonMethod::fft: return "fft";
  }
  return "?";
}

PoissonOperator parse_poisson_operator(std::string_view s) {
  if (s == "fd7") return PoissonOperator::fd7;
  if (s == "fe27") return PoissonOperator::fe27;
  throw Error("unknown operator '" + std::string(s) + "': allowed fd7, fe27");
}
Smoother parse_smoother(std::string_view s) {
  if (s == "jacobi") return Smoother::jacobi;
  if (s == "chebyshev") return Smoother::chebyshev;
  throw Error("unknown smoother '" + std::string(s) + "': allowed jacobi, chebyshev");
}
PoissonMethod parse_poisson_method(std::string_view s) {
  for (PoissonMethod m : {PoissonMethod::jacobi, PoissonMethod::mg, PoissonMethod::fmg,
                          PoissonMethod::cg, PoissonMethod::mgcg, PoissonMethod::fft})
    if (s == to_string(m)) return m;
  throw Error("unknown solver '" + std::string(s) + "': allowed jacobi, mg, fmg, cg, mgcg, fft");
}

Stencil poisson_stencil(PoissonOperator op, double h) {
  require(std::isfinite(h) && h > 0, "grid spacing must be a positive finite number");
  const double s = 1.0 / (h * h);
  if (op == PoissonOperator::fd7) {
    const double c[] = {6.0 * s, -1.0 * s};
    return Stencil::star(1, c);
  }
  // Trilinear finite elements: the stiffness matrix (the paper's stencil, ~h) over the
  // lumped mass h^3, so the right-hand side is f at the points.
  return Stencil::sym27(8.0 / 3 * s, 0.0, -1.0 / 6 * s, -1.0 / 12 * s);
}

double poisson_spacing(const Boundary& bc, int n, double length) {
  require(n >= 1 && length > 0 && std::isfinite(length), "grid length and size must be positive");
  return bc.kind == BoundaryKind::dirichlet ? length / (n + 1) : length / n;
}

double poisson_coordinate(const Boundary& bc, int i, double h) {
  switch (bc.kind) {
    case BoundaryKind::dirichlet: return (i + 1) * h;
    case BoundaryKind::neumann: return (i + 0.5) * h;
    case BoundaryKind::periodic: return i * h;
  }
  return 0;
}

namespace poisson {

SymbolBounds symbol_bounds(const Stencil& a) {
  // lambda(theta) = sum over offsets of c_o cos(o . theta) / c_centre, sampled on a grid
  // fine enough that the extremes (at theta in {0, pi/2, pi} for these stencils) are hit.
  const auto k = a.kind() == StencilKind::star ? std::array<double, 27>{} : a.as_box27();
  const int R = a.radius();
  const auto c = a.coeffs();
  const double diag = c[0];
  auto lambda = [&](double tx, double ty, double tz) {
    double v = 0;
    if (a.kind() == StencilKind::star) {
      v = c[0];
      for (int r = 1; r <= R; ++r) v += 2 * c[r] * (std::cos(r * tx) + std::cos(r * ty) + std::cos(r * tz));
    } else {
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            v += k[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1] * std::cos(dx * tx + dy * ty + dz * tz);
    }
    return v / diag;
  };
  const int m = 32;  // samples per half axis: multiples of pi/32
  SymbolBounds b{1e300, 0};
  for (int i = 0; i <= m; ++i)
    for (int j = 0; j <= m; ++j)
      for (int l = 0; l <= m; ++l) {
        const double pi = std::numbers::pi;
        const double tx = pi * i / m, ty = pi * j / m, tz = pi * l / m;
        const double v = lambda(tx, ty, tz);
        b.max = std::max(b.max, v);
        if (std::max({i, j, l}) * 2 >= m) b.high_min = std::min(b.high_min, v);
      }
  return b;
}

}  // namespace poisson
}  // namespace strata
