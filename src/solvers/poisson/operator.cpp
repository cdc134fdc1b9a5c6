// Poisson operators, grid geometry and the symbol of D^-1 A.
#include "solvers/poisson/operator.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

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
  return poisson::poisson_stencil(op, {h, h, h});
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

// Both operators are sums over the axes a of the 1D second difference [-1, 2, -1] / h_a^2
// along a times a 1D weight on each other axis: the identity (fd7) or the 1D mass over its
// lumped value, [1, 4, 1] / 6 (fe27: the stiffness matrix over the lumped mass h^3, so the
// right-hand side is f at the points; equal spacings give the paper's stencil
// 8/3, 0, -1/6, -1/12 over h^2).
Stencil poisson_stencil(PoissonOperator op, const std::array<double, 3>& h) {
  for (double v : h) require(std::isfinite(v) && v > 0, "grid spacing must be a positive finite number");
  const double d2[3] = {-1.0, 2.0, -1.0};
  const double fd_weight[3] = {0.0, 1.0, 0.0}, fe_weight[3] = {1.0 / 6, 4.0 / 6, 1.0 / 6};
  const double* w = op == PoissonOperator::fd7 ? fd_weight : fe_weight;
  std::array<double, 27> k{};
  for (int dz = 0; dz < 3; ++dz)
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx) {
        const int d[3] = {dx, dy, dz};
        double v = 0;
        for (int a = 0; a < 3; ++a) {
          double term = d2[d[a]] / (h[a] * h[a]);
          for (int b = 0; b < 3; ++b)
            if (b != a) term *= w[d[b]];
          v += term;
        }
        k[dz * 9 + dy * 3 + dx] = v;
      }
  if (!(h[0] == h[1] && h[1] == h[2])) return Stencil::box27(k);
  // Equal spacings: the same coefficients as the symmetric kinds the fast kernels take
  // (centre 13, face 14, edge 17, corner 0 in K[dz+1][dy+1][dx+1]).
  if (op == PoissonOperator::fd7) {
    const double c[] = {k[13], k[14]};
    return Stencil::star(1, c);
  }
  return Stencil::sym27(k[13], k[14], k[17], k[0]);
}

double coefficient_sum(const Stencil& a) {
  double s = 0;
  for (double c : a.as_box27()) s += std::fabs(c);
  return s;
}

SymbolBounds symbol_bounds(const Stencil& a, BoundaryKind kind, Extent n, const std::array<bool, 3>& coarsened,
                           const std::array<bool, 3>& plain) {
  const double pi = std::numbers::pi;
  // The frequencies of each axis: the grid's own where few and exact, else multiples of pi/32.
  std::array<std::vector<double>, 3> theta;
  const int ext[3] = {n.nx, n.ny, n.nz};
  for (int ax = 0; ax < 3; ++ax) {
    const int m = ext[ax];
    if (m > 32 || !plain[ax]) {
      for (int i = 0; i <= 32; ++i) theta[ax].push_back(pi * i / 32);
    } else if (kind == BoundaryKind::dirichlet) {
      for (int k = 1; k <= m; ++k) theta[ax].push_back(pi * k / (m + 1));  // sin(theta (i + 1))
    } else if (kind == BoundaryKind::neumann) {
      for (int k = 0; k < m; ++k) theta[ax].push_back(pi * k / m);  // cos(theta (i + 1/2))
    } else {
      for (int k = 0; k < m; ++k) theta[ax].push_back(2 * pi * std::min(k, m - k) / m);  // e^(i theta i)
    }
  }
  // The symbol of a 3x3x3 stencil even in every axis: sum K_d cos(dx tx) cos(dy ty) cos(dz tz).
  const std::array<double, 27> k = a.as_box27();
  for (int dz = 0; dz < 3; ++dz)
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx) {
        const double v = k[dz * 9 + dy * 3 + dx];
        require(v == k[dz * 9 + dy * 3 + 2 - dx] && v == k[dz * 9 + (2 - dy) * 3 + dx] && v == k[(2 - dz) * 9 + dy * 3 + dx],
                "internal: symbol_bounds takes stencils even in every axis");
      }
  const double diag = k[13];
  const bool any_coarsened = coarsened[0] || coarsened[1] || coarsened[2];
  SymbolBounds b{1e300, 0};
  for (double tz : theta[2])
    for (double ty : theta[1])
      for (double tx : theta[0]) {
        const double c[3][3] = {{std::cos(tx), 1.0, std::cos(tx)},
                                {std::cos(ty), 1.0, std::cos(ty)},
                                {std::cos(tz), 1.0, std::cos(tz)}};
        double v = 0;
        for (int dz = 0; dz < 3; ++dz)
          for (int dy = 0; dy < 3; ++dy)
            for (int dx = 0; dx < 3; ++dx) v += k[dz * 9 + dy * 3 + dx] * c[0][dx] * c[1][dy] * c[2][dz];
        v /= diag;
        b.max = std::max(b.max, v);
        const double t[3] = {tx, ty, tz};
        bool high = !any_coarsened;
        for (int ax = 0; ax < 3; ++ax) high = high || (coarsened[ax] && t[ax] >= pi / 2 - 1e-12);
        if (high) b.high_min = std::min(b.high_min, v);
      }
  if (b.high_min > b.max) b.high_min = b.max;  // no oscillatory mode (a grid of one point)
  return b;
}

}  // namespace poisson
}  // namespace strata
