// Plans the multigrid levels: coarsen every axis of more than one point to about half
// (solvers/poisson/transfer.hpp) while the grid is above the dense size, each level with the
// operator re-discretised on its own spacings and smoother bounds from its own spectrum.
// Builds a hierarchy from the plan: the coarsest operator is assembled from stencil
// applications and inverted in double on the host.
#include "solvers/poisson/hierarchy.hpp"

#include <array>
#include <cmath>
#include <utility>

#include "dispatch/multigrid.hpp"
#include "solvers/poisson/operator.hpp"
#include "strata/apply.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

namespace {

// Dense matrix of the stencil with homogeneous boundary conditions (column j = A e_j), by
// the public stencil pass and the dispatched ghost rule on host fields (the CPU backend).
std::vector<double> assemble(const Stencil& a, Extent n, const Boundary& bc, const GhostRule& rule) {
  const std::size_t N = n.points();
  std::vector<double> m(N * N);
  Field<double> e(n, 1), ae(n, 1);
  for (std::size_t j = 0; j < N; ++j) {
    const int x = int(j % n.nx), y = int((j / n.nx) % n.ny), z = int(j / (std::size_t(n.nx) * n.ny));
    e(x, y, z) = 1.0;
    if (bc.kind != BoundaryKind::dirichlet) fill_ghosts(e, bc, 1);
    else extrapolate_ghosts(rule, e, Stream{});
    apply_interior(a, e, ae);
    e(x, y, z) = 0.0;
    std::size_t i = 0;
    for (int zz = 0; zz < n.nz; ++zz)
      for (int yy = 0; yy < n.ny; ++yy)
        for (int xx = 0; xx < n.nx; ++xx, ++i) m[i * N + j] = ae(xx, yy, zz);
  }
  return m;
}

// Gauss-Jordan inversion with partial pivoting, in place.
void invert(std::vector<double>& a, std::size_t N) {
  std::vector<double> inv(N * N, 0.0);
  for (std::size_t i = 0; i < N; ++i) inv[i * N + i] = 1.0;
  for (std::size_t c = 0; c < N; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < N; ++r)
      if (std::fabs(a[r * N + c]) > std::fabs(a[p * N + c])) p = r;
    require(a[p * N + c] != 0.0, "internal: singular coarsest-level operator");
    if (p != c)
      for (std::size_t k = 0; k < N; ++k) {
        std::swap(a[p * N + k], a[c * N + k]);
        std::swap(inv[p * N + k], inv[c * N + k]);
      }
    const double d = 1.0 / a[c * N + c];
    for (std::size_t k = 0; k < N; ++k) a[c * N + k] *= d, inv[c * N + k] *= d;
    for (std::size_t r = 0; r < N; ++r) {
      if (r == c || a[r * N + c] == 0.0) continue;
      const double f = a[r * N + c];
      for (std::size_t k = 0; k < N; ++k) a[r * N + k] -= f * a[c * N + k], inv[r * N + k] -= f * inv[c * N + k];
    }
  }
  a.swap(inv);
}

template <class T>
std::vector<T> to(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

}  // namespace

Boundary homogeneous(BoundaryKind kind) {
  return kind == BoundaryKind::dirichlet ? Boundary::dirichlet(0.0)
                                         : (kind == BoundaryKind::neumann ? Boundary::neumann()
                                                                          : Boundary::periodic());
}

std::vector<LevelPlan> plan_levels(PoissonOperator op, BoundaryKind kind, Extent n, double h, double jacobi_omega) {
  std::vector<LevelPlan> plan;
  std::array<double, 3> hs = {h, h, h};
  std::array<AxisGrid, 3> axes = {AxisGrid{n.nx}, AxisGrid{n.ny}, AxisGrid{n.nz}};
  for (;;) {
    LevelPlan L;
    L.n = n;
    L.h = hs;
    L.a = poisson_stencil(op, hs);
    std::array<bool, 3> coarsened{}, plain{};
    for (int ax = 0; ax < 3; ++ax) {
      L.t[ax] = coarsen_axis(kind, axes[ax]);
      coarsened[ax] = L.t[ax].n_coarse < axes[ax].n;
      if (kind == BoundaryKind::dirichlet) {
        L.ghost.lo[ax] = axes[ax].ghost_lo();
        L.ghost.hi[ax] = axes[ax].ghost_hi();
      }
      plain[ax] = L.ghost.lo[ax] == 0 && L.ghost.hi[ax] == 0;
    }
    L.has_coarser = (coarsened[0] || coarsened[1] || coarsened[2]) && n.points() > 64;
    // Smoother bounds from this level's spectrum. The Chebyshev interval's lower end, as a
    // fraction of the largest eigenvalue, measured as the best V(2,2) convergence factor on
    // 63^3 (docs/poisson.md): 7-point 0.2 (factor 0.16, insensitive between 0.15 and
    // 0.25), finite elements 0.4 (0.03; 0.11 at the oscillatory-mode bound, 1/3 of the range).
    const SymbolBounds sb = symbol_bounds(L.a, kind, n, coarsened, plain);
    L.omega = jacobi_omega > 0 ? jacobi_omega : best_jacobi_omega(sb);
    L.lam_lo = (op == PoissonOperator::fd7 ? 0.2 : 0.4) * sb.max;
    L.lam_hi = 1.02 * sb.max;  // a little above: never below the largest eigenvalue
    const bool more = L.has_coarser;
    if (more) {
      L.full_weighting = kind == BoundaryKind::dirichlet;
      for (int ax = 0; ax < 3; ++ax) {
        hs[ax] *= L.t[ax].ratio;
        axes[ax] = L.t[ax].coarse;
        L.full_weighting = L.full_weighting && L.t[ax].full_weighting;
      }
    }
    plan.push_back(std::move(L));
    if (!more) break;
    n = Extent{axes[0].n, axes[1].n, axes[2].n};
  }
  return plan;
}

template <class T>
Hierarchy<T> build_hierarchy(const std::vector<LevelPlan>& plan, std::size_t first, BoundaryKind kind,
                             Memory memory) {
  Hierarchy<T> H;
  H.bc = homogeneous(kind);
  for (std::size_t l = first; l < plan.size(); ++l) {
    const LevelPlan& p = plan[l];
    Level<T> L;
    static_cast<LevelGeometry&>(L) = p;
    L.u = Field<T>(p.n, 1, memory);
    L.u2 = Field<T>(p.n, 1, memory);
    L.f = Field<T>(p.n, 1, memory);
    L.r = Field<T>(p.n, 1, memory);
    if (p.has_coarser) {
      L.has_coarser = true;
      for (int ax = 0; ax < 3; ++ax) {
        const AxisTransfer& t = p.t[ax];
        L.set_axis(ax, t.n_fine, t.n_coarse, t.p_idx, t.p_w, t.r_idx, t.r_w, memory);
      }
      L.down.full_weighting = p.full_weighting;
    }
    H.levels.push_back(std::move(L));
  }

  // The coarsest level: exact (pseudo-)inverse when small enough.
  const Level<T>& C = H.levels.back();
  const std::size_t N = C.n.points();
  if (N <= std::size_t(kDenseMax)) {
    std::vector<double> m = assemble(C.a, C.n, H.bc, C.ghost);
    const bool singular = kind != BoundaryKind::dirichlet;
    if (singular)  // A + c 11^T is invertible; its inverse maps mean-free r to mean-free e
      for (double& v : m) v += diagonal(C.a) / double(N);
    invert(m, N);
    if (singular) {  // project r onto mean-free first: M (I - 11^T / N)
      for (std::size_t i = 0; i < N; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < N; ++j) row += m[i * N + j];
        for (std::size_t j = 0; j < N; ++j) m[i * N + j] -= row / double(N);
      }
    }
    H.dense = Buffer<T>(to<T>(m), memory);
    H.dense_ok = true;
  }
  // Ghost layers of every level stay zero for Dirichlet (they are never written).
  return H;
}

template <class T>
Hierarchy<T> build_hierarchy(PoissonOperator op, BoundaryKind kind, Extent n, double h, Memory memory,
                             double jacobi_omega) {
  return build_hierarchy<T>(plan_levels(op, kind, n, h, jacobi_omega), 0, kind, memory);
}

template Hierarchy<float> build_hierarchy(PoissonOperator, BoundaryKind, Extent, double, Memory, double);
template Hierarchy<double> build_hierarchy(PoissonOperator, BoundaryKind, Extent, double, Memory, double);
template Hierarchy<float> build_hierarchy(const std::vector<LevelPlan>&, std::size_t, BoundaryKind, Memory);
template Hierarchy<double> build_hierarchy(const std::vector<LevelPlan>&, std::size_t, BoundaryKind, Memory);

}  // namespace strata::poisson
